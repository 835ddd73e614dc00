/**
 * What the upload report says about one file, in words that match what happened: a file
 * whose events were all stored before is "already stored, nothing new", a rejected file is
 * never "imported", an unrecognised format is never named as one.
 */
import type { RunOutcome, UploadAnswer } from "./api-types";
import { plural } from "../semantics";

type UploadPhase = "sending" | "storing" | "done" | "failed";

/** True when the file was stored and every event in it was there already. */
export function nothingNew(answer: UploadAnswer | undefined): boolean {
  const runs = answer?.runs ?? [];
  return runs.length > 0 && runs.every((r) => r.status === "stored" && r.accepted === 0 && r.duplicates > 0);
}

/** The status line after the server answered. */
export function uploadStatusText(phase: UploadPhase, status: number | undefined, answer: UploadAnswer | undefined, error?: string): string {
  const http = `HTTP ${status ?? "—"}`;
  if (phase === "done") {
    if (nothingNew(answer)) return `${http}: already stored, nothing new`;
    return `${http}: ${status === 207 ? "partly stored" : "stored"}`;
  }
  const errors = answer?.errors?.length ?? 0;
  if (errors > 0) return `${http}: rejected, ${plural(errors, "error")} below`;
  return `${http}: ${error ?? "failed"}`;
}

/** "Imported as Langfuse trace" when something was stored from a recognised format, "Read as …" when not; null otherwise. */
export function formatLine(phase: UploadPhase, answer: UploadAnswer | undefined): string | null {
  const label = answer?.formatLabel;
  const format = answer?.format;
  if (!label || !format || format === "retrace-journal" || format === "unknown" || /^unknown\b/i.test(label)) return null;
  const stored = (answer.runs ?? []).some((r) => r.status === "stored" && r.accepted > 0);
  if (phase === "done" && stored) return `Imported as ${label}`;
  return phase === "failed" ? `Read as ${label}; nothing was imported` : `Read as ${label}`;
}

/** One run's result: "stored 44 new events", "already stored, nothing new", "rejected". */
export function runResultText(r: RunOutcome): string {
  if (r.status === "rejected") return "rejected";
  if (r.accepted === 0 && r.duplicates > 0) return "already stored, nothing new";
  return `stored ${plural(r.accepted, "new event")}${r.duplicates > 0 ? ` (${plural(r.duplicates, "duplicate")} skipped)` : ""}`;
}

/** Runs stored from the uploads, newest upload first: the list shows them first. */
export function uploadedRunIds(answers: ReadonlyArray<UploadAnswer | undefined>): string[] {
  const out: string[] = [];
  for (let i = answers.length - 1; i >= 0; i--)
    for (const r of answers[i]?.runs ?? []) if (r.status === "stored" && !out.includes(r.run)) out.push(r.run);
  return out;
}
