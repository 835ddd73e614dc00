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

/** A message as a sentence: its first letter up, a full stop at its end. */
export function sentence(text: string): string {
  const t = text.trim();
  if (t === "") return t;
  const first = t[0].toLocaleUpperCase() + t.slice(1);
  return /[.!?…]$/.test(first) ? first : `${first}.`;
}

/**
 * The status line after the server answered, as a sentence ("Stored.", "Rejected: 2 errors
 * below."); the HTTP status is the element's title (`uploadStatusTitle`), not its words.
 */
export function uploadStatusText(phase: UploadPhase, answer: UploadAnswer | undefined, error?: string): string {
  if (phase === "done") {
    if (nothingNew(answer)) return "Already stored: nothing new.";
    return (answer?.runs ?? []).some((r) => r.status === "rejected") ? "Stored in part: the rejected runs are below." : "Stored.";
  }
  const errors = (answer?.errors?.length ?? 0) + (answer?.moreErrors ?? 0);
  if (errors > 0) return `Rejected: ${plural(errors, "error")} below.`;
  return sentence(error ?? "the upload failed");
}

/** The HTTP status of an answer, for the status line's title. */
export function uploadStatusTitle(status: number | undefined): string | undefined {
  return status === undefined ? undefined : `HTTP ${status}`;
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

/**
 * The file endings the upload picker offers: every kind of file the README's Supported
 * sources table lists (formats are told by content, so this only keeps the picker from
 * hiding a file Retrace reads).
 */
export const UPLOAD_EXTENSIONS = [".jsonl", ".ndjson", ".json", ".traj", ".eval", ".gz", ".md"] as const;

/** The picker's `accept`: the endings and their media types. */
export const UPLOAD_ACCEPT = [...UPLOAD_EXTENSIONS, "application/json", "application/x-ndjson", "application/gzip"].join(",");
