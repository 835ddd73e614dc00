/**
 * A run's health, one verdict for the runs list, the run header and compare: its status,
 * its failed events (the format's failure count, failure.ts) and its findings read
 * together, so a failed run or one with failed events is never shown green, and "succeeded"
 * with an error finding is not plain green. The one place that decides colours by severity
 * and the words for what went wrong: "failed event" for an event that reports a failure,
 * "error finding" for an analyzer finding of severity error.
 */
import { compareFindings } from "./findings";

export type HealthTone = "good" | "warn" | "bad" | "live" | "neutral";

export interface RunHealthInput {
  status: string;
  live?: boolean;
  /** all findings */
  findingCount: number;
  /** findings of severity error (the rest are warnings) */
  errorFindings: number;
  /** events that count as failures (the run's errorCount: failure.ts `FailureCounter`) */
  failedEvents?: number;
  /** the title of the top finding (`topFinding`), in words; null or absent without one */
  topFinding?: string | null;
}

export interface RunHealth {
  tone: HealthTone;
  /** the chip: the status and the one thing that matters most, "failed · Payment sent twice" */
  label: string;
  /** every count in words, "2 error findings, 1 warning, 1 failed event"; "" when there are none */
  detail: string;
  /** the highest severity among the findings, null without findings */
  worst: "error" | "warning" | null;
  errors: number;
  warnings: number;
  failedEvents: number;
  /** whether nothing went wrong: a succeeded run with no failed event and no finding */
  healthy: boolean;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}

/** "2 error findings, 1 warning, 1 failed event": the counts the verdict reads, in its words. */
export function healthCounts(errors: number, warnings: number, failedEvents: number): string {
  return [
    errors > 0 ? plural(errors, "error finding") : "",
    warnings > 0 ? plural(warnings, "warning") : "",
    failedEvents > 0 ? plural(failedEvents, "failed event") : "",
  ]
    .filter(Boolean)
    .join(", ");
}

export function runHealth(r: RunHealthInput): RunHealth {
  const errors = Math.max(0, r.errorFindings);
  const warnings = Math.max(0, r.findingCount - errors);
  const failedEvents = Math.max(0, r.failedEvents ?? 0);
  const worst = errors > 0 ? "error" : warnings > 0 ? "warning" : null;
  const top = r.topFinding ? r.topFinding : null;
  // the headline: an error finding names what went wrong best; failed events say that
  // something did; a warning only when nothing worse is there
  const more = (n: number) => (n > 1 ? ` (+${(n - 1).toLocaleString("en-US")})` : "");
  const headline =
    errors > 0
      ? top
        ? `${top}${more(errors)}`
        : plural(errors, "error finding")
      : failedEvents > 0
        ? plural(failedEvents, "failed event")
        : warnings > 0
          ? top
            ? `${top}${more(warnings)}`
            : plural(warnings, "warning")
          : "";
  const label = headline ? (r.status ? `${r.status} · ${headline}` : headline) : r.status;
  let tone: HealthTone;
  if (r.status === "failed" || worst === "error" || failedEvents > 0) tone = "bad";
  else if (worst === "warning" || r.status === "cancelled") tone = "warn";
  else if (r.status === "running" || r.live) tone = "live";
  else if (r.status === "succeeded") tone = "good";
  else tone = "neutral";
  return {
    tone,
    label,
    detail: healthCounts(errors, warnings, failedEvents),
    worst,
    errors,
    warnings,
    failedEvents,
    healthy: tone === "good",
  };
}

/**
 * The finding a run's chip names: the first error (by seq, then rule id), else the first
 * warning. The runs list's query picks the same one in SQL (lib/server/queries.ts).
 */
export function topFinding<F extends { severity: string; seq: number; rule: string }>(findings: readonly F[]): F | null {
  let best: F | null = null;
  for (const f of findings) {
    if (best === null) best = f;
    else {
      const fe = f.severity === "error";
      const be = best.severity === "error";
      if (fe !== be ? fe : compareFindings(f, best) < 0) best = f;
    }
  }
  return best;
}

/** The tone of a findings count badge: coloured by the highest severity, not by "there are some". */
export function severityTone(worst: "error" | "warning" | null): HealthTone {
  return worst === "error" ? "bad" : worst === "warning" ? "warn" : "neutral";
}
