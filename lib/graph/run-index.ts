/**
 * The run's structure derived once from the summary: steps in order of first appearance,
 * the top-level sequence (steps and the events outside any step), call spans (request →
 * response, call → result) and per-row kind. Everything the graph, the timeline and the
 * keyboard navigation need, computed in one pass over the rows.
 */
import { FailureCounter, isFailure } from "../semantics";
import { kindOf, EVENT_KINDS, type EventKind } from "./kind";
import type { RunSummary } from "./summary";

interface StepInfo {
  id: string;
  ordinal: number;
  /** `name` of the step.start, when there is one. */
  name: string | null;
  /** `kind` of the step.start. */
  kind: string | null;
  /** `status` of the step.end: ok, error, or null while open. */
  status: string | null;
  rows: number[];
  startMs: number;
  endMs: number;
  failures: number;
  tokens: number;
  /** Sum of model and tool latencies in the step, ms. */
  latencyMs: number;
  kindCounts: Partial<Record<EventKind, number>>;
}

/** One entry of the top-level sequence: a step, or an event outside any step. */
type TopItem = { kind: "step"; step: number; firstRow: number } | { kind: "event"; row: number; firstRow: number };

interface CallSpan {
  call: string;
  lane: "model" | "tool";
  write: boolean;
  startRow: number;
  /** -1 while no answer arrived. */
  endRow: number;
  startMs: number;
  endMs: number;
  failed: boolean;
}

export interface RunIndex {
  summary: RunSummary;
  n: number;
  steps: StepInfo[];
  stepById: Map<string, number>;
  /** Step ordinal of each row, -1 outside any step. */
  stepOfRow: Int32Array;
  items: TopItem[];
  /** Top-level item of each row. */
  itemOfRow: Int32Array;
  /** Index into EVENT_KINDS of each row. */
  kindOfRow: Uint8Array;
  failed: Uint8Array;
  calls: CallSpan[];
  /** Rows sorted by time (equal to seq order for a well-formed journal). */
  byTime: Int32Array;
  startMs: number;
  endMs: number;
  rowOfSeq(seq: number): number;
}

const KIND_INDEX = new Map<EventKind, number>(EVENT_KINDS.map((k, i) => [k, i]));
export const kindAt = (index: RunIndex, row: number): EventKind => EVENT_KINDS[index.kindOfRow[row]];

export function buildRunIndex(summary: RunSummary): RunIndex {
  const n = summary.n;
  const steps: StepInfo[] = [];
  const stepById = new Map<string, number>();
  const stepOfRow = new Int32Array(n).fill(-1);
  const items: TopItem[] = [];
  const itemOfRow = new Int32Array(n);
  const kindOfRow = new Uint8Array(n);
  const failed = new Uint8Array(n);
  const effectOfCall = new Map<string, string>();
  // open calls by id, one map per lane (no key string made per row)
  const openTool = new Map<string, number>();
  const openModel = new Map<string, number>();
  // one input object, refilled per row: the counter reads it and keeps nothing of it
  const input = {
    type: "",
    status: null as string | null,
    step: null as string | null,
    call: null as string | null,
    parent: null as number | null,
    seq: 0,
  };
  const calls: CallSpan[] = [];
  const itemOfStep: number[] = [];
  let startMs = Infinity;
  let endMs = -Infinity;
  const failures = new FailureCounter();

  // by dictionary code when the summary has codes: no string hashed per row
  const codes = summary.codes;
  const stepOfCode = codes ? new Int32Array(codes.steps + 1).fill(-1) : null;
  const effectOfCode = codes ? new Array<string | null>(codes.calls + 1).fill(null) : null;
  const openToolOfCode = codes ? new Int32Array(codes.calls + 1).fill(-1) : null;
  const openModelOfCode = codes ? new Int32Array(codes.calls + 1).fill(-1) : null;

  for (let row = 0; row < n; row++) {
    const type = summary.type[row];
    const status = summary.status[row];
    const call = summary.call[row];
    const t = summary.tsMs[row];
    const lat = summary.latencyMs[row];
    const callCode = codes ? codes.call[row] : 0;
    if (type === "tool.call" && call !== null && status !== null) {
      if (effectOfCode) effectOfCode[callCode] = status;
      else effectOfCall.set(call, status);
    }
    const effect =
      type === "tool.call"
        ? status
        : type === "tool.result" && call !== null
          ? effectOfCode
            ? effectOfCode[callCode]
            : (effectOfCall.get(call) ?? null)
          : null;
    const kind = kindOf(type, effect);
    kindOfRow[row] = KIND_INDEX.get(kind) ?? 0;
    const stepId = summary.step[row];
    const p = summary.parent[row];
    // counted once (lib/semantics/failure.ts), as the runs list counts them
    input.type = type;
    input.status = status;
    input.step = stepId;
    input.call = call;
    input.parent = p >= 0 ? p : null;
    input.seq = summary.seq[row];
    const fail = failures.counts(input);
    failed[row] = fail ? 1 : 0;
    if (t < startMs) startMs = t;
    if (t > endMs) endMs = t;

    if (stepId !== null) {
      let s = stepOfCode ? stepOfCode[codes!.step[row]] : (stepById.get(stepId) ?? -1);
      if (s < 0) {
        s = steps.length;
        stepById.set(stepId, s);
        if (stepOfCode) stepOfCode[codes!.step[row]] = s;
        steps.push({
          id: stepId,
          ordinal: s,
          name: null,
          kind: null,
          status: null,
          rows: [],
          startMs: t,
          endMs: t,
          failures: 0,
          tokens: 0,
          latencyMs: 0,
          kindCounts: {},
        });
        itemOfStep.push(items.length);
        items.push({ kind: "step", step: s, firstRow: row });
      }
      const info = steps[s];
      info.rows.push(row);
      stepOfRow[row] = s;
      itemOfRow[row] = itemOfStep[s];
      if (t < info.startMs) info.startMs = t;
      if (t > info.endMs) info.endMs = t;
      if (fail) info.failures++;
      const tok = summary.tokens[row];
      if (!Number.isNaN(tok)) info.tokens += tok;
      if (!Number.isNaN(lat)) info.latencyMs += lat;
      info.kindCounts[kind] = (info.kindCounts[kind] ?? 0) + 1;
      if (type === "step.start") {
        info.name = summary.name[row];
        info.kind = status;
      } else if (type === "step.end") {
        info.status = status;
      }
    } else {
      itemOfRow[row] = items.length;
      items.push({ kind: "event", row, firstRow: row });
    }

    if ((type === "model.request" || type === "tool.call") && call !== null) {
      if (openToolOfCode && openModelOfCode) (type === "tool.call" ? openToolOfCode : openModelOfCode)[callCode] = calls.length;
      else (type === "tool.call" ? openTool : openModel).set(call, calls.length);
      calls.push({
        call,
        lane: type === "tool.call" ? "tool" : "model",
        write: effect === "write",
        startRow: row,
        endRow: -1,
        startMs: t,
        endMs: t,
        failed: false,
      });
    } else if ((type === "model.response" || type === "tool.result") && call !== null) {
      const open =
        openToolOfCode && openModelOfCode
          ? (type === "tool.result" ? openToolOfCode : openModelOfCode)[callCode]
          : ((type === "tool.result" ? openTool : openModel).get(call) ?? -1);
      if (open >= 0 && calls[open].endRow < 0) {
        const span = calls[open];
        span.endRow = row;
        // the answer's ts is when it was recorded; latency (when larger) is the better end
        span.endMs = Math.max(t, Number.isNaN(lat) ? t : span.startMs + lat);
        // the call failed even when an earlier event (an error naming it) was the one counted
        span.failed = isFailure(type, status);
        if (span.endMs > endMs) endMs = span.endMs;
      }
    }
  }
  // open calls (no answer yet) end at the last event seen
  for (const c of calls) if (c.endRow < 0) c.endMs = Math.max(c.startMs, endMs);
  for (const c of calls) {
    const s = stepOfRow[c.startRow];
    if (s >= 0 && c.endMs > steps[s].endMs) steps[s].endMs = c.endMs;
  }

  const byTime = new Int32Array(n);
  for (let i = 0; i < n; i++) byTime[i] = i;
  let sorted = true;
  for (let i = 1; i < n; i++) if (summary.tsMs[i] < summary.tsMs[i - 1]) sorted = false;
  if (!sorted) byTime.sort((a, b) => summary.tsMs[a] - summary.tsMs[b] || a - b);

  let maxSeq = -1;
  for (let i = 0; i < n; i++) if (summary.seq[i] > maxSeq) maxSeq = summary.seq[i];
  let rowOfSeq: (seq: number) => number;
  if (maxSeq < 4 * n + 1024) {
    const table = new Int32Array(maxSeq + 1).fill(-1);
    for (let i = 0; i < n; i++) if (summary.seq[i] >= 0) table[summary.seq[i]] = i;
    rowOfSeq = (seq) => (seq >= 0 && seq < table.length ? table[seq] : -1);
  } else {
    const map = new Map<number, number>();
    for (let i = 0; i < n; i++) map.set(summary.seq[i], i);
    rowOfSeq = (seq) => map.get(seq) ?? -1;
  }

  return {
    summary,
    n,
    steps,
    stepById,
    stepOfRow,
    items,
    itemOfRow,
    kindOfRow,
    failed,
    calls,
    byTime,
    startMs: n > 0 ? startMs : 0,
    endMs: n > 0 ? Math.max(endMs, startMs + 1) : 1,
    rowOfSeq,
  };
}

/** Row of the first event of the step after (dir 1) or before (dir -1) the row's step. */
export function adjacentStepRow(index: RunIndex, row: number, dir: 1 | -1): number {
  if (index.n === 0) return -1;
  const item = row >= 0 ? index.itemOfRow[row] : -1;
  for (let i = item + dir; i >= 0 && i < index.items.length; i += dir) {
    const it = index.items[i];
    if (it.kind === "step") return index.steps[it.step].rows[0];
  }
  return row;
}
