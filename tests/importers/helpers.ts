/** Shared helpers of the importer tests: fixtures and a per-run summary of a journal. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { JournalEvent } from "@/lib/journal/types";

export const CORPUS = fileURLToPath(new URL("../fixtures/corpus", import.meta.url));

export function readCorpus(rel: string): string {
  return readFileSync(path.join(CORPUS, rel), "utf8");
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
