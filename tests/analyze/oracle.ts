/**
 * A second, deliberately naive reading of the analysis rules: each rule is written as the
 * format's table says it, scanning the whole run (quadratic, no incremental state). The
 * property tests compare the real fold against it on generated journals, so a shortcut in
 * the fold that changes a result shows up as a disagreement with a seed to replay.
 */
import { canonicalJson, hashOf, sha256Hex } from "../../lib/canonical";
import type { JournalEvent, JsonObject, JsonValue, RuleId } from "../../lib/journal/types";
import { hasSecret } from "../../lib/redact/patterns";
import { EMPTY_STATE, nextState, type RunState } from "../../lib/state";

export interface OracleFinding {
  rule: RuleId;
  seq: number;
}

const s = (v: JsonValue | undefined) => (typeof v === "string" ? v : undefined);
const o = (v: JsonValue | undefined): JsonObject | undefined => (v !== null && typeof v === "object" && !Array.isArray(v) ? v : undefined);

function nanos(ts: string): bigint {
  const m = /^(.*?)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(ts);
  if (!m) throw new Error(`bad ts ${ts}`);
  const whole = Date.parse(m[1] + m[3]);
  return BigInt(whole) * 1_000_000n + BigInt((m[2] ?? "").padEnd(9, "0") || "0");
}

export function oracle(input: JournalEvent[]): OracleFinding[] {
  const sorted = [...input].sort((a, b) => a.seq - b.seq);
  const ev: JournalEvent[] = sorted.filter((e, i) => i === 0 || sorted[i - 1].seq !== e.seq);
  const out: OracleFinding[] = [];
  const add = (rule: RuleId, seq: number) => {
    if (!out.some((f) => f.rule === rule && f.seq === seq)) out.push({ rule, seq });
  };
  const start = ev.find((e) => e.type === "run.start");
  const policy = start ? (o(start.data.policy) ?? {}) : null;
  const requireApproval = (policy?.requireApproval as string[] | undefined) ?? [];
  const bySeq = new Map(ev.map((e) => [e.seq as number, e]));
  const resultsOf = (call: string) => ev.filter((e) => e.type === "tool.result" && e.data.call === call);
  const callOf = (call: string) => ev.find((e) => e.type === "tool.call" && e.data.call === call);
  const sameWrite = (a: JournalEvent, b: JournalEvent) =>
    a.data.effect === "write" &&
    b.data.effect === "write" &&
    a.data.tool === b.data.tool &&
    canonicalJson(a.data.args ?? null) === canonicalJson(b.data.args ?? null);

  let stopIdx = -1;
  let pastStopDone = false;
  let steps = 0;
  let rebuilt: RunState = EMPTY_STATE;
  let pending = false;

  ev.forEach((e, i) => {
    const d = e.data;
    // journal.gap
    if ((i === 0 && e.seq > 0) || (i > 0 && e.seq > ev[i - 1].seq + 1)) add("journal.gap", e.seq);
    // journal.chain
    if (typeof e.hash === "string") {
      const prev = e.seq === 0 ? "" : s(bySeq.get(e.seq - 1)?.hash as JsonValue | undefined);
      if (prev !== undefined) {
        const copy: Record<string, unknown> = { ...e };
        delete copy.hash;
        let ok = false;
        try {
          ok = "sha256:" + sha256Hex(prev + "\n" + canonicalJson(copy)) === e.hash;
        } catch {
          ok = false;
        }
        if (!ok) add("journal.chain", e.seq);
      }
    }
    // secret.exposed
    if (hasSecret(e)) add("secret.exposed", e.seq);
    // loop.past-stop
    if (!pastStopDone && stopIdx >= 0 && ["step.start", "model.request", "tool.call"].includes(e.type)) {
      pastStopDone = true;
      add("loop.past-stop", e.seq);
    }
    switch (e.type) {
      case "model.request":
        if (!("context" in d) && !("messages" in d)) add("context.missing", e.seq);
        break;
      case "context": {
        const req = (policy?.requiredInstructions as string[] | undefined) ?? [];
        const have = Array.isArray(d.instructions) ? d.instructions : [];
        if (policy && req.some((r) => !have.includes(r))) add("context.instruction-omitted", e.seq);
        break;
      }
      case "retrieval": {
        const max = policy?.retrievalMaxAgeSeconds;
        if (typeof max !== "number") break;
        const limit = nanos(e.ts) - BigInt(Math.round(max * 1e9));
        const docs = Array.isArray(d.documents) ? d.documents : [];
        if (docs.some((doc) => typeof o(doc)?.indexedAt === "string" && nanos(o(doc)?.indexedAt as string) < limit))
          add("retrieval.stale", e.seq);
        break;
      }
      case "tool.result":
        if (d.partial === true) add("tool.partial", e.seq);
        break;
      case "step.start":
        steps++;
        if (policy && typeof policy.maxSteps === "number" && steps === policy.maxSteps + 1) add("loop.max-steps", e.seq);
        break;
      case "decision":
        if (stopIdx < 0 && (d.action === "stop" || o(d.stop)?.met === true)) stopIdx = i;
        break;
      case "approval.decision": {
        const before = ev
          .slice(0, i)
          .filter((x) => x.type === "state" || x.type === "checkpoint")
          .pop();
        // the hash in force: recorded, or (none recorded) the state rebuilt after that event
        const expected = before ? (s(before.data.hash) ?? hashOf(rebuilt)) : hashOf({});
        if (typeof d.stateHash === "string" && expected !== undefined && d.stateHash !== expected) add("approval.stale-state", e.seq);
        break;
      }
      case "tool.call": {
        const call = s(d.call) ?? "";
        const prior = ev.slice(0, i);
        const ids = [...new Set(prior.filter((r) => r.type === "approval.request" && r.data.call === call).map((r) => s(r.data.approval)))];
        const lastOf = (id: string | undefined) => prior.filter((x) => x.type === "approval.decision" && x.data.approval === id).pop();
        const approving = ids.filter((id) => lastOf(id)?.data.decision === "approved");
        if (policy && requireApproval.includes(s(d.tool) ?? "")) {
          if (approving.length === 0) add("approval.missing", e.seq);
        } else if (ids.length > 0 && approving.length === 0) {
          const undecided = ids.some((id) => !["approved", "denied"].includes(s(lastOf(id)?.data.decision) ?? ""));
          add(undecided ? "approval.undecided" : "approval.denied", e.seq);
        }
        const earlierCalls = prior.filter((x) => x.type === "tool.call" && x.data.call === call);
        if (approving.length > 0 && approving.every((id) => earlierCalls.some((x) => (lastOf(id)?.seq ?? Infinity) < x.seq)))
          add("approval.reused", e.seq);
        if (d.effect !== "write") break;
        if (!s(d.idempotencyKey)) add("effect.no-idempotency", e.seq);
        for (const earlier of prior.filter((x) => x.type === "tool.call" && sameWrite(x, e))) {
          const ec = s(earlier.data.call) ?? "";
          // a result is the latest call's with its id: a later call reusing the id takes the results after it
          const from = prior.indexOf(earlier);
          const next = prior.findIndex((x, j) => j > from && x.type === "tool.call" && x.data.call === ec);
          const results = prior.slice(from + 1, next < 0 ? undefined : next).filter((x) => x.type === "tool.result" && x.data.call === ec);
          const last = results.pop();
          if (!last || (last.data.status !== "unknown" && last.data.status !== "timeout")) continue;
          const lastIdx = prior.indexOf(last);
          const reconciled = prior.slice(lastIdx + 1).some((x) => x.type === "reconcile" && x.data.call === ec);
          if (reconciled) continue;
          const key = s(d.idempotencyKey);
          if (!key || key !== s(earlier.data.idempotencyKey)) add("effect.retry-after-unknown", e.seq);
        }
        const gotOk = (c: JournalEvent) => resultsOf(s(c.data.call) ?? "").find((r) => r.data.status === "ok");
        const mine = gotOk(e);
        if (mine) {
          for (const earlier of prior.filter((x) => x.type === "tool.call" && sameWrite(x, e))) {
            const theirs = gotOk(earlier);
            if (!theirs || callOf(s(earlier.data.call) ?? "") !== earlier) continue;
            const k1 = s(d.idempotencyKey);
            const k2 = s(earlier.data.idempotencyKey);
            const x1 = s(mine.data.externalId);
            const x2 = s(theirs.data.externalId);
            const exempt = !!k1 && k1 === k2 && x1 !== undefined && x1 === x2;
            if (!exempt) add("effect.duplicate", e.seq);
          }
        }
        break;
      }
      case "state":
      case "checkpoint": {
        const recorded = s(d.hash);
        if (e.type === "checkpoint") {
          if (pending) pending = false;
          else if (recorded !== undefined && hashOf(rebuilt) !== recorded) add("state.hash-mismatch", e.seq);
          rebuilt = nextState(rebuilt, e).state;
          break;
        }
        const r = nextState(rebuilt, e);
        rebuilt = r.state;
        if (!pending && (!r.ok || (recorded !== undefined && hashOf(rebuilt) !== recorded))) {
          pending = true;
          add("state.hash-mismatch", e.seq);
        }
        break;
      }
      default:
        break;
    }
  });
  return out.sort((a, b) => a.seq - b.seq || (a.rule < b.rule ? -1 : 1));
}
