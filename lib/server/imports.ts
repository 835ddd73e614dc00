import "server-only";
/**
 * Auto-detecting import (UI upload, CLI, POST /api/imports) and the OTLP/HTTP receiver.
 * Journals go through the streaming ingest as they are; other trace formats are converted
 * by lib/importers and then ingested through the same validated path with fidelity
 * "trace". Spans received over OTLP are kept (redacted) per trace, and the trace's run is
 * re-derived from all of them on every request, since a trace arrives in many pieces.
 */
import { canonicalJson } from "../canonical";
import { readJournalBatches } from "../journal/reader";
import {
  detectFormat,
  DETECT_HEAD_BYTES,
  FORMAT_LABELS,
  ImportError,
  importTrace,
  spansFromOtlpJson,
  spansFromOtlpProtobuf,
  spansToRuns,
  type ImportedRun,
  type NormalizedSpan,
  type SourceFormat,
} from "../importers";
import { parseJsonExact } from "../journal/parse-line";
import type { Db } from "./db";
import { ingest } from "./ingest";
import { publishRunChanges } from "./changes";
import { ingestBytes, redactorFor, type IngestBytesResult } from "./service";

export type ImportBytesResult = IngestBytesResult & { detected?: { format: SourceFormat; label: string }; importWarnings?: string[] };

async function* one<T>(value: T): AsyncGenerator<T> {
  yield value;
}

function ndjsonOf(runs: ImportedRun[]): Uint8Array {
  return new TextEncoder().encode(runs.flatMap((r) => r.events.map((e) => canonicalJson(e))).join("\n") + "\n");
}

/**
 * Imports one file's bytes of any supported format. Journals stream; other formats are
 * JSON documents and are read whole (the importer needs the document), up to the body limit.
 */
export async function importBytes(db: Db, bytes: Uint8Array, fileName?: string): Promise<ImportBytesResult> {
  const head = new TextDecoder().decode(bytes.subarray(0, DETECT_HEAD_BYTES));
  const isGzip = bytes[0] === 0x1f && bytes[1] === 0x8b;
  const detected = isGzip ? { format: "retrace-journal" as const, label: FORMAT_LABELS["retrace-journal"] } : detectFormat(head, fileName);
  if (detected.format === "retrace-journal" || detected.format === "unknown") {
    const r = await ingestBytes(db, one(bytes), { mode: "upload", source: "import", warmViewer: true });
    return { ...r, detected };
  }
  let converted;
  try {
    converted = importTrace(new TextDecoder().decode(bytes), { fileName });
  } catch (e) {
    if (e instanceof ImportError) return { runs: [], errors: [], warnings: [], committed: false, unreadable: e.message, detected };
    throw e;
  }
  const r = await ingestBytes(db, one(ndjsonOf(converted.runs)), {
    mode: "upload",
    source: "import",
    fidelity: "trace",
    contiguousRuns: true,
    warmViewer: true,
  });
  return { ...r, detected, importWarnings: converted.warnings };
}

export class OtlpBadRequest extends Error {}

/** Decodes an OTLP/HTTP export request body (JSON or protobuf) into spans. */
export function decodeOtlp(bytes: Uint8Array, contentType: string): NormalizedSpan[] {
  const warnings: string[] = [];
  try {
    if (contentType.includes("protobuf")) return spansFromOtlpProtobuf(bytes, warnings);
    return spansFromOtlpJson(parseJsonExact(new TextDecoder("utf-8", { fatal: true }).decode(bytes)), warnings);
  } catch (e) {
    throw new OtlpBadRequest(`not a valid OTLP export request: ${e instanceof Error ? e.message.slice(0, 200) : "decode failed"}`);
  }
}

/** Stores spans (redacted) and re-derives the run of every trace they belong to. */
export async function receiveSpans(db: Db, spans: NormalizedSpan[]): Promise<{ runs: string[]; rejected: number }> {
  if (spans.length === 0) return { runs: [], rejected: 0 };
  const redactor = await redactorFor(db);
  const traces = [...new Set(spans.map((s) => s.traceId))];
  const runIds = traces.map((t) => `otel-${t}`);
  await db.sql.transaction(async (tx) => {
    for (const span of spans) {
      const stored = redactor.redact(span).value;
      const params = [span.traceId, span.spanId, `otel-${span.traceId}`, span.startTimeUnixNano, canonicalJson(stored)];
      await tx.run(
        `INSERT INTO "TraceSpan" ("traceId", "spanId", "runId", "startNs", "body") VALUES (?, ?, ?, ?, ?) ON CONFLICT ("traceId", "spanId") DO UPDATE SET "body" = excluded."body", "startNs" = excluded."startNs"`,
        params,
      );
    }
  });
  const result = await ingest(
    db.sql,
    redactor,
    async (tx) => {
      const all: NormalizedSpan[] = [];
      for (const trace of traces) {
        const rows = await tx.all<{ body: string }>(`SELECT "body" FROM "TraceSpan" WHERE "traceId" = ? ORDER BY "startNs", "spanId"`, [
          trace,
        ]);
        for (const r of rows) all.push(JSON.parse(r.body) as NormalizedSpan);
      }
      const runs = spansToRuns(all, { format: "otlp-json" });
      return readJournalBatches(one(ndjsonOf(runs)));
    },
    {
      mode: "upload",
      source: "otlp",
      fidelity: "trace",
      maxEventsPerRun: db.config.limits.maxEventsPerRun,
      lockRuns: runIds,
      replaceRuns: true,
      redactedBefore: true,
    },
  );
  const stored = result.runs.filter((r) => r.status === "stored").map((r) => r.run);
  await publishRunChanges(db, stored).catch(() => undefined);
  return { runs: stored, rejected: result.errors.length };
}
