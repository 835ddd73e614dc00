import "server-only";
/**
 * What route handlers and the CLI call: bytes in, an ingest result out. Keeps the
 * redactor per database and applies the configured limits.
 */
import { byteChunks, JournalReadError, maybeGunzip, readJournalBatches, type ByteSource } from "../journal/reader";
import { sniffForeignFormat } from "../journal/sniff";
import type { Fidelity } from "../journal/types";
import type { Redactor } from "../redact";
import type { Db } from "./db";
import { ingest, type IngestOptions, type IngestResult } from "./ingest";
import { loadRedactor } from "./settings";
import { publishRunChanges } from "./changes";
import { getRunSummaryCached } from "./viewer-queries";

const redactors = new WeakMap<Db, Promise<Redactor>>();

export function redactorFor(db: Db): Promise<Redactor> {
  let r = redactors.get(db);
  if (!r) {
    r = loadRedactor(db.sql);
    redactors.set(db, r);
    r.catch(() => redactors.delete(db));
  }
  return r;
}

export class BodyTooLarge extends Error {}

/** Counts bytes as they pass and stops at the limit (the body may be gzip: both sides count). */
export async function* limitBytes(source: ByteSource, max: number): AsyncGenerator<Uint8Array> {
  let total = 0;
  for await (const chunk of byteChunks(source)) {
    total += chunk.length;
    if (total > max) throw new BodyTooLarge(`request body is over ${max} bytes (RETRACE_MAX_BODY_BYTES)`);
    yield chunk;
  }
}


export interface IngestBytesOptions {
  mode: IngestOptions["mode"];
  onlyRun?: string;
  source: IngestOptions["source"];
  fidelity?: Fidelity;
  onProgress?: (events: number) => void;
  /** Each run's events come together (converted imports); see IngestOptions. */
  contiguousRuns?: boolean;
}

export type IngestBytesResult = IngestResult & {
  tooLarge?: string;
  unreadable?: string;
  /** Set when the body is another trace format (nothing is stored). */
  format?: { format: string; message: string };
};

const SNIFF_BYTES = 64 * 1024;
const WARM_SUMMARY_EVENTS = 5000;

/** Reads up to 64 KB ahead to recognise another format, then replays those bytes. */
async function sniffed(source: AsyncIterable<Uint8Array>): Promise<{ head: string; stream: AsyncIterable<Uint8Array> }> {
  const it = source[Symbol.asyncIterator]();
  const held: Uint8Array[] = [];
  let size = 0;
  while (size < SNIFF_BYTES) {
    const r = await it.next();
    if (r.done) break;
    held.push(r.value);
    size += r.value.length;
  }
  const head = new TextDecoder("utf-8", { fatal: false }).decode(concatBytes(held).subarray(0, SNIFF_BYTES));
  async function* replay() {
    yield* held;
    for (;;) {
      const r = await it.next();
      if (r.done) return;
      yield r.value;
    }
  }
  return { head, stream: replay() };
}

function concatBytes(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export async function ingestBytes(db: Db, body: ByteSource, opts: IngestBytesOptions): Promise<IngestBytesResult> {
  const { limits } = db.config;
  const redactor = await redactorFor(db);
  try {
    const limited = limitBytes(body, limits.maxBodyBytes);
    // Gunzip before the second count so the limit also applies to what a body expands to.
    const { head, stream } = await sniffed(limitBytes(maybeGunzip(limited), limits.maxBodyBytes));
    const foreign = sniffForeignFormat(head);
    if (foreign) {
      const message = `this looks like ${foreign.label}, not a Retrace journal (NDJSON, one event per line; see /schema/journal-v1.json). Import trace formats with \`npm run -s retrace -- import FILE\` or the upload button.`;
      return { runs: [], errors: [], warnings: [], committed: false, format: { format: foreign.format, message } };
    }
    const items = readJournalBatches(stream, {
      maxDepth: limits.maxDepth,
      maxLineBytes: limits.maxLineBytes,
    });
    const result = await ingest(db.sql, redactor, items, { ...opts, maxEventsPerRun: limits.maxEventsPerRun });
    if (result.committed) {
      const stored = result.runs.filter((r) => r.status === "stored");
      await publishRunChanges(db, stored.map((r) => r.run)).catch(() => undefined);
      // A big upload is usually opened next: build its viewer summary now, off the
      // request, so the first screen does not wait for 100,000 rows to be aggregated.
      if (opts.mode === "upload") {
        for (const r of stored) if (r.accepted >= WARM_SUMMARY_EVENTS) void getRunSummaryCached(db, r.run, -1).catch(() => undefined);
      }
    }
    return result;
  } catch (e) {
    if (e instanceof BodyTooLarge) return { runs: [], errors: [], warnings: [], committed: false, tooLarge: e.message };
    if (e instanceof JournalReadError) return { runs: [], errors: [], warnings: [], committed: false, unreadable: e.message };
    throw e;
  }
}
