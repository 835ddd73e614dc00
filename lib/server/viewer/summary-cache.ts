import "server-only";
/**
 * The packed summaries kept warm: a few in memory per process, and runs past
 * STORED_SUMMARY_EVENTS stored in the database (RunSummaryBlob) when ingest built them.
 */
import { gzipSync } from "node:zlib";
import type { Db } from "../db";
import type { BuiltSummary } from "../ingest/types";
import { isRunId, runVersion } from "../queries";
import { getRunSummaryBinary, getRunSummaryText } from "./summary";

interface PackedSummary {
  gzip: Uint8Array<ArrayBuffer>;
}

/** Runs at least this long keep their built summary in the database (RunSummaryBlob). */
export const STORED_SUMMARY_EVENTS = 5000;

interface CachedSummary {
  key: string;
  body: Promise<string | PackedSummary | null>;
}
const summaryCache: CachedSummary[] = [];
const SUMMARY_CACHE_SIZE = 8;

const versionOf = (run: { updatedAt: number; eventCount: number; droppedAt: number }) =>
  `${run.updatedAt}|${run.eventCount}|${run.droppedAt}`;

function pack(bytes: Uint8Array<ArrayBuffer>): PackedSummary {
  // level 1: a million events' columns (~32 MB) shrink about 7× in a third of a second
  return { gzip: new Uint8Array(gzipSync(bytes, { level: 1 })) };
}

/**
 * The packed binary summary of a whole run at `version`: the stored one when it was built
 * at that version, else built from the events (and stored, for long runs). Building reads
 * every event row of the run (seconds at a million); reading the stored one, one blob.
 */
async function packedSummary(db: Db, runId: string, version: string, eventCount: number): Promise<PackedSummary | null> {
  const stored = await db.sql.all<{ version: string; bytes: Uint8Array }>(
    `SELECT "version", "bytes" FROM "RunSummaryBlob" WHERE "runId" = ?`,
    [runId],
  );
  if (stored[0] && stored[0].version === version) {
    return { gzip: new Uint8Array(stored[0].bytes) };
  }
  // sized for the run at once: no column grown by copying
  const bytes = await getRunSummaryBinary(db, runId, -1, eventCount);
  if (bytes === null) return null;
  const packed = pack(bytes);
  // a summary built from rows newer than `version` is stored under the older version:
  // it is then rebuilt once more, never served for a version it does not match
  if (eventCount >= STORED_SUMMARY_EVENTS) await storeSummaryBlob(db, runId, version, packed);
  return packed;
}

async function storeSummaryBlob(db: Db, runId: string, version: string, packed: PackedSummary): Promise<void> {
  await db.sql
    .transaction((tx) =>
      tx.run(
        `INSERT INTO "RunSummaryBlob" ("runId", "version", "bytes") VALUES (?, ?, ?) ON CONFLICT ("runId") DO UPDATE SET "version" = excluded."version", "bytes" = excluded."bytes"`,
        [runId, version, packed.gzip],
      ),
    )
    .catch(() => undefined); // the run was deleted meanwhile, or the database is read-only: serve it anyway
}

/**
 * Stores (for long runs) and caches the summary ingest built as it wrote a new run
 * (IngestOptions.onSummary), at the version the run had when that transaction committed,
 * instead of reading every row back: a later change to the run makes it stale, as any
 * stored summary. False when the run is too short to keep one.
 */
export async function storeBuiltSummary(db: Db, runId: string, built: BuiltSummary): Promise<boolean> {
  if (built.eventCount < STORED_SUMMARY_EVENTS) return false;
  const version = versionOf(built);
  const packed = pack(built.bytes);
  await storeSummaryBlob(db, runId, version, packed);
  const key = `${runId}|binary|${version}`;
  const old = summaryCache.findIndex((c) => c.key.startsWith(`${runId}|binary|`));
  if (old >= 0) summaryCache.splice(old, 1);
  summaryCache.push({ key, body: Promise.resolve(packed) });
  if (summaryCache.length > SUMMARY_CACHE_SIZE) summaryCache.shift();
  return true;
}

/**
 * Builds and stores the run's summary now when the run is long enough to keep one (after
 * an import, so its first opening reads one blob); false when it is not.
 */
export async function prepareStoredSummary(db: Db, runId: string): Promise<boolean> {
  const run = await runVersion(db, runId);
  if (!run || run.eventCount < STORED_SUMMARY_EVENTS) return false;
  return (await getRunSummaryCached(db, runId, -1, "binary")) !== null;
}

/**
 * The summary, and for whole runs cached per process until the run changes: a run looked
 * at again is served without reading its events, and a request that comes while the same
 * summary is being built waits for that build instead of starting another. JSON text
 * (`next start` compresses it) or the packed binary form; `after` reads only later events.
 */
export function getRunSummaryCached(db: Db, runId: string, after: number): Promise<string | null>;
export function getRunSummaryCached(db: Db, runId: string, after: number, format: "binary"): Promise<PackedSummary | null>;
export async function getRunSummaryCached(
  db: Db,
  runId: string,
  after: number,
  format: "json" | "binary" = "json",
): Promise<string | PackedSummary | null> {
  if (!isRunId(runId)) return null;
  const run = await runVersion(db, runId);
  if (!run || run.eventCount === 0) return null;
  if (after >= 0) {
    if (format === "json") return getRunSummaryText(db, runId, after);
    const bytes = await getRunSummaryBinary(db, runId, after);
    return bytes && pack(bytes);
  }
  // a payload drop leaves updatedAt as it was (retention counts from it): its time is in the version
  const version = versionOf(run);
  const key = `${runId}|${format}|${version}`;
  const hit = summaryCache.find((c) => c.key === key);
  if (hit) return hit.body;
  const old = summaryCache.findIndex((c) => c.key.startsWith(`${runId}|${format}|`));
  if (old >= 0) summaryCache.splice(old, 1);
  const entry: CachedSummary = {
    key,
    body: format === "json" ? getRunSummaryText(db, runId, -1) : packedSummary(db, runId, version, run.eventCount),
  };
  summaryCache.push(entry);
  if (summaryCache.length > SUMMARY_CACHE_SIZE) summaryCache.shift();
  // a failed build is not kept
  entry.body.catch(() => {
    const i = summaryCache.indexOf(entry);
    if (i >= 0) summaryCache.splice(i, 1);
  });
  return entry.body;
}
