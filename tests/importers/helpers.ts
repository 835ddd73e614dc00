/** Shared helpers of the importer tests: fixtures and a per-run summary of a journal. */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import type { JournalEvent } from "@/lib/journal/types";

export const FIXTURES = fileURLToPath(new URL("../fixtures", import.meta.url));
export const CORPUS = path.join(FIXTURES, "corpus");

/**
 * A fixture's text, `rel` to tests/fixtures. A `.gz` one is inflated: files whose dataset asks
 * not to be reshared where crawlers read it (GAIA questions in TRAIL traces) are kept gzipped.
 */
export function readFixture(rel: string): string {
  const bytes = readFileSync(path.join(FIXTURES, rel));
  return (rel.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8");
}

export function readCorpus(rel: string): string {
  return readFixture(path.join("corpus", rel));
}

/** Every fixture file an importer could be given (gzipped or not), relative to tests/fixtures, with `/` separators. */
export function fixtureFiles(): string[] {
  return readdirSync(FIXTURES, { recursive: true, encoding: "utf8" })
    .filter((f) => /\.(json|jsonl|traj|md|history)(\.gz)?$/.test(f))
    .map((f) => f.split(path.sep).join("/"))
    .sort();
}

export interface RunSummary {
  steps: number;
  modelCalls: number;
  toolCalls: number;
  errors: number;
  /** tool results whose status is not `ok`. */
  toolFailures: Record<string, number>;
  inputTokens: number;
  outputTokens: number;
  retrievals: number;
  inputs: number;
  status: unknown;
}

export function summarize(events: JournalEvent[]): RunSummary {
  const s: RunSummary = {
    steps: 0,
    modelCalls: 0,
    toolCalls: 0,
    errors: 0,
    toolFailures: {},
    inputTokens: 0,
    outputTokens: 0,
    retrievals: 0,
    inputs: 0,
    status: undefined,
  };
  for (const e of events) {
    if (e.type === "step.start") s.steps++;
    if (e.type === "model.request") s.modelCalls++;
    if (e.type === "tool.call") s.toolCalls++;
    if (e.type === "error") s.errors++;
    if (e.type === "retrieval") s.retrievals++;
    if (e.type === "input") s.inputs++;
    if (e.type === "tool.result" && e.data.status !== "ok") {
      const st = String(e.data.status);
      s.toolFailures[st] = (s.toolFailures[st] ?? 0) + 1;
    }
    if (e.type === "model.response") {
      const u = e.data.usage as { inputTokens?: number; outputTokens?: number } | undefined;
      s.inputTokens += u?.inputTokens ?? 0;
      s.outputTokens += u?.outputTokens ?? 0;
    }
    if (e.type === "run.end") s.status = e.data.status;
  }
  return s;
}
