/** The upload report's words and the runs list's relative times (lib/view/upload-text.ts, format.ts). */
import { describe, expect, it } from "vitest";
import type { RunOutcome, UploadAnswer } from "@/lib/view/api-types";
import { formatRelative } from "@/lib/view/format";
import { readFileSync } from "node:fs";
import {
  formatLine,
  nothingNew,
  runResultText,
  UPLOAD_ACCEPT,
  UPLOAD_EXTENSIONS,
  uploadedRunIds,
  uploadStatusText,
  uploadStatusTitle,
} from "@/lib/view/upload-text";

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
    expect(uploadStatusText("done", dup)).toBe("Already stored: nothing new.");
    expect(runResultText(dup.runs![0])).toBe("already stored, nothing new");
    const fresh = answer([run({ accepted: 44, nextSeq: 44 })]);
    expect(uploadStatusText("done", fresh)).toBe("Stored.");
    expect(uploadStatusText("done", answer([run({ accepted: 2 }), run({ run: "r2", status: "rejected" })]))).toBe(
      "Stored in part: the rejected runs are below.",
    );
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
    // a failure is a sentence; the status code is the line's title, not its first words
    expect(uploadStatusText("failed", answer([]), "the file's format was not recognised")).toBe("The file's format was not recognised.");
    expect(uploadStatusTitle(415)).toBe("HTTP 415");
    expect(uploadStatusText("failed", answer([], { errors: [{ line: 2, message: "x", kind: "invalid" }] }))).toBe(
      "Rejected: 1 error below.",
    );
  });

  it("the upload picker offers every kind of file the README's Supported sources table lists", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const table = readme.slice(readme.indexOf("## Supported sources"), readme.indexOf("### Sending traces"));
    // the second column of each row: the file the source writes
    const files = table
      .split("\n")
      .filter((l) => l.startsWith("| ") && !l.startsWith("| source") && !l.startsWith("|---"))
      .map((l) => l.split("|")[2] ?? "");
    const endings = new Set(
      files.flatMap((f) => [...f.matchAll(/\.(jsonl|ndjson|json|traj|eval|gz|zip|md|db|history)\b/g)].map((m) => `.${m[1]}`)),
    );
    expect(endings.size).toBeGreaterThan(3);
    for (const e of endings) expect(UPLOAD_EXTENSIONS).toContain(e);
    for (const e of UPLOAD_EXTENSIONS) expect(UPLOAD_ACCEPT.split(",")).toContain(e);
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
