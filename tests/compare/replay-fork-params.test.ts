/**
 * The replay page's fork parameters: a shared link restores the fork, a broken link is an
 * error to show, and the fork form says which field is wrong.
 */
import { describe, expect, it } from "vitest";
import { cliCommand, draftToSpec, readForkParams, writeForkParams, type ForkDraft } from "../../components/replay/fork-params";

const draft = (over: Partial<ForkDraft>): ForkDraft => ({ seq: "17", kind: "deny", requireApproval: "", maxSteps: "", json: "", ...over });

describe("fork URL parameters", () => {
  it("round-trips a fork through the URL, keeping other parameters", () => {
    const spec = { seq: 17, override: { approval: "denied" as const } };
    const params = writeForkParams(new URLSearchParams("event=4"), spec);
    expect(params.get("event")).toBe("4");
    expect(readForkParams(params)).toEqual({ fork: spec, error: null });
    expect(readForkParams(writeForkParams(params, null))).toEqual({ fork: null, error: null });
  });

  it.each([
    ["fork=17", /needs both/],
    ["fork=x&override={}", /non-negative integer/],
    ["fork=3&override={nope", /not valid JSON/],
    ["fork=3&override=" + encodeURIComponent('{"bogus":1}'), /unknown override field/],
    ["fork=3&override=" + encodeURIComponent('{"policy":{"maxSteps":"two"}}'), /maxSteps/],
  ])("%s is an error, not a crash", (query, message) => {
    const r = readForkParams(new URLSearchParams(query));
    expect(r.fork).toBeNull();
    expect(r.error).toMatch(message);
  });
});

describe("the fork form", () => {
  it("denies or approves an approval at the seq", () => {
    expect(draftToSpec(draft({}))).toEqual({ ok: true, spec: { seq: 17, override: { approval: "denied" } } });
    expect(draftToSpec(draft({ kind: "approve", seq: " 3 " }))).toEqual({ ok: true, spec: { seq: 3, override: { approval: "approved" } } });
  });

  it("changes the policy: tools by comma, maxSteps a whole number or empty", () => {
    expect(draftToSpec(draft({ kind: "policy", requireApproval: "issue_refund, send_email,", maxSteps: "2" }))).toEqual({
      ok: true,
      spec: { seq: 17, override: { policy: { requireApproval: ["issue_refund", "send_email"], maxSteps: 2 } } },
    });
    expect(draftToSpec(draft({ kind: "policy", requireApproval: "", maxSteps: "" }), { requireApproval: ["issue_refund"] })).toMatchObject({
      ok: true,
      spec: { override: { policy: { requireApproval: [] } } },
    });
    expect(draftToSpec(draft({ kind: "policy", maxSteps: "-1" }))).toMatchObject({
      ok: false,
      field: "maxSteps",
      error: expect.stringMatching(/whole number/),
    });
    expect(draftToSpec(draft({ kind: "policy", maxSteps: "2.5" }))).toMatchObject({ ok: false, field: "maxSteps" });
  });

  it("leaves out what the run's own policy already says, and refuses an unchanged policy", () => {
    const base = { requireApproval: ["issue_refund"], maxSteps: 6 };
    expect(draftToSpec(draft({ kind: "policy", requireApproval: "issue_refund", maxSteps: "2" }), base)).toEqual({
      ok: true,
      spec: { seq: 17, override: { policy: { maxSteps: 2 } } },
    });
    expect(draftToSpec(draft({ kind: "policy", requireApproval: "send_email , issue_refund", maxSteps: "6" }), base)).toEqual({
      ok: true,
      spec: { seq: 17, override: { policy: { requireApproval: ["send_email", "issue_refund"] } } },
    });
    expect(draftToSpec(draft({ kind: "policy", requireApproval: "issue_refund", maxSteps: "6" }), base)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/run's own policy/),
    });
  });

  it("validates the JSON editor: syntax, shape, and the fields the engine knows", () => {
    expect(draftToSpec(draft({ kind: "toolResult", json: '{"status":"error","error":"boom"}' }))).toEqual({
      ok: true,
      spec: { seq: 17, override: { toolResult: { status: "error", error: "boom" } } },
    });
    expect(draftToSpec(draft({ kind: "toolResult", json: '{"status":"error",}' }))).toMatchObject({
      ok: false,
      field: "json",
      error: expect.stringMatching(/^not valid JSON: /),
    });
    expect(draftToSpec(draft({ kind: "toolResult", json: '{"status":"maybe"}' }))).toMatchObject({
      ok: false,
      field: "json",
      error: expect.stringMatching(/status must be one of ok, error, timeout, unknown/),
    });
    expect(draftToSpec(draft({ kind: "toolResult", json: "[1]" }))).toMatchObject({
      ok: false,
      field: "json",
      error: expect.stringMatching(/JSON object/),
    });
    expect(draftToSpec(draft({ kind: "modelOutput", json: '{"toolCalls":[{"args":{}}]}' }))).toMatchObject({
      ok: false,
      field: "json",
      error: expect.stringMatching(/toolCalls\.0\.name/),
    });
    expect(draftToSpec(draft({ kind: "modelOutput", json: '{"text":"no tool needed"}' }))).toMatchObject({
      ok: true,
      spec: { override: { modelOutput: { text: "no tool needed" } } },
    });
    expect(draftToSpec(draft({ kind: "state", json: "" }))).toMatchObject({ ok: false, field: "json", error: "the JSON editor is empty" });
    expect(draftToSpec(draft({ kind: "state", json: '{"status":"done"}' }))).toMatchObject({
      ok: true,
      spec: { override: { state: { status: "done" } } },
    });
  });

  it("refuses a seq that is not a whole number", () => {
    expect(draftToSpec(draft({ seq: "abc" }))).toMatchObject({ ok: false, field: "seq" });
  });

  it("writes the CLI command that replays the same fork, quoted for a shell", () => {
    expect(cliCommand("run-1", { seq: 17, override: { modelOutput: { text: "it's" } } })).toBe(
      `npm run -s retrace -- replay run.jsonl --run 'run-1' --fork 17 --override '{"modelOutput":{"text":"it'\\''s"}}'`,
    );
  });
});
