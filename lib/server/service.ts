import "server-only";
/**
 * What route handlers and the CLI call: bytes in, an ingest result out. Keeps the
 * redactor per database and applies the configured limits.
 */
import { byteChunks, JournalReadError, maybeGunzip, readJournalBatches, type ByteSource } from "../journal/reader";
import { detectFormat, DETECT_HEAD_BYTES } from "../importers/detect";
import { peekBytes } from "../importers/stream/peek-bytes";
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
  /**
   * A server upload: build big runs' viewer summaries in this process's cache right
   * after, since the run is usually opened next. Pointless (and only slower) in the CLI.
   */
  warmViewer?: boolean;
}

export type IngestBytesResult = IngestResult & {
  tooLarge?: string;
  unreadable?: string;
  /** Set when the body is another trace format (nothing is stored). */
  format?: { format: string; message: string };
};

const WARM_SUMMARY_EVENTS = 5000;

export async function ingestBytes(db: Db, body: ByteSource, opts: IngestBytesOptions): Promise<IngestBytesResult> {
  const { limits } = db.config;
  const redactor = await redactorFor(db);
  try {
    const limited = limitBytes(body, limits.maxBodyBytes);
    // Gunzip before the second count so the limit also applies to what a body expands to.
    const peeked = await peekBytes(limitBytes(maybeGunzip(limited), limits.maxBodyBytes), DETECT_HEAD_BYTES);
    const stream = peeked.stream;
    const foreign = detectFormat(new TextDecoder().decode(peeked.head.subarray(0, DETECT_HEAD_BYTES)));
    if (foreign.format !== "retrace-journal" && foreign.format !== "unknown") {
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
      await publishRunChanges(
        db,
        stored.map((r) => r.run),
      ).catch(() => undefined);
      // A big upload is usually opened next: build its viewer summary now, off the
      // request, so the first screen does not wait for 100,000 rows to be aggregated.
      if (opts.mode === "upload" && opts.warmViewer) {
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
