/**
 * What counts as an error (docs/journal-format.md, "Failures"), over the summary columns
 * (type, status, step, call, parent: lib/journal/summary.ts `eventColumns`). The timeline's
 * failure marks and the runs list's error count both fold `FailureCounter` over a run's
 * events in seq order, so they count the same events.
 */
import type { JournalEvent } from "../journal/types";
import { failureInput, type FailureInput } from "../journal/summary";

export type { FailureInput };

/** Whether an event reports a failure at all (the raw predicate; counting it is `FailureCounter`'s call). */
export function isFailure(type: string, status: string | null): boolean {
  switch (type) {
    case "error":
      return true;
    case "tool.result":
      return status === "error" || status === "timeout" || status === "unknown";
    case "model.response":
    case "step.end":
      return status === "error";
    case "run.end":
      return status === "failed";
    case "approval.decision":
      return status === "denied";
    default:
      return false;
  }
}

/** The counter's state as plain JSON (ingest keeps it on the run row between requests). */
export interface FailureSnapshot {
  /** Failures counted so far. */
  counted: number;
  /** Open steps: [step id, seq of its step.start, enclosing step id or null, 1 when a failure was counted inside]. */
  open: Array<[string, number, string | null, 0 | 1]>;
  /** Calls whose failure was counted, with the step they were in (forgotten when it ends). */
  calls: Array<[string, string | null]>;
}

/** Calls outside any step whose failure is remembered (a bound: they are never forgotten otherwise). */
const LOOSE_CALLS = 256;

/**
 * One failure, one error: a failed call counts once however many events report it (its
 * `tool.result` or `model.response` and an `error` naming its `call`: the first one
 * counts); a `step.end` with `status: error` counts only when nothing inside the step (its
 * events, its nested steps) was counted, since it then only says that something inside
 * failed; a failed `run.end` counts only when nothing before it did. A plain `error` (no
 * `call`), a denied decision and each failed call count on their own.
 * Feed events in seq order; `counts` answers for each.
 */
export class FailureCounter {
  counted: number;
  private readonly open = new Map<string, { start: number; parent: string | null; failed: boolean }>();
  private readonly stepOfStart = new Map<number, string>();
  private readonly calls = new Map<string, string | null>();

  constructor(snapshot?: FailureSnapshot, countedBefore = 0) {
    this.counted = snapshot?.counted ?? countedBefore;
    for (const [step, start, parent, failed] of snapshot?.open ?? []) {
      this.open.set(step, { start, parent, failed: failed === 1 });
      this.stepOfStart.set(start, step);
    }
    for (const [call, step] of snapshot?.calls ?? []) this.calls.set(call, step);
  }

  counts(e: FailureInput): boolean {
    if (e.type === "step.start" && e.step !== null) {
      const parent = e.parent !== null ? (this.stepOfStart.get(e.parent) ?? null) : null;
      this.open.set(e.step, { start: e.seq, parent: parent !== e.step ? parent : null, failed: false });
      this.stepOfStart.set(e.seq, e.step);
      return false;
    }
    // a new attempt of a call: its failure would be a new one
    if ((e.type === "tool.call" || e.type === "model.request") && e.call !== null) this.calls.delete(e.call);
    let counts = isFailure(e.type, e.status);
    if (counts) {
      if (e.type === "step.end") counts = e.step === null || !this.open.get(e.step)?.failed;
      else if (e.type === "run.end") counts = this.counted === 0;
      else if (e.call !== null && e.type !== "approval.decision") {
        if (this.calls.has(e.call)) counts = false;
        else this.rememberCall(e.call, e.step);
      }
    }
    if (counts) {
      this.counted++;
      // the step it happened in and every step around it now hold a counted failure
      const seen = new Set<string>();
      for (let s = e.step; s !== null && !seen.has(s);) {
        seen.add(s);
        const o = this.open.get(s);
        if (!o) break;
        o.failed = true;
        s = o.parent;
      }
    }
    if (e.type === "step.end" && e.step !== null) this.close(e.step);
    return counts;
  }

  private rememberCall(call: string, step: string | null) {
    this.calls.set(call, step);
    if (step !== null || this.calls.size <= LOOSE_CALLS) return;
    for (const [c, s] of this.calls) {
      if (this.calls.size <= LOOSE_CALLS) break;
      if (s === null) this.calls.delete(c);
    }
  }

  private close(step: string) {
    const o = this.open.get(step);
    if (!o) return;
    this.open.delete(step);
    this.stepOfStart.delete(o.start);
    for (const [c, s] of this.calls) if (s === step) this.calls.delete(c);
  }

  snapshot(): FailureSnapshot {
    return {
      counted: this.counted,
      open: [...this.open].map(([step, o]) => [step, o.start, o.parent, o.failed ? 1 : 0]),
      calls: [...this.calls],
    };
  }
}

/** Which of a run's events (in seq order) count as errors. */
export function countedFailures(events: readonly FailureInput[]): boolean[] {
  const c = new FailureCounter();
  return events.map((e) => c.counts(e));
}

/** Which of a run's events (in seq order) the runs list counts as errors: the timeline's count, on the same columns. */
export function errorEvents(events: readonly JournalEvent[]): boolean[] {
  return countedFailures(events.map((e) => failureInput(e)));
}
