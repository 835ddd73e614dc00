import "server-only";
/**
 * What route handlers and the CLI call: bytes in, an ingest result out (`importStream`).
 * Keeps the redactor per database and applies the configured limits.
 */
import { byteChunks, JournalReadError, readJournalBatches, type ByteSource } from "../journal/reader";
import { STREAM_HEAD_BYTES, UNKNOWN_FORMAT, type Detection } from "../importers/detect";
import { peekAndDetect } from "../importers/stream/peek-detect";
import type { SourceFormat } from "../importers/types";
import { redactMessage, type Redactor } from "../redact";
import type { Db } from "./db";
import { isBodyLimit, limitedBody } from "./body-limits";
import { ingest, LISTED_ISSUES, type BuiltSummary, type IngestOptions, type IngestResult } from "./ingest";
import { redactorFor } from "./redactors";
import { settleWhenIdle } from "./settle";
import { publishRunChanges } from "./changes";
import { prepareStoredSummary, STORED_SUMMARY_EVENTS, storeBuiltSummary } from "./viewer";

export { redactorFor };

interface ImportStreamOptions {
  /**
   * `journal`: Retrace journals only; another trace format is refused, named (`format`,
   * HTTP 415). `any`: trace exports are converted into runs of fidelity "trace", and a body
   * in no known format is refused the same way.
   */
  accept: "journal" | "any";
  /** The file's name (some formats derive run ids from it). */
  fileName?: string;
  /** `upload` (default): whole journals; `stream`: live append to `onlyRun`. */
  mode?: IngestOptions["mode"];
  onlyRun?: string;
  source: IngestOptions["source"];
  /** The project new runs go to (the edge authorized it; default "default"); a run id of another project is refused. */
  project?: string;
  /** A checked policy (canonical JSON) attached to the new runs (IngestOptions.policy). */
  policy?: string;
  /** Bytes of the body read so far (before gunzip). */
  onBytes?: (total: number) => void;
  /** Events stored so far. */
  onProgress?: (events: number) => void;
  /**
   * A server upload: build big runs' viewer summaries in this process's cache right
   * after, since the run is usually opened next. Pointless (and only slower) in the CLI.
   */
  warmViewer?: boolean;
  /**
   * The CLI: before answering, store the viewer summary of each stored run long enough to
   * keep one (so its first opening reads one blob, not its rows).
   */
  storeSummaries?: boolean;
}

export type ImportStreamResult = IngestResult & {
  tooLarge?: string;
  unreadable?: string;
  /** Set when the body is in a format this call does not accept (nothing is stored). */
  format?: { format: SourceFormat; message: string };
  /** The format detected on the first bytes. */
  detected?: Detection;
  /** What converting a trace export noticed (missing parents, synthetic times…). */
  importWarnings?: string[];
};

const WARM_SUMMARY_EVENTS = 5000;

/** Only spaces, tabs, CR and LF. */
function isBlank(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return false;
  return true;
}

async function* counted(source: ByteSource, onBytes: (total: number) => void): AsyncGenerator<Uint8Array> {
  let total = 0;
  for await (const chunk of byteChunks(source)) {
    total += chunk.length;
    onBytes(total);
    yield chunk;
  }
}

const nothing = (extra: Partial<ImportStreamResult>): ImportStreamResult => ({
  runs: [],
  errors: [],
  warnings: [],
  committed: false,
  ...extra,
});

/**
 * The one way bytes become runs: the UI upload, POST /api/imports, POST /api/journals, live
 * append and the CLI all come here. The body is read once, as a stream: the limit is
 * counted before and after gunzip, the format is detected once on the first bytes, and
 * those bytes are replayed into the same stream. Journals go to ingest line by line; a
 * trace export is converted (lib/server/import-stream.ts) into events that go to ingest as
 * reader items, with no NDJSON text in between.
 */
export async function importStream(db: Db, body: ByteSource, opts: ImportStreamOptions): Promise<ImportStreamResult> {
  const redactor = await redactorFor(db);
  const result = await importBody(db, redactor, body, opts);
  // What the reading and converting said quotes the input too (ingest's errors are redacted there).
  if (result.unreadable !== undefined) result.unreadable = redactMessage(result.unreadable, redactor);
  if (result.importWarnings) result.importWarnings = listedWarnings(result.importWarnings).map((w) => redactMessage(w, redactor));
  return result;
}

/** A converter's warnings as answered: the first LISTED_ISSUES, then how many more. */
function listedWarnings(all: string[]): string[] {
  if (all.length <= LISTED_ISSUES) return all;
  return [...all.slice(0, LISTED_ISSUES), `and ${(all.length - LISTED_ISSUES).toLocaleString("en-US")} more warnings`];
}

async function importBody(db: Db, redactor: Redactor, body: ByteSource, opts: ImportStreamOptions): Promise<ImportStreamResult> {
  const { limits } = db.config;
  let close: (() => void) | undefined;
  try {
    const raw = opts.onBytes ? counted(body, opts.onBytes) : body;
    // Counted on the wire and after gunzip (ratio-capped), while reading (body-limits.ts).
    const { head, stream, detected } = await peekAndDetect(limitedBody(raw, limits), opts.fileName);
    if (head.length === 0) return nothing({ unreadable: "the body is empty" });
    // the whole body is in the head, and it is blank: said, whatever the format asked for
    if (head.length < STREAM_HEAD_BYTES && isBlank(head)) return nothing({ unreadable: "the body holds no events, only blank lines" });
    const isJournal = detected.format === "retrace-journal" || (detected.format === "unknown" && opts.accept === "journal");
    if (!isJournal && opts.accept === "journal") {
      const message = `this looks like ${detected.label}, not a Retrace journal (NDJSON, one event per line; see /schema/journal-v1.json). Import trace formats with \`npm run -s retrace -- import FILE\` or the upload button.`;
      return nothing({ format: { format: detected.format, message }, detected });
    }
    if (!isJournal && detected.format === "unknown") {
      // the message quotes the file's keys: redacted like every other error that quotes input
      const message = redactMessage(detected.message ?? UNKNOWN_FORMAT, redactor);
      return nothing({ format: { format: "unknown", message }, detected });
    }

    const common: IngestOptions = {
      mode: opts.mode ?? "upload",
      onlyRun: opts.onlyRun,
      source: opts.source,
      project: opts.project,
      policy: opts.policy,
      maxEventsPerRun: limits.maxEventsPerRun,
      onProgress: opts.onProgress,
    };
    const summarize = opts.storeSummaries === true || (common.mode === "upload" && opts.warmViewer === true);
    // the summaries ingest builds as it writes new runs (PostgreSQL): no read-back after
    const built = new Map<string, BuiltSummary>();
    if (summarize) common.onSummary = (run, s) => void (s.eventCount >= STORED_SUMMARY_EVENTS && built.set(run, s));
    let result: ImportStreamResult;
    if (isJournal) {
      // already gunzipped (with its limits): a gzip inside is not inflated again
      const items = readJournalBatches(stream, { maxDepth: limits.maxDepth, maxLineBytes: limits.maxLineBytes }, { gunzip: false });
      // the whole body is in the head: a small transaction (a live append, most uploads from a recorder)
      const small = head.length < STREAM_HEAD_BYTES;
      // A small request to a server leaves a gap it fills late to be settled after it
      // (ingest/settle.ts); the CLI, which may exit at once, settles before it ends.
      const deferSettle = small && (opts.source === "stream" || opts.source === "upload");
      result = { ...(await ingest(db.sql, redactor, items, { ...common, small, deferSettle })), detected };
      if (deferSettle && result.committed)
        settleWhenIdle(
          db,
          result.runs.filter((r) => r.status === "stored").map((r) => r.run),
        );
    } else {
      // loaded on first use: journal uploads and CLI starts never pay for the importers
      const { openTrace } = await import("./import-stream");
      const trace = await openTrace(detected.format, stream, { fileName: opts.fileName, limits, redactor });
      if ("unreadable" in trace) return nothing({ unreadable: trace.unreadable, detected });
      close = trace.close;
      const r = await ingest(db.sql, redactor, trace.items, {
        ...common,
        fidelity: "trace",
        contiguousRuns: true,
        redactedBefore: trace.redacted,
      });
      // read after the ingest: deriving the runs added its warnings
      result = { ...r, detected, importWarnings: trace.warnings };
    }
    // a body of blank lines, or a trace export without a span: said, not an empty 400
    if (result.runs.length === 0 && result.errors.length === 0) {
      return { ...result, unreadable: isJournal ? "the body holds no events: send one JSON event per line" : "the file holds no runs" };
    }
    if (result.committed) {
      const stored = result.runs.filter((r) => r.status === "stored");
      await publishRunChanges(
        db,
        stored.map((r) => r.run),
      ).catch(() => undefined);
      // A big upload is usually opened next: build its viewer summary now, off the
      // request, so the first screen does not wait for 100,000 rows to be aggregated.
      if (summarize) {
        const summaries = async () => {
          for (const r of stored) {
            const b = built.get(r.run);
            if (b) await storeBuiltSummary(db, r.run, b);
            else if (r.accepted >= (opts.storeSummaries ? 1 : WARM_SUMMARY_EVENTS)) await prepareStoredSummary(db, r.run);
          }
        };
        if (opts.storeSummaries) await summaries();
        else void summaries().catch(() => undefined);
      }
    }
    return result;
  } catch (e) {
    if (isBodyLimit(e)) return nothing({ tooLarge: e.message });
    if (e instanceof JournalReadError) return nothing({ unreadable: e.message });
    throw e;
  } finally {
    close?.();
  }
}

interface IngestBytesOptions {
  mode: IngestOptions["mode"];
  project?: string;
  onlyRun?: string;
  source: IngestOptions["source"];
  onProgress?: (events: number) => void;
  warmViewer?: boolean;
}

/** A journal's bytes (upload or live append): `importStream` accepting journals only. */
export function ingestBytes(db: Db, body: ByteSource, opts: IngestBytesOptions): Promise<ImportStreamResult> {
  return importStream(db, body, { ...opts, accept: "journal" });
}
