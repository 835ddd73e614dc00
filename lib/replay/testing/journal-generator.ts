/**
 * Seeded generator of random-but-valid journals, for property tests and the benchmark.
 *
 * It simulates an agent loop (steps with retrieval, context, model calls, tool calls,
 * approvals, state changes, checkpoints and decisions) and keeps a true run state, so a
 * journal without faults is clean: every hash verifies and every rule stays silent. With
 * `faults` > 0 it injects, at that rate, the mistakes the analysis rules exist to catch,
 * including the edge cases of the format's "precise readings" (a document exactly at the
 * age limit, a decision after the call, a reconcile between result and retry, …).
 *
 * Pure TypeScript with a small seeded PRNG: the same seed gives the same journal anywhere.
 */
import { canonicalJson, hashOf, sha256Hex } from "../../canonical";
import type { JournalEvent, JsonObject, JsonValue, RunId, Seq } from "../../journal/types";
import { applyPatch, EMPTY_STATE, type RunState } from "../../state";
import { orderEvents } from "../../semantics";
import type { ForkOverride, ForkSpec } from "../types";

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [lo, hi]. */
  int(lo: number, hi: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
}

/** mulberry32: tiny, fast, and good enough for test data. */
export function createRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)],
  };
}

interface GeneratorOptions {
  seed: number;
  run?: string;
  /** Loop iterations; default 1–7. Ignored when `events` is set. */
  steps?: number;
  /** Keep adding steps until at least this many events exist (for the benchmark). */
  events?: number;
  /** Rate of injected faults, 0 (a clean run) to 1. Default 0.12. */
  faults?: number;
  /** Hash chain on every event (default true). */
  chain?: boolean;
  /**
   * Also make the approval and state cases no analysis rule of the first fifteen covers
   * (drawn from a second random stream, so a seed's journal without them is unchanged):
   * requests for tools outside requireApproval left undecided, denied or approved, a call
   * id used by two tool.calls, and `state` events that record no hash.
   */
  edges?: boolean;
  /** Epoch ms of the first event. */
  startMs?: number;
}

const TOOLS = [
  { name: "lookup_order", effect: "read" as const },
  { name: "search_docs", effect: "read" as const },
  { name: "fetch_page", effect: "read" as const },
  { name: "issue_refund", effect: "write" as const },
  { name: "send_email", effect: "write" as const },
  { name: "charge_card", effect: "write" as const },
  { name: "edit_file", effect: "write" as const },
];
const TARGETS = [
  "https://payments.example/api/refunds",
  "https://mail.example/v1/send",
  "wss://gds.example/booking",
  "postgres://db.internal/app",
  "workspace",
];
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

function randomText(rng: Rng, n: number, alphabet = ALNUM): string {
  let s = "";
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(rng.next() * alphabet.length)];
  return s;
}

/** A value that matches one of the format's secret patterns. */
function fakeSecret(rng: Rng): { key: string; value: string } {
  switch (rng.int(0, 6)) {
    case 0:
      return { key: "note", value: `key AKIA${randomText(rng, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")} leaked` };
    case 1:
      return { key: "token", value: randomText(rng, 12) };
    case 2:
      return { key: "header", value: `Bearer ${randomText(rng, 32)}` };
    case 3:
      return { key: "url", value: `https://svc:${randomText(rng, 10)}@db.internal:5432/app` };
    case 4:
      return { key: "note", value: `ghp_${randomText(rng, 36)}` };
    case 5:
      return { key: "password", value: randomText(rng, 8) };
    default:
      return { key: "note", value: `sk-${randomText(rng, 24)}` };
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/** One generated run, in seq order (gaps and duplicates only when faults are on). */
export function generateRun(options: GeneratorOptions): JournalEvent[] {
  const rng = createRng(options.seed);
  const fault = (scale = 1) => rng.chance(Math.min(1, (options.faults ?? 0.12) * scale));
  const run = (options.run ?? `gen-${options.seed >>> 0}`) as RunId;
  let ms = options.startMs ?? Date.UTC(2026, 10, 7, 11, 0, 0, 0);
  const events: JournalEvent[] = [];
  let state: RunState = EMPTY_STATE;
  let recordedHash = hashOf(state);
  let callCounter = 0;
  const emit = (
    type: JournalEvent["type"],
    data: JsonObject,
    extra: Partial<JournalEvent> = {},
    advanceMs = rng.int(1, 2500),
  ): JournalEvent => {
    ms += advanceMs;
    const e: JournalEvent = { run, seq: events.length as Seq, ts: iso(ms), type, ...extra, data };
    events.push(e);
    return e;
  };
  // The edge cases' own stream: drawing from it never shifts the main one.
  const edge = options.edges ? createRng(options.seed ^ 0x2f6a3b1d) : null;
  const hashless = () => edge !== null && edge.chance(0.25);
  const setState = (next: RunState, step?: string) => {
    state = next;
    recordedHash = hashOf(state);
    emit("state", hashless() ? { set: state } : { set: state, hash: recordedHash }, step ? { step } : {});
  };
  const patchState = (patch: JsonValue[], step?: string) => {
    const r = applyPatch(state, patch);
    if (r.ok) state = r.state;
    // A recorder that mis-hashes: the journal says one thing, the state is another.
    recordedHash = fault(0.3) ? hashOf({ tampered: rng.int(0, 1e6) }) : hashOf(state);
    if (hashless()) {
      // No hash recorded: the hash in force is the rebuilt state's.
      recordedHash = hashOf(state);
      emit("state", { patch }, step ? { step } : {});
    } else emit("state", { patch, hash: recordedHash }, step ? { step } : {});
  };

  const requireApproval = ["issue_refund", "charge_card"].filter(() => rng.chance(0.8));
  const requiredInstructions = rng.chance(0.8) ? ["policy", "tone"].slice(0, rng.int(1, 2)) : [];
  const maxAge = rng.pick([3600, 86_400, 2_592_000]);
  const steps = options.events !== undefined ? Number.POSITIVE_INFINITY : (options.steps ?? rng.int(1, 7));
  const maxSteps = fault(0.5) ? rng.int(0, 4) : rng.int(8, 12);
  const withPolicyFields: JsonObject = {};
  if (rng.chance(0.9)) withPolicyFields.requireApproval = requireApproval;
  if (rng.chance(0.9) && options.events === undefined) withPolicyFields.maxSteps = maxSteps;
  if (rng.chance(0.9)) withPolicyFields.retrievalMaxAgeSeconds = maxAge;
  if (rng.chance(0.9)) withPolicyFields.requiredInstructions = requiredInstructions;

  if (!fault(0.2)) {
    emit("run.start", {
      workflow: { name: "generated", version: "1.0.0" },
      agent: { name: "gen-agent", version: "0.1.0" },
      versions: {
        prompts: { system: "v1" },
        policies: { default: "v1" },
        tools: { lookup_order: "1.0.0" },
        models: { planner: "model-x" },
      },
      environment: rng.pick(["production", "staging"]),
      initiator: { kind: "user", id: `u_${rng.int(1, 999)}` },
      input: { message: "generated run" },
      policy: withPolicyFields,
      tags: ["generated"],
    });
  }
  emit("input", { source: rng.pick(["user", "system", "event"] as const), content: "please help" });
  if (rng.chance(0.5)) setState({ status: "start", items: {}, n: 0 });
  else
    patchState([
      { op: "add", path: "/status", value: "start" },
      { op: "add", path: "/items", value: {} },
      { op: "add", path: "/n", value: 0 },
    ]);

  const writes: Array<{ tool: string; args: JsonObject; key: string | undefined; call: string; status: string }> = [];
  let stopped = false;
  for (let s = 1; s <= steps; s++) {
    if (options.events !== undefined && events.length >= options.events) break;
    const step = `s${s}`;
    const inStep = { step };
    emit("step.start", { name: `step-${s}`, kind: "loop" }, inStep);
    if (rng.chance(0.4)) {
      const now = ms + rng.int(1, 2500);
      const docs: JsonValue[] = [];
      for (let d = rng.int(1, 3); d > 0; d--) {
        const kind = rng.int(0, 9);
        const doc: JsonObject = { id: `doc-${rng.int(1, 99)}`, version: String(rng.int(1, 9)), content: "some text" };
        // Exactly at the limit is not stale; 1 ms older is. A missing indexedAt never is.
        if (kind === 0 && fault(3)) doc.indexedAt = iso(now - maxAge * 1000 - 1);
        else if (kind === 1) doc.indexedAt = iso(now - maxAge * 1000);
        else if (kind === 2) delete doc.content;
        else if (kind !== 3) doc.indexedAt = iso(now - rng.int(0, maxAge * 500));
        docs.push(doc);
      }
      ms = now;
      emit("retrieval", { query: "what applies here", documents: docs }, inStep, 0);
    }
    let contextSeq: number | null = null;
    if (rng.chance(0.8)) {
      const instructions = fault(1.5) ? requiredInstructions.slice(1) : [...requiredInstructions, "extra"];
      contextSeq = emit(
        "context",
        {
          messages: [
            { role: "system", content: "be careful", source: "prompt:system" },
            { role: "user", content: "help" },
          ],
          instructions,
          template: { id: "main", version: "v1" },
          tokens: rng.int(10, 900),
        },
        inStep,
      ).seq;
    }
    const mcall = `m_${++callCounter}`;
    const request: JsonObject = { call: mcall, model: "planner", params: { temperature: 0 } };
    if (contextSeq !== null && rng.chance(0.9)) request.context = contextSeq;
    else if (!fault(2)) request.messages = [{ role: "user", content: "help" }];
    const req = emit("model.request", request, inStep);
    const plannedCalls = rng.int(0, 3);
    const toolCalls: JsonValue[] = [];
    const planned: Array<{ tool: (typeof TOOLS)[number]; args: JsonObject; reuse: (typeof writes)[number] | null }> = [];
    for (let c = 0; c < plannedCalls; c++) {
      const tool = rng.pick(TOOLS);
      const reuseCandidates = writes.filter((w) => w.tool === tool.name);
      const uncertain = reuseCandidates.filter((w) => w.status === "timeout" || w.status === "unknown");
      const reuse =
        tool.effect === "write" && reuseCandidates.length > 0 && fault(3)
          ? rng.pick(uncertain.length > 0 && rng.chance(0.7) ? uncertain : reuseCandidates)
          : null;
      const args: JsonObject = reuse
        ? (JSON.parse(JSON.stringify(reuse.args)) as JsonObject)
        : { id: `x-${rng.int(1, 50)}`, amount: rng.int(1, 9999), request: callCounter * 10 + c };
      if (rng.chance(0.3)) args.target = rng.pick(TARGETS);
      planned.push({ tool, args, reuse });
      toolCalls.push({ id: `tc${callCounter}-${c}`, name: tool.name, args });
    }
    const response: JsonObject = {
      call: mcall,
      output: toolCalls.length > 0 ? { toolCalls } : { text: "done for now" },
      finishReason: toolCalls.length > 0 ? "tool_calls" : "stop",
      usage: { inputTokens: rng.int(100, 5000), outputTokens: rng.int(10, 900) },
      latencyMs: rng.int(50, 4000),
    };
    if (fault(0.5)) {
      const secret = fakeSecret(rng);
      response[secret.key === "password" || secret.key === "token" ? secret.key : "debug"] = secret.value;
    }
    emit("model.response", response, { step, parent: req.seq });

    for (const { tool, args, reuse } of planned) {
      const call = `t_${++callCounter}`;
      let pendingDecision: (() => void) | null = null;
      if (requireApproval.includes(tool.name) && !fault(1.5)) {
        const approval = `ap_${callCounter}`;
        const stateHash = fault(0.7) ? hashOf({ other: rng.int(0, 1e6) }) : recordedHash;
        emit("approval.request", { approval, call, policy: { id: "default", version: "v1" }, stateHash }, inStep);
        const decide = (decision: "approved" | "denied") =>
          emit("approval.decision", { approval, decision, by: "reviewer@example.com", stateHash }, inStep);
        const shape = rng.int(0, 9);
        if (shape === 0 && fault(4)) decide("denied");
        else if (shape === 1) {
          decide("denied");
          decide("approved");
        } else if (shape === 2 && fault(4)) {
          decide("approved");
          decide("denied");
        } else if (shape === 3 && fault(4)) pendingDecision = () => decide("approved");
        else decide("approved");
      }
      const data: JsonObject = { call, tool: tool.name, version: "1.0.0", args, effect: tool.effect };
      let key: string | undefined;
      if (tool.effect === "write") {
        if (reuse && rng.chance(0.5)) key = reuse.key;
        else if (fault(1)) key = rng.chance(0.5) ? "" : undefined;
        else key = `key-${call}`;
        if (key !== undefined) data.idempotencyKey = key;
        data.target = rng.pick(TARGETS);
      }
      if (fault(0.3)) {
        const secret = fakeSecret(rng);
        data.args = { ...args, headers: { [secret.key === "header" ? "Authorization" : secret.key]: secret.value } };
      }
      if (edge !== null && pendingDecision === null && !requireApproval.includes(tool.name) && edge.chance(0.3)) {
        // A request for a tool the policy does not gate: undecided, denied or approved.
        const approval = `ape_${callCounter}`;
        emit("approval.request", { approval, call, policy: { id: "default", version: "v1" }, stateHash: recordedHash }, inStep);
        const shape = edge.int(0, 2);
        if (shape > 0)
          emit(
            "approval.decision",
            { approval, decision: shape === 1 ? "denied" : "approved", by: "reviewer@example.com", stateHash: recordedHash },
            inStep,
          );
      }
      emit("tool.call", data, inStep);
      if (edge !== null && edge.chance(0.1)) {
        // The same call id again: a second call on one approval (or none).
        emit("tool.result", { call, status: "ok", latencyMs: edge.int(5, 4000) }, inStep);
        emit("tool.call", { ...data, effect: "read" }, inStep);
      }
      pendingDecision?.();
      const status =
        tool.effect === "write" && fault(2) ? rng.pick(["timeout", "unknown", "error"] as const) : rng.chance(0.05) ? "error" : "ok";
      const result: JsonObject = { call, status, latencyMs: rng.int(5, 4000) };
      if (status === "ok") result.result = { ok: true, value: rng.int(0, 100) };
      if (tool.effect === "write" && status === "ok") {
        result.externalId = reuse && reuse.key === key && rng.chance(0.5) ? `ext-${reuse.call}` : `ext-${call}`;
      }
      if (fault(0.5)) result.partial = true;
      emit("tool.result", result, { step, parent: events[events.length - 1].seq });
      if ((status === "timeout" || status === "unknown") && rng.chance(0.5)) {
        emit(
          "reconcile",
          { call, outcome: rng.pick(["succeeded", "failed"] as const), evidence: "checked upstream", by: "ops@example.com" },
          inStep,
        );
      }
      if (tool.effect === "write") writes.push({ tool: tool.name, args, key, call, status });
      if (writes.length > 40) writes.shift();
      if (rng.chance(0.7)) {
        const slot = `/items/k${rng.int(0, 11)}`;
        const has =
          typeof state === "object" &&
          state !== null &&
          !Array.isArray(state) &&
          typeof state.items === "object" &&
          state.items !== null &&
          !Array.isArray(state.items) &&
          slot.slice(7) in state.items;
        const ops: JsonValue[] = [
          { op: has ? "replace" : "add", path: slot, value: { tool: tool.name, status, at: s } },
          { op: "replace", path: "/n", value: rng.int(0, 1e6) },
        ];
        if (fault(0.4)) ops.push({ op: "replace", path: "/missing/path", value: 1 });
        patchState(ops, step);
      }
    }
    if (rng.chance(0.25)) {
      const snapshot = state;
      const hash = fault(0.4) ? hashOf({ nope: 1 }) : hashOf(snapshot);
      emit("checkpoint", { id: `cp_${s}`, state: snapshot, hash, durable: rng.chance(0.5) }, inStep);
      recordedHash = hash;
    }
    if (rng.chance(0.15)) emit("error", { message: "transient failure", code: rng.pick(["E_TIMEOUT", 429]), retryable: true }, inStep);
    if (rng.chance(0.1)) emit("note", { text: "operator note" }, inStep);
    if (rng.chance(0.08)) emit("x-custom.metric", { name: "latency", value: rng.int(1, 100) }, inStep);
    const last = options.events === undefined && s === steps;
    const stopNow = last || fault(0.5);
    const status = typeof state === "object" && state !== null && !Array.isArray(state) ? state.status : undefined;
    const metByState = status === "done";
    if (stopNow && options.events === undefined) {
      const done = [{ op: "replace", path: "/status", value: "done" }];
      patchState(done, step);
      emit("decision", { action: "stop", reason: "finished", stop: { condition: "status == done", met: true } }, inStep);
      stopped = true;
    } else {
      emit("decision", { action: "continue", reason: "more to do", stop: { condition: "status == done", met: metByState } }, inStep);
    }
    emit("step.end", { status: rng.chance(0.9) ? "ok" : "error" }, inStep);
    if (stopped && !fault(1)) break;
  }
  emit("run.end", { status: "succeeded", output: { ok: true } });

  if (options.chain ?? true) {
    let prev = "";
    for (const e of events) {
      const rest: Record<string, unknown> = { ...e };
      delete rest.hash;
      e.hash = "sha256:" + sha256Hex(prev + "\n" + canonicalJson(rest));
      prev = e.hash;
    }
    // Content changed after hashing: the chain rule's reason to exist.
    for (const e of events) if (e.seq > 0 && fault(0.05)) e.data = { ...e.data, tampered: true };
  }
  let out = events;
  if (fault(0.5)) {
    const drop = rng.int(0, Math.max(0, events.length - 1));
    const len = rng.int(1, 3);
    out = events.filter((e) => e.seq < drop || e.seq >= drop + len);
  }
  if (fault(0.5) && out.length > 2) {
    const i = rng.int(0, out.length - 1);
    const dup: JournalEvent = { ...out[i], data: { ...out[i].data, duplicate: true } };
    out = [...out.slice(0, i + 1), dup, ...out.slice(i + 1)];
  }
  return out;
}

/** Several runs in one journal, their lines interleaved as concurrent recorders would write them. */
export function generateJournal(seed: number, runs: number, options: Omit<GeneratorOptions, "seed" | "run"> = {}): JournalEvent[] {
  const rng = createRng(seed ^ 0x5bd1e995);
  const queues = Array.from({ length: runs }, (_, i) => generateRun({ ...options, seed: seed * 31 + i, run: `gen-${seed}-${i}` }));
  const out: JournalEvent[] = [];
  while (queues.some((q) => q.length > 0)) {
    const q = rng.pick(queues.filter((x) => x.length > 0));
    out.push(q.shift() as JournalEvent);
  }
  return out;
}

/** NDJSON text of events (bigint written exactly). */
export function toJsonl(events: readonly JournalEvent[]): string {
  return events.map((e) => canonicalJson(e)).join("\n") + "\n";
}

/** A fork the plan accepts, chosen from what the run holds. */
export function randomFork(events: JournalEvent[], seed: number): ForkSpec {
  const rng = createRng(seed);
  const ordered = orderEvents(events);
  for (let attempt = 0; attempt < 20; attempt++) {
    const e = rng.pick(ordered);
    const kind = rng.int(0, 5);
    let override: ForkOverride | null = null;
    if (kind === 0)
      override = { policy: { maxSteps: rng.int(0, 4), ...(rng.chance(0.5) ? { requireApproval: ["send_email", "issue_refund"] } : {}) } };
    else if (
      kind === 1 &&
      (e.type === "tool.result" || e.type === "tool.call") &&
      ordered.some(
        (x) => (x.type === "tool.result" && x.seq > e.seq && x.data.call === e.data.call) || (x === e && e.type === "tool.result"),
      )
    ) {
      override = { toolResult: { status: rng.pick(["ok", "error", "timeout", "unknown"]) } };
    } else if (kind === 2 && e.type === "approval.decision") override = { approval: rng.pick(["approved", "denied"] as const) };
    else if (kind === 3 && e.type === "model.response") override = { modelOutput: { text: "something else" } };
    else if (kind === 4) override = { state: { status: rng.pick(["start", "done"]), items: {}, n: 1 } };
    else if (kind === 5) override = { statePatch: [{ op: "add", path: "/forked", value: true }] };
    if (override) return { seq: e.seq, override };
  }
  return { seq: ordered[0].seq, override: { policy: { maxSteps: 1 } } };
}
