/**
 * One ForkOverride schema behind the three ways to ask for a fork: the CLI's
 * `--override JSON`, the replay page's `?override=` and the fork form. Each accepts the
 * same overrides and refuses the same ones, and the words name the field that is wrong.
 */
import { describe, expect, it } from "vitest";
import { draftToSpec, readForkParams, type ForkDraft } from "../../components/replay/fork-params";
import { readOverrideArgument } from "../../lib/cli/commands/replay";

type Override = Record<string, unknown>;

/** The form's fields for an override it can express (null: the form has no way to say it). */
function draftFor(o: Override): ForkDraft | null {
  const base: ForkDraft = { seq: "17", kind: "deny", requireApproval: "", maxSteps: "", json: "" };
  const [key, ...more] = Object.keys(o);
  if (more.length > 0) return null;
  const v = o[key];
  if (key === "approval") return v === "denied" ? base : v === "approved" ? { ...base, kind: "approve" } : null;
  if (key === "toolResult" || key === "modelOutput" || key === "state") return { ...base, kind: key, json: JSON.stringify(v) };
  if (key === "policy" && v !== null && typeof v === "object") {
    const p = v as { requireApproval?: unknown; maxSteps?: unknown };
    const tools = p.requireApproval;
    if (Object.keys(p).some((k) => k !== "requireApproval" && k !== "maxSteps")) return null;
    if (tools !== undefined && !(Array.isArray(tools) && tools.every((t) => typeof t === "string" && /^[^,\s]+$/.test(t)))) return null;
    if (p.maxSteps !== undefined && typeof p.maxSteps !== "number") return null;
    return {
      ...base,
      kind: "policy",
      requireApproval: Array.isArray(tools) ? tools.join(", ") : "",
      maxSteps: p.maxSteps === undefined ? "" : String(p.maxSteps),
    };
  }
  return null;
}

function cli(o: Override): { ok: true; override: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, override: readOverrideArgument(JSON.stringify(o)) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

function url(o: Override) {
  const r = readForkParams(new URLSearchParams({ fork: "17", override: JSON.stringify(o) }));
  return r.fork ? { ok: true as const, override: r.fork.override } : { ok: false as const, error: r.error ?? "" };
}

const ACCEPTED: Override[] = [
  { approval: "denied" },
  { approval: "approved" },
  { toolResult: { status: "error", error: "boom" } },
  { toolResult: { partial: true, result: { rows: 3 }, externalId: "x-1" } },
  { modelOutput: { text: "no tool needed" } },
  { modelOutput: { toolCalls: [{ id: "c1", name: "send_email", args: { to: "a@b" } }] } },
  { state: { status: "done" } },
  { state: null },
  { policy: { maxSteps: 2 } },
  { policy: { requireApproval: ["send_email", "issue_refund"] } },
  { policy: { retrievalMaxAgeSeconds: 60 } },
  { statePatch: [{ op: "add", path: "/a", value: 1 }] },
  { approval: "denied", policy: { maxSteps: 4 } },
];

/** Refused, with the field the message must name. */
const REFUSED: Array<[Override, RegExp]> = [
  [{ toolResult: { status: "maybe" } }, /toolResult\.status must be one of ok, error, timeout, unknown/],
  [{ toolResult: { partial: "yes" } }, /toolResult\.partial must be true or false/],
  [{ toolResult: { externalId: 7 } }, /toolResult\.externalId must be a string/],
  [{ toolResult: [1] }, /toolResult must be a JSON object/],
  [{ toolResult: "error" }, /toolResult must be a JSON object/],
  [{ modelOutput: { text: 3 } }, /modelOutput\.text must be a string/],
  [{ modelOutput: { toolCalls: [{ args: {} }] } }, /modelOutput\.toolCalls\.0\.name must be a string/],
  [{ modelOutput: { toolCalls: "send_email" } }, /modelOutput\.toolCalls must be an array/],
  [{ modelOutput: "hello" }, /modelOutput must be a JSON object/],
  [{ approval: "perhaps" }, /approval must be "approved" or "denied"/],
  [{ policy: { maxSteps: 2.5 } }, /maxSteps/],
  [{ policy: { maxSteps: -1 } }, /maxSteps/],
  [{ policy: { maxSteps: "two" } }, /policy\.maxSteps must be a number/],
  [{ policy: { requireApproval: ["a", 1] } }, /policy\.requireApproval\.1 must be a string/],
  [{ policy: { strict: true } }, /policy has unknown field strict/],
  [{ bogus: 1 }, /unknown override field bogus/],
  [{}, /the override is empty/],
  [{ state: {}, statePatch: [] }, /either override\.state or override\.statePatch/],
  [{ statePatch: { op: "add" } }, /statePatch must be an array of RFC 6902 operations/],
];

describe("the CLI, the URL and the fork form share one ForkOverride", () => {
  it.each(ACCEPTED.map((o) => [JSON.stringify(o), o] as const))("all accept %s, as the same override", (_label, o) => {
    expect(cli(o)).toEqual({ ok: true, override: o });
    expect(url(o)).toEqual({ ok: true, override: o });
    const draft = draftFor(o);
    if (draft) expect(draftToSpec(draft)).toEqual({ ok: true, spec: { seq: 17, override: o } });
  });

  it.each(REFUSED.map(([o, m]) => [JSON.stringify(o), o, m] as const))("all refuse %s, naming the field", (_label, o, message) => {
    const fromCli = cli(o);
    const fromUrl = url(o);
    expect(fromCli).toMatchObject({ ok: false, error: expect.stringMatching(message) });
    expect(fromUrl).toEqual(fromCli);
    const draft = draftFor(o);
    if (!draft) return;
    const fromForm = draftToSpec(draft);
    expect(fromForm.ok).toBe(false);
    // the JSON editor's words are the CLI's, without the "override." its flag adds
    if (draft.kind === "toolResult" || draft.kind === "modelOutput" || draft.kind === "state")
      expect(fromForm).toEqual({ ok: false, field: "json", error: (fromCli as { error: string }).error.replace(/^override\./, "") });
  });

  it("the form can express most of the cases above (the test is not vacuous)", () => {
    expect(ACCEPTED.filter((o) => draftFor(o) !== null).length).toBeGreaterThanOrEqual(10);
    expect(REFUSED.filter(([o]) => draftFor(o) !== null).length).toBeGreaterThanOrEqual(11);
  });
});
