/**
 * Run-to-run alignment: two runs of one workflow (before and after a prompt change, say)
 * laid side by side by step and by call, so what changed shows up as a few rows instead of
 * every later seq being off by one.
 *
 * 1. Each run is cut into segments: its steps (events sharing a `step` id, labelled with
 *    the step.start's name) and the run-level stretches between them.
 * 2. Segments are aligned by label; segments left over between two aligned ones are paired
 *    in order (a renamed step is still compared with its counterpart).
 * 3. Inside a pair of segments, events are aligned by key: the type plus what the event
 *    acts on (the tool of a call or its result, the model of a request). Leftover events
 *    of the same type are paired as changed.
 * 4. A paired event is `same` when its comparable content (the type's meaningful fields,
 *    without ids, timestamps, hashes and latencies) is canonically equal, else `changed`.
 *
 * Each of these alignments is exact within a budget of time and memory (lcs.ts); two long
 * runs that differ in too many places are aligned by a banded search instead, and the
 * alignment says so (`approximate`).
 */
import { canonicalJson } from "../canonical";
import { obj, str } from "../journal/values";
import { firstMeaningfulDivergence, type MeaningfulDivergence, type Origins } from "./meaningful";
import type { LcsBudget } from "./lcs";
import type { AlignedRow, CompareEvent, Divergence, RowStatus, Segment, SegmentPair } from "./rows";
import { alignSequences, type ApproximateSpan, type Pair } from "./sequence-align";

export type { AlignedRow, CompareEvent, Divergence, RowStatus, Segment, SegmentPair } from "./rows";

export interface Alignment {
  segments: SegmentPair[];
  rows: AlignedRow[];
  counts: Record<RowStatus, number>;
  /** The first row of any difference, the input text included. */
  firstDivergence: Divergence | null;
  /** The first row where the runs acted differently (meaningful.ts): what a reviewer looks for. */
  firstMeaningful: MeaningfulDivergence | null;
  /** null when the alignment is exact; else what was aligned approximately, and how. */
  approximate: Approximation | null;
}

/** Stretches the banded search aligned (lcs.ts): exact within a window, not across it. */
interface Approximation {
  /** For people, starting "Aligned approximately: ". */
  message: string;
  /** Events of run a and of run b inside those stretches. */
  eventsA: number;
  eventsB: number;
  /** The narrowest window used: events per run, or steps when only the steps were paired approximately. */
  window: number;
  /** Indices into `segments` of the segment pairs with such a stretch. */
  segments: number[];
  /** The steps themselves were paired approximately (more steps than an exact pairing allows). */
  steps: boolean;
  /**
   * The most rows an exact alignment could make `same` beyond this one: an upper bound (per
   * comparable content, the smaller of its counts in the two runs), often far from tight on
   * runs that repeat themselves, so the message leaves it out; null when the steps were
   * paired approximately, which it does not bound.
   */
  sameAtMost: number | null;
}

export interface AlignRunsOptions {
  /** Where exact gives way to banded (lcs.ts `LCS_BUDGET`); tests make it small. */
  budget?: LcsBudget;
}

const RUN_LABEL = "(run)";

/** Cuts a run into its steps and the run-level stretches between them. */
export function segmentsOf(events: readonly CompareEvent[]): Segment[] {
  const out: Segment[] = [];
  for (let i = 0; i < events.length; i++) {
    const stepId = events[i].step ?? null;
    const last = out[out.length - 1];
    if (last && last.stepId === stepId) {
      last.end = i + 1;
      continue;
    }
    out.push({ label: RUN_LABEL, stepId, start: i, end: i + 1 });
  }
  for (const s of out) {
    if (s.stepId === null) continue;
    let name: string | undefined;
    for (let i = s.start; i < s.end && name === undefined; i++) if (events[i].type === "step.start") name = str(events[i].data.name);
    s.label = name ?? s.stepId;
  }
  return out;
}

/** call id → tool name and model call id → model, so results and responses key like their calls. */
interface CallIndex {
  tools: Map<string, string>;
  models: Map<string, string>;
  approvals: Map<string, string>;
}

function indexCalls(events: readonly CompareEvent[]): CallIndex {
  const tools = new Map<string, string>();
  const models = new Map<string, string>();
  const approvals = new Map<string, string>();
  for (const e of events) {
    const call = str(e.data.call);
    if (e.type === "tool.call" && call !== undefined) tools.set(call, str(e.data.tool) ?? "");
    if (e.type === "model.request" && call !== undefined) models.set(call, str(e.data.model) ?? "");
  }
  for (const e of events) {
    const approval = str(e.data.approval);
    const call = str(e.data.call);
    if (e.type === "approval.request" && approval !== undefined && call !== undefined) approvals.set(approval, tools.get(call) ?? "");
  }
  return { tools, models, approvals };
}

/** What an event is aligned by: its type and what it acts on. */
export function eventKey(e: CompareEvent, calls: CallIndex): string {
  const call = str(e.data.call) ?? "";
  switch (e.type) {
    case "tool.call":
      return `tool.call ${str(e.data.tool) ?? ""}`;
    case "tool.result":
    case "reconcile":
      return `${e.type} ${calls.tools.get(call) ?? ""}`;
    case "model.request":
      return `model.request ${str(e.data.model) ?? ""}`;
    case "model.response":
      return `model.response ${calls.models.get(call) ?? ""}`;
    case "approval.request":
      return `approval.request ${calls.tools.get(call) ?? ""}`;
    case "approval.decision":
      return `approval.decision ${calls.approvals.get(str(e.data.approval) ?? "") ?? ""}`;
    default:
      return e.type;
  }
}

function pick(data: { [key: string]: unknown }, keys: readonly string[]): { [key: string]: unknown } {
  const out: { [key: string]: unknown } = {};
  for (const k of keys) if (data[k] !== undefined) out[k] = data[k];
  return out;
}

/**
 * The fields of an event that say what the run did, without what differs between any two
 * runs anyway (ids of calls and approvals, timestamps, hashes of the chain, latencies,
 * token usage, external ids). Versions of run.start are compared on their own.
 */
export function comparable(e: CompareEvent): unknown {
  const d = e.data;
  switch (e.type) {
    case "run.start":
      return pick(d, ["input", "policy"]);
    case "run.end":
      return pick(d, ["status", "output", "error"]);
    case "step.start":
      return pick(d, ["name", "kind"]);
    case "step.end":
      return pick(d, ["status"]);
    case "input":
      return pick(d, ["source", "content"]);
    case "retrieval": {
      const docs = Array.isArray(d.documents)
        ? d.documents.map((doc) => pick(obj(doc) ?? {}, ["id", "version", "content", "uri"]))
        : d.documents;
      return { query: d.query, documents: docs };
    }
    case "context":
      return pick(d, ["messages", "instructions", "template"]);
    case "model.request":
      return pick(d, ["model", "params", "messages", "tools"]);
    case "model.response": {
      const output = obj(d.output);
      const toolCalls =
        output && Array.isArray(output.toolCalls) ? output.toolCalls.map((c) => pick(obj(c) ?? {}, ["name", "args"])) : undefined;
      return {
        ...pick(d, ["finishReason", "error"]),
        output: output ? { ...output, ...(toolCalls ? { toolCalls } : {}) } : (d.output ?? null),
      };
    }
    case "tool.call":
      return pick(d, ["tool", "version", "args", "effect", "target", "idempotencyKey"]);
    case "tool.result":
      return pick(d, ["status", "result", "error", "partial"]);
    case "approval.request":
      return pick(d, ["policy"]);
    case "approval.decision":
      return pick(d, ["decision"]);
    case "state":
    case "checkpoint":
      // the state after the event; two runs may reach the same state by different patches
      return typeof d.hash === "string" ? { hash: d.hash } : pick(d, ["set", "patch", "state"]);
    case "decision":
      return pick(d, ["action", "stop"]);
    case "error":
      return pick(d, ["message", "code", "retryable"]);
    case "reconcile":
      return pick(d, ["outcome"]);
    case "note":
      return pick(d, ["text"]);
    default:
      return d;
  }
}

/** The top-level fields of the comparable content that differ, for the row's reason. */
export function changedFields(a: CompareEvent, b: CompareEvent): string[] {
  if (a.type !== b.type) return ["type"];
  const ca = obj(comparable(a)) ?? {};
  const cb = obj(comparable(b)) ?? {};
  const keys = [...new Set([...Object.keys(ca), ...Object.keys(cb)])];
  return keys.filter((k) => {
    try {
      return canonicalJson(ca[k] ?? null) !== canonicalJson(cb[k] ?? null);
    } catch {
      return true;
    }
  });
}

const typeOfKey = (key: string) => key.split(" ", 1)[0];

/**
 * Pairs within a segment, in three passes so that as many rows as possible are `same`:
 * equal content first, then what is left between those by key (a changed call to the
 * same tool), then what is still left by type (a call whose tool changed).
 */
function alignEvents(
  exactA: readonly string[],
  exactB: readonly string[],
  keysA: readonly string[],
  keysB: readonly string[],
  budget: LcsBudget | undefined,
  onApproximate: (span: ApproximateSpan, pass: "content" | "key" | "type") => void,
): Pair[] {
  const byType = (gapA: number[], gapB: number[]) =>
    matchedPairs(
      gapA,
      gapB,
      (i) => typeOfKey(keysA[i]),
      (j) => typeOfKey(keysB[j]),
      { budget, onApproximate: (span) => onApproximate(span, "type") },
    );
  const byKey = (gapA: number[], gapB: number[]) =>
    matchedPairs(
      gapA,
      gapB,
      (i) => keysA[i],
      (j) => keysB[j],
      { pairGap: byType, budget, onApproximate: (span) => onApproximate(span, "key") },
    );
  return alignSequences(exactA, exactB, { pairGap: byKey, budget, onApproximate: (span) => onApproximate(span, "content") });
}

/**
 * The pairs (as indices of the whole sequences) that aligning the items `idxA` with the
 * items `idxB` (ascending) by `keyA`/`keyB` makes; `options.pairGap` may pair what that
 * leaves between pairs, and approximate stretches are told as indices of the whole sequences.
 */
function matchedPairs(
  idxA: readonly number[],
  idxB: readonly number[],
  keyA: (i: number) => string,
  keyB: (j: number) => string,
  options: {
    pairGap?: (gapA: number[], gapB: number[]) => Pair[];
    budget?: LcsBudget;
    onApproximate?: (span: ApproximateSpan) => void;
  },
): Pair[] {
  const { pairGap: next, onApproximate } = options;
  const local = (p: number | null, of: readonly number[]) => (p === null ? null : indexIn(of, p));
  const pairGap = next
    ? (gapA: number[], gapB: number[]): Pair[] =>
        next(
          gapA.map((x) => idxA[x]),
          gapB.map((y) => idxB[y]),
        ).map(([p, q]) => [local(p, idxA), local(q, idxB)] as const)
    : undefined;
  const whole = (of: readonly number[], [from, to]: readonly [number, number]) => [of[from], of[to - 1] + 1] as const;
  return alignSequences(idxA.map(keyA), idxB.map(keyB), {
    pairGap,
    budget: options.budget,
    onApproximate: onApproximate && ((span) => onApproximate({ ...span, a: whole(idxA, span.a), b: whole(idxB, span.b) })),
  })
    .filter(([x, y]) => x !== null && y !== null)
    .map(([x, y]) => [idxA[x as number], idxB[y as number]] as const);
}

/** Where `value` is in the ascending `sorted` (-1 when absent): a gap may hold a million items. */
function indexIn(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return sorted[lo] === value ? lo : -1;
}

/** Type and comparable content: two events with equal content keys are the same. */
export function contentKey(e: CompareEvent): string {
  try {
    return `${e.type}\u0000${canonicalJson(comparable(e))}`;
  } catch {
    return `${e.type}\u0000(not comparable #${e.seq})`;
  }
}

function describeOnly(e: CompareEvent, run: "a" | "b"): string {
  return `only in run ${run}: ${e.type}${e.type === "tool.call" && typeof e.data.tool === "string" ? ` ${e.data.tool}` : ""}`;
}

/** Aligns run a with run b (each: one run's events in seq order). */
export function alignRuns(a: readonly CompareEvent[], b: readonly CompareEvent[], options: AlignRunsOptions = {}): Alignment {
  return alignWith(
    a,
    b,
    {
      contentA: a.map(contentKey),
      contentB: b.map(contentKey),
      changedFields: (ia, ib) => changedFields(a[ia], b[ib]),
    },
    options,
  );
}

/**
 * What `alignWith` compares events by, beyond their type, step and the ids they key by
 * (projection.ts gives digests of these, for events whose payloads are gone).
 */
interface EventComparison {
  /** Per event: equal strings ⇔ equal type and comparable content (`contentKey`). */
  contentA: readonly string[];
  contentB: readonly string[];
  /** `changedFields` of event ia of run a and event ib of run b. */
  changedFields: (ia: number, ib: number) => string[];
  /** Where the values each run acts on came from (meaningful.ts); built from the events when absent. */
  origins?: { a: Origins; b: Origins };
}

/** `alignRuns`, with the events' comparison given (the events need only what `eventKey`, `segmentsOf` and meaningful.ts read). */
export function alignWith(
  a: readonly CompareEvent[],
  b: readonly CompareEvent[],
  compare: EventComparison,
  options: AlignRunsOptions = {},
): Alignment {
  const { budget } = options;
  const approx = new ApproximationLog(a.length, b.length);
  const segA = segmentsOf(a);
  const segB = segmentsOf(b);
  const segKey = (s: Segment) => (s.stepId === null ? RUN_LABEL : `step ${s.label}`);
  const kindA = segA.map((s) => (s.stepId === null ? "run" : "step"));
  const kindB = segB.map((s) => (s.stepId === null ? "run" : "step"));
  const onSegments = (span: ApproximateSpan) =>
    approx.steps(span, [segA[span.a[0]].start, segA[span.a[1] - 1].end], [segB[span.b[0]].start, segB[span.b[1] - 1].end]);
  const segPairs = alignSequences(segA.map(segKey), segB.map(segKey), {
    budget,
    onApproximate: onSegments,
    pairGap: (gapA, gapB) =>
      matchedPairs(
        gapA,
        gapB,
        (i) => kindA[i],
        (j) => kindB[j],
        { budget, onApproximate: onSegments },
      ),
  });

  const callsA = indexCalls(a);
  const callsB = indexCalls(b);
  // one string per distinct key, not per event (a run has few: type and tool or model)
  const keyStrings = new Map<string, string>();
  const interned = (k: string) => keyStrings.get(k) ?? (keyStrings.set(k, k), k);
  const keysA = a.map((e) => interned(eventKey(e, callsA)));
  const keysB = b.map((e) => interned(eventKey(e, callsB)));
  const { contentA: exactA, contentB: exactB } = compare;

  const segments: SegmentPair[] = [];
  const rows: AlignedRow[] = [];
  for (const [ia, ib] of segPairs) {
    const sa = ia === null ? null : segA[ia];
    const sb = ib === null ? null : segB[ib];
    const segment = segments.length;
    segments.push({ a: sa, b: sb });
    const rangeA = sa ? range(sa.start, sa.end) : [];
    const rangeB = sb ? range(sb.start, sb.end) : [];
    const offA = sa?.start ?? 0;
    const offB = sb?.start ?? 0;
    const pairs = alignEvents(
      rangeA.map((i) => exactA[i]),
      rangeB.map((j) => exactB[j]),
      rangeA.map((i) => keysA[i]),
      rangeB.map((j) => keysB[j]),
      budget,
      (span, pass) => approx.events(segment, span, pass, [offA + span.a[0], offA + span.a[1]], [offB + span.b[0], offB + span.b[1]]),
    );
    for (const [x, y] of pairs) {
      const ea = x === null ? null : rangeA[x];
      const eb = y === null ? null : rangeB[y];
      rows.push(makeRow(a, b, ea, eb, segment, ea !== null && eb !== null && exactA[ea] === exactB[eb], compare.changedFields));
    }
  }

  const counts: Record<RowStatus, number> = { same: 0, changed: 0, "only-a": 0, "only-b": 0 };
  let firstDivergence: Divergence | null = null;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    counts[r.status]++;
    if (firstDivergence === null && r.status !== "same") {
      const seg = segments[r.segment];
      firstDivergence = {
        row: i,
        aSeq: r.a === null ? null : a[r.a].seq,
        bSeq: r.b === null ? null : b[r.b].seq,
        status: r.status,
        reason: r.reason ?? r.status,
        segment: (seg.a ?? seg.b)?.label ?? RUN_LABEL,
      };
    }
  }
  const firstMeaningful = firstDivergence ? firstMeaningfulDivergence(a, b, rows, segments, compare.origins) : null;
  return { segments, rows, counts, firstDivergence, firstMeaningful, approximate: approx.result() };
}

/** Collects the stretches aligned approximately, as events of each run. */
class ApproximationLog {
  private readonly inA: Uint8Array;
  private readonly inB: Uint8Array;
  private readonly segments = new Set<number>();
  /** Narrowest windows of the event passes and of the step pairing; Infinity while none ran. */
  private eventWindow = Infinity;
  private stepWindow = Infinity;
  private sameAtMost = 0;

  constructor(lengthA: number, lengthB: number) {
    this.inA = new Uint8Array(lengthA);
    this.inB = new Uint8Array(lengthB);
  }

  /** The steps were paired approximately; their events are [from, to) of each run. */
  steps(span: ApproximateSpan, a: readonly [number, number], b: readonly [number, number]) {
    this.stepWindow = Math.min(this.stepWindow, span.window);
    this.mark(a, b);
  }

  /** Events of one segment pair were aligned approximately by one pass (content, key or type). */
  events(
    segment: number,
    span: ApproximateSpan,
    pass: "content" | "key" | "type",
    a: readonly [number, number],
    b: readonly [number, number],
  ) {
    this.segments.add(segment);
    // only the first pass decides which rows are `same`; the others pair what it left as changed
    if (pass === "content") this.sameAtMost += span.atMost - span.paired;
    this.eventWindow = Math.min(this.eventWindow, span.window);
    this.mark(a, b);
  }

  private mark([fromA, toA]: readonly [number, number], [fromB, toB]: readonly [number, number]) {
    this.inA.fill(1, fromA, toA);
    this.inB.fill(1, fromB, toB);
  }

  result(): Approximation | null {
    const events = this.eventWindow < Infinity;
    const steps = this.stepWindow < Infinity;
    if (!events && !steps) return null;
    let eventsA = 0;
    let eventsB = 0;
    for (const v of this.inA) eventsA += v;
    for (const v of this.inB) eventsB += v;
    const n = (v: number) => v.toLocaleString("en-US");
    const tooMany = "differ in too many places to align exactly in bounded time and memory";
    const message = events
      ? `Aligned approximately: ${n(eventsA)} events of run a and ${n(eventsB)} of run b ${tooMany}, so they were aligned ` +
        `exactly within windows of ${n(this.eventWindow)} events and a match across a longer shift may be missed` +
        (steps ? `; the steps were paired approximately too, within windows of ${n(this.stepWindow)} steps.` : ".")
      : `Aligned approximately: the steps holding ${n(eventsA)} events of run a and ${n(eventsB)} of run b ${tooMany}, so ` +
        `they were paired exactly within windows of ${n(this.stepWindow)} steps and a match across a longer shift may be missed.`;
    return {
      message,
      eventsA,
      eventsB,
      window: events ? this.eventWindow : this.stepWindow,
      segments: [...this.segments].sort((x, y) => x - y),
      steps,
      sameAtMost: steps ? null : this.sameAtMost,
    };
  }
}

function makeRow(
  a: readonly CompareEvent[],
  b: readonly CompareEvent[],
  ia: number | null,
  ib: number | null,
  segment: number,
  same: boolean,
  changed: EventComparison["changedFields"],
): AlignedRow {
  if (ia !== null && ib !== null) {
    if (same) return { a: ia, b: ib, status: "same", segment, reason: null };
    const fields = changed(ia, ib);
    return {
      a: ia,
      b: ib,
      status: "changed",
      segment,
      reason: `${a[ia].type}: ${fields.length > 0 ? fields.join(", ") : "content"} changed`,
    };
  }
  if (ia !== null) return { a: ia, b: null, status: "only-a", segment, reason: describeOnly(a[ia], "a") };
  return { a: null, b: ib, status: "only-b", segment, reason: describeOnly(b[ib as number], "b") };
}

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i++) out.push(i);
  return out;
}
