/**
 * Appends events to an NDJSON file. Writes are batched and chained, so `write` returns at
 * once and lines land in seq order; `flush` waits for the chain.
 */
import { mkdirSync } from "node:fs";
import { appendFile } from "node:fs/promises";
import { dirname } from "node:path";
import { canonicalJson } from "../canonical";
import type { JournalEvent } from "../journal/types";
import { defaultReporter, type ErrorReporter, type Sink } from "./types";

export function fileSink(path: string, opts: { onError?: ErrorReporter } = {}): Sink {
  const report = opts.onError ?? defaultReporter;
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (e) {
    report(new Error(`cannot create the folder of ${path}: ${e instanceof Error ? e.message : String(e)}`));
  }
  let pending: string[] = [];
  let chain: Promise<void> = Promise.resolve();
  let scheduled = false;

  const drain = async () => {
    scheduled = false;
    const text = pending.join("");
    pending = [];
    if (!text) return;
    try {
      await appendFile(path, text, "utf8");
    } catch (e) {
      report(new Error(`cannot append to ${path}: ${e instanceof Error ? e.message : String(e)}`));
    }
  };

  const flush = async (timeoutMs = 10_000): Promise<boolean> => {
    const deadline = Date.now() + timeoutMs;
    while (pending.length > 0 || scheduled) {
      if (!scheduled) {
        scheduled = true;
        chain = chain.then(drain);
      }
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        chain.then(() => false),
        new Promise<boolean>((r) => {
          timer = setTimeout(() => r(true), left);
        }),
      ]);
      clearTimeout(timer);
      if (timedOut) return false;
    }
    await chain;
    return true;
  };

  return {
    write(event: JournalEvent) {
      try {
        pending.push(canonicalJson(event) + "\n");
      } catch (e) {
        report(new Error(`event ${event.seq} could not be serialised: ${e instanceof Error ? e.message : String(e)}`));
        return;
      }
      if (!scheduled) {
        scheduled = true;
        chain = chain.then(drain);
      }
    },
    flush,
    close: flush,
  };
}
