/**
 * One small hand-written journal per rule and per "precise reading" of the format, each
 * test named after the behaviour it guards.
 */
import { describe, expect, it } from "vitest";
import { analyzeEvents, analyzeJournal, createAnalyzer } from "../../lib/analyze";
import { hashOf } from "../../lib/canonical";
import type { JournalEvent, RuleId } from "../../lib/journal/types";
import { EMPTY_STATE_HASH } from "../../lib/state";
import { chain, journal, result, start, writeCall, type Spec } from "./journal-builder";

const found = (events: JournalEvent[], rule?: RuleId) =>
  analyzeEvents(events)
    .filter((f) => rule === undefined || f.rule === rule)
    .map((f) => (rule === undefined ? `${f.rule}@${f.seq}` : f.seq));

const step = (name = "s"): Spec => ({ type: "step.start", data: { name } });
const note = (text = "n"): Spec => ({ type: "note", data: { text } });

describe("journal.gap", () => {
  it("reports the first event after missing seqs, once per gap", () => {
    const events = journal([start(), note(), { ...note(), seq: 4 }, note(), { ...note(), seq: 9 }]);
    expect(found(events, "journal.gap")).toEqual([4, 9]);
  });

  it("reports a gap before the first event when the run does not start at seq 0", () => {
    expect(found(journal([{ ...note(), seq: 3 }, note()]), "journal.gap")).toEqual([3]);
  });

  it("ignores a second event with an already seen seq for every rule", () => {
    const events = journal([start(), note(), result("c", "ok")]);
    const dup: JournalEvent = { ...events[1], type: "tool.result", data: { call: "c", status: "ok", partial: true, token: "abc" } };
    expect(analyzeEvents([...events, dup])).toEqual([]);
  });

  it("keeps the first of duplicate seqs in arrival order, not the later one", () => {
    const events = journal([start(), result("c", "ok", { partial: true })]);
    const later: JournalEvent = { ...events[1], data: { call: "c", status: "ok" } };
    expect(found([...events, later], "tool.partial")).toEqual([1]);
    expect(found([events[0], later, events[1]], "tool.partial")).toEqual([]);
  });
});

describe("journal.chain", () => {
  it("is silent on a chain that verifies, seq 0 chaining from the empty string", () => {
    expect(found(journal([start(), note(), note()], { chain: true }))).toEqual([]);
  });

  it("reports each event whose content changed after hashing, not its successor", () => {
    const events = journal([start(), note("a"), note("b"), note("c")], { chain: true });
    events[2].data = { text: "changed" };
    expect(found(events, "journal.chain")).toEqual([2]);
  });

  it("hashes unknown envelope fields too: one added after hashing breaks the chain", () => {
    const events = journal([start(), note(), note()], { chain: true });
    events[1].extra = "added later";
    expect(found(events, "journal.chain")).toEqual([1]);
  });

  it("reports a changed hash on seq 0, and seq 1, which chains from that recorded hash", () => {
    const events = journal([start(), note(), note()], { chain: true });
    events[0].hash = "sha256:" + "0".repeat(64);
    expect(found(events, "journal.chain")).toEqual([0, 1]);
  });

  it("cannot verify (and does not report) an event whose predecessor is absent or has no hash", () => {
    const events = journal([start(), note(), note(), note(), note()], { chain: true });
    events[3].data = { text: "changed" }; // would fail…
    const withGap = events.filter((e) => e.seq !== 2); // …but seq 2 is missing
    expect(found(withGap, "journal.chain")).toEqual([]);
    const unhashed = journal([start(), note(), note()], { chain: true });
    delete unhashed[1].hash;
    unhashed[2].data = { text: "changed" };
    expect(found(unhashed, "journal.chain")).toEqual([]);
  });

  it("treats an event without a hash as unverified, not failed", () => {
    const events = journal([start(), note(), note()], { chain: true });
    delete events[2].hash;
    expect(found(events, "journal.chain")).toEqual([]);
  });

  it("takes the caller's chain verdict instead of recomputing it", () => {
    const events = journal([start(), note()], { chain: true });
    const analyzer = createAnalyzer();
    analyzer.push(events[0], { chain: "ok" });
    analyzer.push(events[1], { chain: "fail" });
    expect(analyzer.findings().map((f) => `${f.rule}@${f.seq}`)).toEqual(["journal.chain@1"]);
  });
});

describe("context.missing", () => {
  it("reports a model.request with neither context nor messages, with or without run.start", () => {
    const req = (data: object): Spec => ({ type: "model.request", data: { call: "m", model: "x", ...data } });
    expect(found(journal([start(), req({}), req({ context: 0 }), req({ messages: [] })]), "context.missing")).toEqual([1]);
    expect(found(journal([req({})]), "context.missing")).toEqual([0]);
  });
});

describe("context.instruction-omitted", () => {
  const ctx = (instructions?: string[]): Spec => ({ type: "context", data: { messages: [], ...(instructions ? { instructions } : {}) } });

  it("reports a context lacking a required instruction id, or having no instructions at all", () => {
    const events = journal([start({ requiredInstructions: ["a", "b"] }), ctx(["a", "b", "c"]), ctx(["b"]), ctx()]);
    expect(found(events, "context.instruction-omitted")).toEqual([2, 3]);
  });

  it("is a policy rule: silent without run.start or without requiredInstructions", () => {
    expect(found(journal([ctx()]), "context.instruction-omitted")).toEqual([]);
    expect(found(journal([start({}), ctx()]), "context.instruction-omitted")).toEqual([]);
  });
});

describe("retrieval.stale", () => {
  const retrieval = (ts: string, ...indexedAt: Array<string | undefined>): Spec => ({
    type: "retrieval",
    ts,
    data: { query: "q", documents: indexedAt.map((at, i) => ({ id: `d${i}`, ...(at ? { indexedAt: at } : {}) })) },
  });

  it("is stale only when strictly older than ts minus retrievalMaxAgeSeconds", () => {
    const events = journal([
      start({ retrievalMaxAgeSeconds: 3600 }),
      retrieval("2026-11-07T12:00:00.000Z", "2026-11-07T11:00:00.000Z"), // exactly at the limit
      retrieval("2026-11-07T12:00:00.000Z", "2026-11-07T10:59:59.999Z"), // 1 ms older
      retrieval("2026-11-07T12:00:00.000Z", "2026-11-07T11:30:00.000Z"),
    ]);
    expect(found(events, "retrieval.stale")).toEqual([2]);
  });

  it("never calls a document without indexedAt stale", () => {
    const events = journal([start({ retrievalMaxAgeSeconds: 0 }), retrieval("2026-11-07T12:00:00.000Z", undefined, undefined)]);
    expect(found(events, "retrieval.stale")).toEqual([]);
  });

  it("compares offsets and sub-millisecond digits exactly", () => {
    const events = journal([
      start({ retrievalMaxAgeSeconds: 60 }),
      retrieval("2026-11-07T12:00:00.000000001Z", "2026-11-07T13:59:00+02:00"), // 1 ns older than the limit
      retrieval("2026-11-07T12:00:00.000000001Z", "2026-11-07T11:59:00.000000001Z"), // exactly at it
    ]);
    expect(found(events, "retrieval.stale")).toEqual([1]);
  });

  it("reports one finding per retrieval whatever the number of stale documents", () => {
    const events = journal([
      start({ retrievalMaxAgeSeconds: 1 }),
      retrieval("2026-11-07T12:00:00.000Z", "2020-01-01T00:00:00Z", "2021-01-01T00:00:00Z"),
    ]);
    expect(analyzeEvents(events).filter((f) => f.rule === "retrieval.stale")).toHaveLength(1);
  });

  it("is a policy rule: silent without run.start", () => {
    expect(found(journal([retrieval("2026-11-07T12:00:00.000Z", "2020-01-01T00:00:00Z")]), "retrieval.stale")).toEqual([]);
  });
});

describe("tool.partial", () => {
  it("reports a tool.result whose partial is true, not false or absent", () => {
    const events = journal([result("a", "ok", { partial: true }), result("b", "ok", { partial: false }), result("c", "ok")]);
    expect(found(events, "tool.partial")).toEqual([0]);
  });
});

describe("approval.missing", () => {
  const policy = start({ requireApproval: ["pay"] });
  const request = (approval: string, call: string): Spec => ({
    type: "approval.request",
    data: { approval, call, stateHash: EMPTY_STATE_HASH },
  });
  const decision = (approval: string, d: string): Spec => ({
    type: "approval.decision",
    data: { approval, decision: d, by: "r", stateHash: EMPTY_STATE_HASH },
  });
  const pay = (call: string) => writeCall(call, "pay", { amount: 1 }, `k-${call}`);

  it("reports a required tool called with no approval request at all", () => {
    expect(found(journal([policy, pay("c1")]), "approval.missing")).toEqual([1]);
  });

  it("does not count an approval decided after the call", () => {
    expect(found(journal([policy, request("a1", "c1"), pay("c1"), decision("a1", "approved")]), "approval.missing")).toEqual([2]);
  });

  it("takes the last decision before the call: denied then approved approves", () => {
    expect(
      found(journal([policy, request("a1", "c1"), decision("a1", "denied"), decision("a1", "approved"), pay("c1")]), "approval.missing"),
    ).toEqual([]);
  });

  it("takes the last decision before the call: approved then denied does not", () => {
    expect(
      found(journal([policy, request("a1", "c1"), decision("a1", "approved"), decision("a1", "denied"), pay("c1")]), "approval.missing"),
    ).toEqual([4]);
  });

  it("needs the request to name this call: an approval of another call does not count", () => {
    expect(found(journal([policy, request("a1", "other"), decision("a1", "approved"), pay("c1")]), "approval.missing")).toEqual([3]);
  });

  it("needs a request before the call: a request made after it does not count", () => {
    expect(found(journal([policy, decision("a1", "approved"), pay("c1"), request("a1", "c1")]), "approval.missing")).toEqual([2]);
  });

  it("leaves tools outside requireApproval alone, and is silent without run.start", () => {
    expect(found(journal([policy, writeCall("c1", "email", {}, "k")]), "approval.missing")).toEqual([]);
    expect(found(journal([pay("c1")]), "approval.missing")).toEqual([]);
  });
});

describe("approval.stale-state", () => {
  const decision = (stateHash: string): Spec => ({
    type: "approval.decision",
    data: { approval: "a", decision: "approved", by: "r", stateHash },
  });

  it("compares with the hash of {} before any state event", () => {
    expect(found(journal([decision(EMPTY_STATE_HASH), decision(hashOf({ x: 1 }))]), "approval.stale-state")).toEqual([1]);
  });

  it("compares with the recorded hash of the last state or checkpoint event, even when the rebuilt state differs", () => {
    const recorded = hashOf({ claimed: true }); // the state event's hash is wrong, but it is what was recorded
    const events = journal([
      { type: "state", data: { set: { a: 1 }, hash: recorded } },
      decision(recorded),
      decision(hashOf({ a: 1 })),
      { type: "checkpoint", data: { id: "cp", state: { b: 2 }, hash: hashOf({ b: 2 }), durable: true } },
      decision(hashOf({ b: 2 })),
      decision(recorded),
    ]);
    expect(found(events, "approval.stale-state")).toEqual([2, 5]);
  });

  it("is reported at the decision, not the request", () => {
    const events = journal([{ type: "approval.request", data: { approval: "a", call: "c", stateHash: "sha256:" + "1".repeat(64) } }]);
    expect(found(events, "approval.stale-state")).toEqual([]);
  });
});

describe("loop.past-stop", () => {
  it("reports only the first step.start, model.request or tool.call after a stop", () => {
    const events = journal([
      { type: "decision", data: { action: "stop" } },
      note(),
      { type: "step.end", data: { status: "ok" } },
      { type: "model.request", data: { call: "m", model: "x", messages: [] } },
      step(),
    ]);
    expect(found(events, "loop.past-stop")).toEqual([3]);
  });

  it("treats stop.met = true as a stop even when the action says continue", () => {
    const events = journal([
      { type: "decision", data: { action: "continue", stop: { condition: "x", met: true } } },
      writeCall("c", "t", {}, "k"),
    ]);
    expect(found(events, "loop.past-stop")).toEqual([1]);
  });

  it("does not treat continue with met = false as a stop", () => {
    expect(found(journal([{ type: "decision", data: { action: "continue", stop: { met: false } } }, step()]), "loop.past-stop")).toEqual(
      [],
    );
  });
});

describe("loop.max-steps", () => {
  it("reports the (maxSteps + 1)-th step.start and no later one", () => {
    expect(found(journal([start({ maxSteps: 2 }), step(), step(), step(), step()]), "loop.max-steps")).toEqual([3]);
  });

  it("with maxSteps 0 reports the first step.start", () => {
    expect(found(journal([start({ maxSteps: 0 }), step()]), "loop.max-steps")).toEqual([1]);
  });

  it("is a policy rule: silent without run.start", () => {
    expect(found(journal([step(), step()]), "loop.max-steps")).toEqual([]);
  });
});

describe("effect.no-idempotency", () => {
  it("reports a write call whose idempotencyKey is missing or empty, never a read call", () => {
    const events = journal([
      writeCall("a", "t", {}),
      writeCall("b", "t", {}, ""),
      writeCall("c", "t", {}, "k"),
      { type: "tool.call", data: { call: "d", tool: "t", args: {}, effect: "read" } },
    ]);
    expect(found(events, "effect.no-idempotency")).toEqual([0, 1]);
  });
});

describe("effect.retry-after-unknown", () => {
  const args = { order: "A-1", amount: 5 };

  it("reports a retry, with a different key, of a write whose outcome was timeout", () => {
    const events = journal([
      writeCall("c1", "pay", args, "k1"),
      result("c1", "timeout"),
      writeCall("c2", "pay", { amount: 5, order: "A-1" }, "k2"),
    ]);
    expect(found(events, "effect.retry-after-unknown")).toEqual([2]);
  });

  it("reports a retry with no key after an unknown outcome", () => {
    const events = journal([writeCall("c1", "pay", args, "k1"), result("c1", "unknown"), writeCall("c2", "pay", args)]);
    expect(found(events, "effect.retry-after-unknown")).toEqual([2]);
  });

  it("accepts a retry that reuses the same idempotency key", () => {
    expect(
      found(
        journal([writeCall("c1", "pay", args, "k1"), result("c1", "timeout"), writeCall("c2", "pay", args, "k1")]),
        "effect.retry-after-unknown",
      ),
    ).toEqual([]);
  });

  it("is cleared by a reconcile between the result and the retry, whatever its outcome", () => {
    const events = journal([
      writeCall("c1", "pay", args, "k1"),
      result("c1", "timeout"),
      { type: "reconcile", data: { call: "c1", outcome: "failed", by: "ops" } },
      writeCall("c2", "pay", args, "k2"),
    ]);
    expect(found(events, "effect.retry-after-unknown")).toEqual([]);
  });

  it("is not cleared by a reconcile that comes before the result", () => {
    const events = journal([
      writeCall("c1", "pay", args, "k1"),
      { type: "reconcile", data: { call: "c1", outcome: "succeeded", by: "ops" } },
      result("c1", "unknown"),
      writeCall("c2", "pay", args, "k2"),
    ]);
    expect(found(events, "effect.retry-after-unknown")).toEqual([3]);
  });

  it("counts a write whose result never came before the retry as open (the call ledger's reading)", () => {
    // no tool.result before the retry and no reconcile between: nobody knew whether c1 acted
    expect(
      found(
        journal([writeCall("c1", "pay", args, "k1"), writeCall("c2", "pay", args, "k2"), result("c1", "timeout")]),
        "effect.retry-after-unknown",
      ),
    ).toEqual([1]);
    // a reconcile of the call with no result clears it
    expect(
      found(
        journal([
          writeCall("c1", "pay", args, "k1"),
          { type: "reconcile", data: { call: "c1", outcome: "failed", by: "ops" } },
          writeCall("c2", "pay", args, "k2"),
        ]),
        "effect.retry-after-unknown",
      ),
    ).toEqual([]);
    // the same key is the same operation: not a retry after an unknown outcome
    expect(found(journal([writeCall("c1", "pay", args, "k1"), writeCall("c2", "pay", args, "k1")]), "effect.retry-after-unknown")).toEqual(
      [],
    );
  });

  it("needs an open earlier call, equal args, the same tool, and write effects", () => {
    const read = (call: string): Spec => ({ type: "tool.call", data: { call, tool: "pay", args, effect: "read" } });
    expect(
      found(
        journal([writeCall("c1", "pay", args, "k1"), result("c1", "timeout"), writeCall("c2", "pay", { ...args, amount: 6 }, "k2")]),
        "effect.retry-after-unknown",
      ),
    ).toEqual([]);
    expect(
      found(
        journal([writeCall("c1", "pay", args, "k1"), result("c1", "timeout"), writeCall("c2", "refund", args, "k2")]),
        "effect.retry-after-unknown",
      ),
    ).toEqual([]);
    expect(found(journal([read("c1"), result("c1", "timeout"), read("c2")]), "effect.retry-after-unknown")).toEqual([]);
    expect(
      found(
        journal([writeCall("c1", "pay", args, "k1"), result("c1", "error"), writeCall("c2", "pay", args, "k2")]),
        "effect.retry-after-unknown",
      ),
    ).toEqual([]);
  });
});

describe("effect.duplicate", () => {
  const args = { a: 1, b: [1, 2] };

  it("reports the later of two ok write calls with canonically equal args", () => {
    const events = journal([
      writeCall("c1", "t", args, "k1"),
      result("c1", "ok", { externalId: "x1" }),
      writeCall("c2", "t", { b: [1, 2], a: 1.0 }, "k2"),
      result("c2", "ok", { externalId: "x2" }),
    ]);
    expect(found(events, "effect.duplicate")).toEqual([2]);
  });

  it("does not report calls sharing a non-empty key and the same externalId (one operation)", () => {
    const events = journal([
      writeCall("c1", "t", args, "k"),
      result("c1", "ok", { externalId: "x" }),
      writeCall("c2", "t", args, "k"),
      result("c2", "ok", { externalId: "x" }),
    ]);
    expect(found(events, "effect.duplicate")).toEqual([]);
  });

  it("reports a shared key with different or missing externalIds, and a shared externalId without keys", () => {
    const base = (k: string | undefined, x1: string | undefined, x2: string | undefined) =>
      journal([
        writeCall("c1", "t", args, k),
        result("c1", "ok", x1 ? { externalId: x1 } : {}),
        writeCall("c2", "t", args, k),
        result("c2", "ok", x2 ? { externalId: x2 } : {}),
      ]);
    expect(found(base("k", "x1", "x2"), "effect.duplicate")).toEqual([2]);
    expect(found(base("k", undefined, undefined), "effect.duplicate")).toEqual([2]);
    expect(found(base(undefined, "x", "x"), "effect.duplicate")).toEqual([2]);
    expect(found(base("", "x", "x"), "effect.duplicate")).toEqual([2]);
  });

  it("needs both to have got ok", () => {
    const events = journal([writeCall("c1", "t", args, "k1"), result("c1", "error"), writeCall("c2", "t", args, "k2"), result("c2", "ok")]);
    expect(found(events, "effect.duplicate")).toEqual([]);
  });

  it("reports each later duplicate once, also when the earlier result arrives after the later call", () => {
    const events = journal([
      writeCall("c1", "t", args, "k1"),
      writeCall("c2", "t", args, "k2"),
      result("c2", "ok"),
      result("c1", "ok"),
      writeCall("c3", "t", args, "k3"),
      result("c3", "ok"),
    ]);
    expect(found(events, "effect.duplicate")).toEqual([1, 4]);
  });
});

describe("state.hash-mismatch", () => {
  const state = (data: object): Spec => ({ type: "state", data: data as never });
  const checkpoint = (s: object, hash = hashOf(s)): Spec => ({
    type: "checkpoint",
    data: { id: "cp", state: s as never, hash, durable: true },
  });

  it("is silent when every recorded hash matches the rebuilt state", () => {
    const events = journal([
      state({ set: { a: 1 }, hash: hashOf({ a: 1 }) }),
      state({ patch: [{ op: "add", path: "/b", value: 2 }], hash: hashOf({ a: 1, b: 2 }) }),
      checkpoint({ a: 1, b: 2 }),
    ]);
    expect(found(events)).toEqual([]);
  });

  it("reports a patch that cannot be applied strictly (path missing) at that event, leaving the state as it was", () => {
    const events = journal([
      state({ set: { a: 1 }, hash: hashOf({ a: 1 }) }),
      state({ patch: [{ op: "replace", path: "/missing", value: 1 }], hash: hashOf({ a: 1 }) }),
      checkpoint({ a: 1 }),
      state({ patch: [{ op: "remove", path: "/nope" }], hash: hashOf({ a: 1 }) }),
    ]);
    expect(found(events, "state.hash-mismatch")).toEqual([1, 3]);
  });

  it("reports nothing more after a mismatch until the next checkpoint, which is not checked and resets the state", () => {
    const events = journal([
      state({ set: { a: 1 }, hash: hashOf({ a: 2 }) }), // mismatch
      state({ set: { a: 3 }, hash: hashOf({ a: 4 }) }), // would mismatch: pending, not reported
      checkpoint({ c: 1 }, hashOf({ other: true })), // not checked, resets to {c: 1}
      state({ patch: [{ op: "add", path: "/d", value: 1 }], hash: hashOf({ c: 1, d: 1 }) }), // matches after the reset
      state({ patch: [{ op: "add", path: "/e", value: 1 }], hash: hashOf({ wrong: 1 }) }), // reported again
    ]);
    expect(found(events, "state.hash-mismatch")).toEqual([0, 4]);
  });

  it("checks a checkpoint with no mismatch pending against the state rebuilt before it", () => {
    const events = journal([
      state({ set: { a: 1 }, hash: hashOf({ a: 1 }) }),
      checkpoint({ a: 1, b: 2 }, hashOf({ a: 1, b: 2 })),
      checkpoint({ z: 1 }, hashOf({ a: 1, b: 2 })),
    ]);
    expect(found(events, "state.hash-mismatch")).toEqual([1]);
  });

  it("replaces the state with state.set and starts from {}", () => {
    const events = journal([
      state({ patch: [{ op: "add", path: "/x", value: 1 }], hash: hashOf({ x: 1 }) }),
      state({ set: [1, 2], hash: hashOf([1, 2]) }),
    ]);
    expect(found(events)).toEqual([]);
  });
});

describe("secret.exposed", () => {
  it("reports each event holding a secret, naming kind and path but never the value", () => {
    const token = "ghp_" + "a1B2".repeat(9);
    const events = journal([
      { type: "note", data: { text: `see ${token}` } },
      note("fine"),
      { type: "tool.call", data: { call: "c", tool: "t", args: { headers: { AUTHORIZATION: "x" } }, effect: "read" } },
    ]);
    const findings = analyzeEvents(events).filter((f) => f.rule === "secret.exposed");
    expect(findings.map((f) => f.seq)).toEqual([0, 2]);
    expect(findings[0].message).toBe("a GitHub token in data.text");
    expect(findings[1].message).toContain("data.args.headers.AUTHORIZATION");
    expect(findings.map((f) => f.message).join()).not.toContain(token);
  });

  it("searches envelope and unknown fields, but not keys, and ignores an empty value under a secret key", () => {
    const events = journal([
      { ...note(), extra: { password: "hunter2" } },
      { type: "note", data: { text: "t", "sk-abcdefghijklmnopqrstuvwxyz": 1 } },
      { type: "note", data: { text: "t", token: "" } },
      { ...note(), step: "Bearer abcdefghijklmnopqrstuvwxyz0123" },
    ]);
    expect(found(events, "secret.exposed")).toEqual([0, 3]);
  });

  it("does not match a pattern preceded by a letter or digit", () => {
    expect(found(journal([note("xAKIAABCDEFGHIJKLMNOP"), note("AKIAABCDEFGHIJKLMNOP")]), "secret.exposed")).toEqual([1]);
  });

  it("trusts the secrets the caller already found (ingest's redaction scan)", () => {
    const [e] = journal([note("AKIAABCDEFGHIJKLMNOP")]);
    const analyzer = createAnalyzer();
    analyzer.push(e, { secrets: [] });
    expect(analyzer.findings()).toEqual([]);
  });
});

describe("the fold", () => {
  it("applies no policy rule to a run without run.start, but every other rule", () => {
    const events = journal([
      step(),
      step(),
      { type: "context", data: { messages: [] } },
      writeCall("c", "pay", {}),
      { type: "model.request", data: { call: "m", model: "x" } },
    ]);
    expect(found(events)).toEqual(["effect.no-idempotency@3", "context.missing@4"]);
  });

  it("sorts findings by seq then rule id", () => {
    const events = journal([start({ requireApproval: ["pay"] }), writeCall("c", "pay", { token: "t" })]);
    expect(analyzeEvents(events).map((f) => f.rule)).toEqual(["approval.missing", "effect.no-idempotency", "secret.exposed"]);
  });

  it("gives the same findings whatever order the events arrive in", () => {
    const events = chain(journal([start({ maxSteps: 1 }), step(), note(), step(), writeCall("c", "t", {})]));
    const reversed = [...events].reverse();
    expect(analyzeEvents(reversed)).toEqual(analyzeEvents(events));
  });

  it("analyses each run of a file on its own, with its own policy", () => {
    const a = journal([start({ maxSteps: 0 }), step()], { run: "a" });
    const b = journal([step(), step()], { run: "b" });
    const out = analyzeJournal([a[0], b[0], a[1], b[1]]);
    expect(out.map((f) => `${f.run}:${f.rule}@${f.seq}`)).toEqual(["a:loop.max-steps@1"]);
  });

  it("ignores events of another run pushed into the same analyzer", () => {
    const analyzer = createAnalyzer();
    for (const e of journal([note()], { run: "a" })) analyzer.push(e);
    for (const e of journal([{ ...note(), seq: 5 }], { run: "b" })) analyzer.push(e);
    expect(analyzer.findings()).toEqual([]);
  });
});
