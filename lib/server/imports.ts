import "server-only";
/**
 * The OTLP/HTTP receiver. Spans received over OTLP are kept (redacted) per trace, and the
 * trace's run is re-derived from all of them on every request, since a trace arrives in
 * many pieces; its events go to ingest as reader items (lib/journal/event-items.ts).
 * Files (journals and trace exports) are imported by `importStream` in service.ts.
 */
import { canonicalJson } from "../canonical";
import { spansFromOtlpJson, spansFromOtlpProtobuf, spansToRuns, type NormalizedSpan } from "../importers";
import { eventBatches } from "../journal/event-items";
import { parseJsonExact } from "../journal/parse-line";
import { DEFAULT_READER_LIMITS } from "../journal/reader";
import type { Db } from "./db";
import { ingest } from "./ingest";
import { publishRunChanges } from "./changes";
import { redactMessage, type Redactor } from "../redact";
import { BodyTooLarge, limitBytes, redactorFor } from "./service";

export class OtlpBadRequest extends Error {}

/**
 * An OTLP request's body (a protobuf message is decoded whole), or null when it is over
 * `max` bytes: a declared length over it is refused unread, a longer body when it passes it.
 */
export async function readLimitedBody(req: Request, max: number): Promise<Uint8Array | null> {
  if (Number(req.headers.get("content-length") ?? "0") > max) return null;
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    if (!req.body) return new Uint8Array(0);
    for await (const chunk of limitBytes(req.body, max)) {
      parts.push(chunk);
      size += chunk.length;
    }
  } catch (e) {
    if (e instanceof BodyTooLarge) return null;
    throw e;
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Decodes an OTLP/HTTP export request body (JSON or protobuf) into spans. The error names
 * what was wrong without the body's secrets: JSON.parse quotes the first characters of
 * the text, cut where a secret may no longer look like one, so its message is not kept;
 * others are redacted (with the deployment's redactor when given).
 */
export function decodeOtlp(bytes: Uint8Array, contentType: string, redactor?: Redactor): NormalizedSpan[] {
  const warnings: string[] = [];
  try {
    if (contentType.includes("protobuf")) return spansFromOtlpProtobuf(bytes, warnings);
    return spansFromOtlpJson(parseJsonExact(new TextDecoder("utf-8", { fatal: true }).decode(bytes)), warnings);
  } catch (e) {
    const why =
      e instanceof SyntaxError
        ? "the body is not valid JSON"
        : e instanceof TypeError && /encoded data/i.test(e.message)
          ? "the body is not valid UTF-8"
          : e instanceof Error
            ? redactMessage(e.message, redactor).slice(0, 200)
            : "decode failed";
    throw new OtlpBadRequest(`not a valid OTLP export request: ${why}`);
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
      return eventBatches(runs, DEFAULT_READER_LIMITS);
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
