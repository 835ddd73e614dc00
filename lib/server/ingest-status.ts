import "server-only";
import type { ImportStreamResult } from "./service";

/**
 * The HTTP status an ingest result means: 201 all stored, 207 some runs stored and some
 * rejected, 200 nothing new (only duplicates); when nothing was stored: 413 for a limit,
 * 409 for a conflict at a taken seq, 415 for another format, 400 otherwise.
 */
export function ingestStatus(r: ImportStreamResult, mode: "upload" | "stream"): number {
  if (r.tooLarge) return 413;
  if (r.format) return 415;
  if (r.unreadable) return 400;
  const stored = r.runs.filter((x) => x.status === "stored");
  const rejected = r.runs.filter((x) => x.status === "rejected");
  if (stored.length > 0 && (rejected.length > 0 || r.errors.length > 0)) return 207;
  if (stored.length > 0) {
    const accepted = stored.reduce((n, x) => n + x.accepted, 0);
    return accepted > 0 && mode === "upload" ? 201 : 200;
  }
  if (r.errors.length === 0) return 400;
  if (r.errors.some((e) => e.kind === "limit")) return 413;
  if (r.errors.some((e) => e.kind === "conflict")) return 409;
  return 400;
}
