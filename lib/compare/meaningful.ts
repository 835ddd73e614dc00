/**
 * The first *meaningful* divergence of two aligned runs: the first row where the runs did
 * something different (a decision, a tool, an argument, an outcome), not merely saw other
 * text. Two runs of a workflow always differ in their input, and everything that carries
 * it (context messages, model prose, tool results, state hashes); a reviewer wants the
 * point where the agent chose differently.
 *
 * - Changed rows count only by the fields that say what was done: the tool, effect and
 *   arguments of a call, the tools the model asked for, a result's status, a decision's
 *   action, an approval's decision, a reconcile's outcome, the run's end status.
 * - An argument that each run took from its own data is the same argument: a value is
 *   replaced by where it first appeared earlier in its run (the input text, or a leaf of an
 *   earlier tool result, by tool and path), so `orderId: "A-1001"` from one input and
 *   `"A-2002"` from the other compare equal, while an amount the model made up does not.
 * - Events only one run has count when they act (calls, results, decisions, approvals,
 *   reconciles, the run's end), not when they record (state, context, notes, errors: an
 *   error event describes an outcome that its result already carries).
 */
import { canonicalJson } from "../canonical";
import { obj, str } from "../journal/values";
import type { AlignedRow, CompareEvent, Divergence, SegmentPair } from "./rows";

export type DivergenceKind = "decision" | "tool" | "argument" | "outcome" | "approval";

export interface MeaningfulDivergence extends Divergence {
  kind: DivergenceKind;
}

const ACTING = new Set(["tool.call", "tool.result", "decision", "approval.request", "approval.decision", "reconcile", "run.end"]);
const UNSURE = new Set(["timeout", "unknown", "error"]);
const STATUS_WORD: Record<string, string> = { timeout: "timed out", unknown: "ended with an unknown outcome", error: "failed" };

/**
 * Where the values a run acts on came from: its input text and earlier tool results. Built
 * event by event (`add`, in seq order), so the compare worker builds it while the run's
 * pages stream in and keeps no payload; every question names an event index and reads
 * only what came before it.
 */
export class Origins {
  private readonly inputs: Array<{ index: number; text: string }> = [];
  private readonly leaves = new Map<string, { index: number; origin: string }>();
  private readonly tools = new Map<string, string>();

  static of(events: readonly CompareEvent[]): Origins {
    const o = new Origins();
    events.forEach((e, index) => o.add(e, index));
    return o;
  }

  /** Takes in the run's event `index` (each index once, ascending). */
  add(e: CompareEvent, index: number) {
    if (e.type === "run.start") this.addInput(e.data.input, index);
    else if (e.type === "input") this.addInput(e.data.content, index);
    else if (e.type === "tool.call") this.tools.set(str(e.data.call) ?? "", str(e.data.tool) ?? "");
    else if (e.type === "tool.result") {
      const tool = this.tools.get(str(e.data.call) ?? "") ?? "a tool";
      this.addLeaves(e.data.result, `the result of ${tool}`, "", index, 0);
    }
  }

  private addInput(v: unknown, index: number, depth = 0) {
    if (depth > 16) return;
    if (typeof v === "string") this.inputs.push({ index, text: v });
    else if (Array.isArray(v)) v.forEach((x) => this.addInput(x, index, depth + 1));
    else if (v && typeof v === "object") Object.values(v).forEach((x) => this.addInput(x, index, depth + 1));
  }

  private addLeaves(v: unknown, source: string, path: string, index: number, depth: number) {
    if (depth > 16) return;
    if (typeof v === "string" || typeof v === "number") {
      const key = `${typeof v}:${v}`;
      if (!this.leaves.has(key)) this.leaves.set(key, { index, origin: `${source} ${path || "/"}` });
    } else if (Array.isArray(v)) v.forEach((x, i) => this.addLeaves(x, source, `${path}/${i}`, index, depth + 1));
    else if (v && typeof v === "object")
      for (const [k, x] of Object.entries(v)) this.addLeaves(x, source, `${path}/${k}`, index, depth + 1);
  }

  /** Where `v` first appeared before event `index`, or null when the run had not seen it. */
  originOf(v: unknown, index: number): string | null {
    if (typeof v === "string" && v.length >= 2 && this.inputs.some((i) => i.index < index && i.text.includes(v))) return "the input";
    if (typeof v !== "string" && typeof v !== "number") return null;
    const leaf = this.leaves.get(`${typeof v}:${v}`);
    return leaf && leaf.index < index ? leaf.origin : null;
  }

  /** `v` with each value the run had already seen replaced by where it came from. */
  normalize(v: unknown, index: number, depth = 0): unknown {
    if (depth > 16) return v;
    const origin = this.originOf(v, index);
    if (origin !== null) return `\u0000from ${origin}`;
    if (Array.isArray(v)) return v.map((x) => this.normalize(x, index, depth + 1));
    if (v && typeof v === "object") {
      const out: { [key: string]: unknown } = {};
      for (const [k, x] of Object.entries(v)) out[k] = this.normalize(x, index, depth + 1);
      return out;
    }
    return v;
  }
}

function same(x: unknown, y: unknown): boolean {
  try {
    return canonicalJson(x ?? null) === canonicalJson(y ?? null);
  } catch {
    return false;
  }
}

/** The first top-level key whose values differ, for "argument amountCents". */
function firstDifferingKey(x: unknown, y: unknown): string | null {
  const ox = obj(x);
  const oy = obj(y);
  if (!ox || !oy) return null;
  for (const k of [...new Set([...Object.keys(ox), ...Object.keys(oy)])]) if (!same(ox[k], oy[k])) return k;
  return null;
}

function shortValue(v: unknown): string {
  if (v === undefined) return "(none)";
  let s: string;
  try {
    s = typeof v === "string" ? JSON.stringify(v) : canonicalJson(v);
  } catch {
    s = String(v);
  }
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
}

interface Side {
  events: readonly CompareEvent[];
  origins: Origins;
}

function toolCallsOf(e: CompareEvent, side: Side, index: number): unknown {
  const output = obj(e.data.output);
  if (!output || !Array.isArray(output.toolCalls)) return [];
  return output.toolCalls.map((c) => {
    const call = obj(c) ?? {};
    return { name: call.name ?? null, args: side.origins.normalize(call.args, index) };
  });
}

/** What differs between two paired events that matters, or null when nothing does. */
function meaningfulChange(ia: number, ib: number, A: Side, B: Side): { kind: DivergenceKind; text: string } | null {
  const ea = A.events[ia];
  const eb = B.events[ib];
  const da = ea.data;
  const db = eb.data;
  if (ea.type !== eb.type) {
    if (ACTING.has(ea.type) || ACTING.has(eb.type)) return { kind: "decision", text: `run a: ${ea.type}, run b: ${eb.type}` };
    return null;
  }
  switch (ea.type) {
    case "tool.call": {
      if (!same(da.tool, db.tool))
        return { kind: "tool", text: `run a called ${str(da.tool) ?? "?"}, run b called ${str(db.tool) ?? "?"}` };
      if (!same(da.effect, db.effect))
        return { kind: "tool", text: `${str(da.tool)}: effect ${shortValue(da.effect)} → ${shortValue(db.effect)}` };
      const na = A.origins.normalize(da.args, ia);
      const nb = B.origins.normalize(db.args, ib);
      if (same(na, nb)) return null;
      const k = firstDifferingKey(na, nb);
      const va = k === null ? da.args : obj(da.args)?.[k];
      const vb = k === null ? db.args : obj(db.args)?.[k];
      return {
        kind: "argument",
        text: `${str(da.tool)}: ${k === null ? "arguments" : `argument ${k}`} ${shortValue(va)} → ${shortValue(vb)}`,
      };
    }
    case "model.response": {
      const ta = toolCallsOf(ea, A, ia);
      const tb = toolCallsOf(eb, B, ib);
      const names = (t: unknown) => (Array.isArray(t) ? t.map((c) => str(obj(c)?.name) ?? "?").join(", ") || "no tool" : "no tool");
      if (!same(ta, tb)) {
        if (names(ta) !== names(tb)) return { kind: "decision", text: `the model asked for ${names(ta)} in run a, ${names(tb)} in run b` };
        const raw = (e: CompareEvent) => (obj(e.data.output)?.toolCalls as unknown[] | undefined) ?? [];
        const i = (ta as unknown[]).findIndex((c, n) => !same(c, (tb as unknown[])[n]));
        const k = firstDifferingKey(obj((ta as unknown[])[i])?.args, obj((tb as unknown[])[i])?.args);
        const arg = (e: CompareEvent) => (k === null ? undefined : obj(obj(raw(e)[i])?.args)?.[k]);
        const what = k === null ? "other arguments" : `argument ${k} ${shortValue(arg(ea))} → ${shortValue(arg(eb))}`;
        return { kind: "decision", text: `the model asked for ${str(obj((ta as unknown[])[i])?.name) ?? "a tool"} with ${what}` };
      }
      if (!same(da.finishReason, db.finishReason) || !same(da.error !== undefined, db.error !== undefined))
        return { kind: "outcome", text: `model.response: finish ${shortValue(da.finishReason)} → ${shortValue(db.finishReason)}` };
      return null;
    }
    case "tool.result":
      if (!same(da.status, db.status) || !same(da.partial, db.partial))
        return {
          kind: "outcome",
          text: `tool result ${shortValue(da.status)}${da.partial ? " (partial)" : ""} → ${shortValue(db.status)}${db.partial ? " (partial)" : ""}`,
        };
      return null;
    case "decision": {
      const ma = obj(da.stop)?.met;
      const mb = obj(db.stop)?.met;
      if (!same(da.action, db.action) || !same(ma, mb))
        return { kind: "decision", text: `decision ${shortValue(da.action)} → ${shortValue(db.action)}` };
      return null;
    }
    case "approval.decision":
      return same(da.decision, db.decision)
        ? null
        : { kind: "approval", text: `approval ${shortValue(da.decision)} → ${shortValue(db.decision)}` };
    case "approval.request":
      return same(obj(da.policy)?.id, obj(db.policy)?.id) ? null : { kind: "approval", text: "approval asked under another policy" };
    case "reconcile":
      return same(da.outcome, db.outcome)
        ? null
        : { kind: "outcome", text: `reconcile ${shortValue(da.outcome)} → ${shortValue(db.outcome)}` };
    case "run.end":
    case "step.end":
      return same(da.status, db.status)
        ? null
        : { kind: "outcome", text: `${ea.type} ${shortValue(da.status)} → ${shortValue(db.status)}` };
    default:
      return null;
  }
}

/** What one run did at a call that followed an unsure result: retried it, reconciled it, or called something else. */
function actionAfter(side: Side, callIndex: number, resultIndex: number, run: "a" | "b"): string {
  const call = side.events[callIndex];
  const tool = str(call.data.tool) ?? "?";
  const earlierCall = str(side.events[resultIndex].data.call);
  const earlier = side.events.slice(0, resultIndex).find((e) => e.type === "tool.call" && str(e.data.call) === earlierCall);
  const earlierTool = earlier ? str(earlier.data.tool) : undefined;
  if (earlierTool !== undefined && earlierTool === tool) return `run ${run} retried ${tool} (#${call.seq})`;
  const rec = side.events.find((e, i) => i > resultIndex && e.type === "reconcile" && str(e.data.call) === earlierCall);
  if (rec) return `run ${run} reconciled it (${tool} #${call.seq}, then reconcile #${rec.seq}: ${str(rec.data.outcome) ?? "?"})`;
  return `run ${run} called ${tool} (#${call.seq})`;
}

/**
 * For a tool.call divergence right after both runs saw the same unsure result (a write
 * that timed out): the story of the decision, "after issue_refund timed out, run a
 * reconciled it …; run b retried issue_refund".
 */
function afterUnsureResult(rows: readonly AlignedRow[], at: number, A: Side, B: Side): string | null {
  const row = rows[at];
  if (row.a === null || row.b === null) return null;
  for (let i = at - 1; i >= 0 && i >= at - 8; i--) {
    const r = rows[i];
    if (r.a === null || r.b === null) continue;
    const ra = A.events[r.a];
    const rb = B.events[r.b];
    if (ra.type !== "tool.result" || rb.type !== "tool.result") continue;
    const status = str(ra.data.status) ?? "";
    if (status !== str(rb.data.status) || !UNSURE.has(status)) return null;
    const callOf = (s: Side, result: CompareEvent) =>
      s.events.find((e) => e.type === "tool.call" && str(e.data.call) === str(result.data.call));
    const tool = str(callOf(A, ra)?.data.tool) ?? "the call";
    return (
      `after ${tool} ${STATUS_WORD[status]} (a #${ra.seq}, b #${rb.seq}), ` +
      `${actionAfter(A, row.a, r.a, "a")}; ${actionAfter(B, row.b, r.b, "b")}`
    );
  }
  return null;
}

/** The first aligned row where the runs acted differently (see the file comment). */
export function firstMeaningfulDivergence(
  a: readonly CompareEvent[],
  b: readonly CompareEvent[],
  rows: readonly AlignedRow[],
  segments: readonly SegmentPair[],
  origins?: { a: Origins; b: Origins },
): MeaningfulDivergence | null {
  let A: Side | null = null;
  let B: Side | null = null;
  // built on first need (most pairs of runs have no changed pair before their first divergence)
  const sides = (): [Side, Side] => {
    A ??= { events: a, origins: origins?.a ?? Origins.of(a) };
    B ??= { events: b, origins: origins?.b ?? Origins.of(b) };
    return [A, B];
  };
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    if (r.status === "same") continue;
    let found: { kind: DivergenceKind; text: string } | null = null;
    if (r.a !== null && r.b !== null) {
      const [sa, sb] = sides();
      found = meaningfulChange(r.a, r.b, sa, sb);
      if (found && a[r.a].type === "tool.call") {
        const story = afterUnsureResult(rows, i, sa, sb);
        if (story) found = { kind: "decision", text: story };
      }
    } else {
      const e = r.a !== null ? a[r.a] : b[r.b as number];
      if (ACTING.has(e.type)) {
        const tool = e.type === "tool.call" ? ` ${str(e.data.tool) ?? ""}` : "";
        found = { kind: e.type === "tool.call" ? "tool" : "decision", text: `only run ${r.a !== null ? "a" : "b"} has ${e.type}${tool}` };
      }
    }
    if (!found) continue;
    const seg = segments[r.segment];
    return {
      row: i,
      aSeq: r.a === null ? null : a[r.a].seq,
      bSeq: r.b === null ? null : b[r.b].seq,
      status: r.status as Exclude<AlignedRow["status"], "same">,
      reason: found.text,
      segment: (seg.a ?? seg.b)?.label ?? "(run)",
      kind: found.kind,
    };
  }
  return null;
}
