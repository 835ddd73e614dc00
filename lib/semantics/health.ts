/**
 * A run's health for the runs list, the run header and compare: its status and its
 * findings read together, so a run that "succeeded" with an error finding is not shown as
 * plain green. The one place that decides colours by severity.
 */

export type HealthTone = "good" | "warn" | "bad" | "live" | "neutral";

export interface RunHealthInput {
  status: string;
  live?: boolean;
  /** all findings */
  findingCount: number;
  /** findings of severity error (the rest are warnings) */
  errorFindings: number;
}

export interface RunHealth {
  tone: HealthTone;
  /** "succeeded · 2 errors, 1 warning" */
  label: string;
  /** the highest severity among the findings, null without findings */
  worst: "error" | "warning" | null;
  errors: number;
  warnings: number;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}

export function runHealth(r: RunHealthInput): RunHealth {
  const errors = Math.max(0, r.errorFindings);
  const warnings = Math.max(0, r.findingCount - errors);
  const worst = errors > 0 ? "error" : warnings > 0 ? "warning" : null;
  const counts = [errors > 0 ? plural(errors, "error") : "", warnings > 0 ? plural(warnings, "warning") : ""].filter(Boolean).join(", ");
  const label = counts ? `${r.status} · ${counts}` : r.status;
  let tone: HealthTone;
  if (r.status === "failed" || worst === "error") tone = "bad";
  else if (worst === "warning" || r.status === "cancelled") tone = "warn";
  else if (r.status === "running" || r.live) tone = "live";
  else if (r.status === "succeeded") tone = "good";
  else tone = "neutral";
  return { tone, label, worst, errors, warnings };
}

/** The tone of a findings count badge: coloured by the highest severity, not by "there are some". */
export function severityTone(worst: "error" | "warning" | null): HealthTone {
  return worst === "error" ? "bad" : worst === "warning" ? "warn" : "neutral";
}
