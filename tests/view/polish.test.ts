/** The upload report's words and the runs list's relative times (lib/view/upload-text.ts, format.ts). */
import { describe, expect, it } from "vitest";
import type { RunOutcome, UploadAnswer } from "@/lib/view/api-types";
import { formatRelative } from "@/lib/view/format";
import { formatLine, nothingNew, runResultText, uploadedRunIds, uploadStatusText } from "@/lib/view/upload-text";

const run = (o: Partial<RunOutcome>): RunOutcome => ({
  run: "r1",
  status: "stored",
  accepted: 0,
  duplicates: 0,
  nextSeq: 0,
  findings: 0,
  ...o,
});
const answer = (runs: RunOutcome[], extra: Partial<UploadAnswer> = {}): UploadAnswer => ({ runs, errors: [], warnings: [], ...extra });

describe("upload report text", () => {
  it("a file stored before is 'already stored, nothing new', not 'stored'", () => {
    const dup = answer([run({ accepted: 0, duplicates: 44, nextSeq: 44 })]);
    expect(nothingNew(dup)).toBe(true);
    expect(uploadStatusText("done", 200, dup)).toBe("HTTP 200: already stored, nothing new");
    expect(runResultText(dup.runs![0])).toBe("already stored, nothing new");
    const fresh = answer([run({ accepted: 44, nextSeq: 44 })]);
    expect(uploadStatusText("done", 201, fresh)).toBe("HTTP 201: stored");
    expect(runResultText(fresh.runs![0])).toBe("stored 44 new events");
    expect(runResultText(run({ accepted: 1, duplicates: 3 }))).toBe("stored 1 new event (3 duplicates skipped)");
  });

  it("a rejected or unrecognised file is never 'imported', and an unknown format is never named", () => {
    expect(formatLine("failed", answer([], { format: "unknown", formatLabel: "Unknown format" }))).toBeNull();
    expect(formatLine("failed", answer([], { format: "langfuse", formatLabel: "Langfuse trace" }))).toBe(
      "Read as Langfuse trace; nothing was imported",
    );
    expect(formatLine("done", answer([run({ accepted: 5 })], { format: "langfuse", formatLabel: "Langfuse trace" }))).toBe(
      "Imported as Langfuse trace",
    );
    // stored, but every event was there already: read, not imported
    expect(formatLine("done", answer([run({ duplicates: 5 })], { format: "langfuse", formatLabel: "Langfuse trace" }))).toBe(
      "Read as Langfuse trace",
    );
    expect(uploadStatusText("failed", 415, answer([]), "the file's format was not recognised")).toBe(
      "HTTP 415: the file's format was not recognised",
    );
    expect(uploadStatusText("failed", 400, answer([], { errors: [{ line: 2, message: "x", kind: "invalid" }] }))).toBe(
      "HTTP 400: rejected, 1 error below",
    );
  });

  it("lists the stored runs of the newest upload first, each once, rejected ones left out", () => {
    const first = answer([run({ run: "a", accepted: 1 }), run({ run: "x", status: "rejected" })]);
    const second = answer([run({ run: "b", accepted: 1 }), run({ run: "a", duplicates: 1 })]);
    expect(uploadedRunIds([first, undefined, second])).toEqual(["b", "a"]);
  });
});

describe("formatRelative", () => {
  const now = Date.parse("2026-11-10T10:00:00Z");
  it("reads a time against now in the largest whole unit", () => {
    expect(formatRelative(now - 10_000, now)).toBe("just now");
    expect(formatRelative(now - 5 * 60_000, now)).toBe("5 minutes ago");
    expect(formatRelative(now - 3_600_000, now)).toBe("1 hour ago");
    expect(formatRelative(Date.parse("2026-11-07T10:00:00Z"), now)).toBe("3 days ago");
    expect(formatRelative(now - 400 * 86_400_000, now)).toBe("1 year ago");
    expect(formatRelative(now + 2 * 3_600_000, now)).toBe("in 2 hours");
  });
});
