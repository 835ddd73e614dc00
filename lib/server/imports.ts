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
import { runProjectOf } from "./queries";
import { declaredTooLarge, readWholeBody } from "./body-limits";
import { loadConfig } from "./config";
import { redactorFor } from "./service";
import { redactMessage, type Redactor } from "../redact";

export class OtlpBadRequest extends Error {}

const otlpError = (status: number, error: string) => Response.json({ error }, { status });

/**
 * POST /v1/traces as one function (the route authorises, then calls this): the content
 * type (JSON or protobuf, else 415), the body read whole within the document limit
 * (RETRACE_MAX_DOCUMENT_BYTES; a protobuf message is decoded at once), counted while
 * reading on the wire and after gunzip (Content-Encoding gzip or a gzip body, ratio-capped),
 * a declared length over it refused unread (413); then the spans are stored and their
 * runs derived. Answers an ExportTraceServiceResponse.
 */
export async function answerOtlp(db: Db, req: Request, project: string): Promise<Response> {
  const type = (req.headers.get("content-type") ?? "").toLowerCase();
  const isProto = type.includes("protobuf");
  if (!isProto && !type.includes("json")) return otlpError(415, "send application/json or application/x-protobuf (OTLP/HTTP)");
  const limits = db.config.limits;
  const declared = declaredTooLarge(req.headers, limits.maxDocumentBytes, "RETRACE_MAX_DOCUMENT_BYTES");
  if (declared) return otlpError(413, declared);
  const bytes = await readWholeBody(req.body, limits);
  if (!(bytes instanceof Uint8Array)) return otlpError(413, bytes.tooLarge);
  let spans: NormalizedSpan[];
  try {
    spans = decodeOtlp(bytes, type, await redactorFor(db));
  } catch (e) {
    if (e instanceof OtlpBadRequest) return otlpError(400, e.message);
    throw e;
  }
  const { rejected } = await receiveSpans(db, spans, project);
  // ExportTraceServiceResponse: empty on success; partialSuccess names what was refused.
  if (isProto) return new Response(new Uint8Array(0), { status: 200, headers: { "content-type": "application/x-protobuf" } });
  return Response.json(
    rejected > 0 ? { partialSuccess: { rejectedSpans: rejected, errorMessage: "some spans could not be converted" } } : {},
  );
}

/**
 * An OTLP request's body, or null when it is over `max` bytes (kept for the route until
 * it calls answerOtlp): read as readWholeBody does, gunzipped with the ratio cap.
 */
export async function readLimitedBody(req: Request, max: number): Promise<Uint8Array | null> {
  if (declaredTooLarge(req.headers, max)) return null;
  const limits = loadConfig().limits;
  const bytes = await readWholeBody(req.body, { ...limits, maxDocumentBytes: Math.min(max, limits.maxDocumentBytes) });
  return bytes instanceof Uint8Array ? bytes : null;
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

/**
 * Stores spans (redacted) and re-derives the run of every trace they belong to, in
 * `project`. A trace whose run belongs to another project is refused whole: its spans are
 * neither stored nor mixed into that project's run.
 */
export async function receiveSpans(db: Db, all: NormalizedSpan[], project: string): Promise<{ runs: string[]; rejected: number }> {
  if (all.length === 0) return { runs: [], rejected: 0 };
  const redactor = await redactorFor(db);
  const foreign = new Set<string>();
  for (const trace of new Set(all.map((s) => s.traceId))) {
    const owner = await runProjectOf(db, `otel-${trace}`);
    if (owner !== null && owner !== project) foreign.add(trace);
  }
  const spans = foreign.size > 0 ? all.filter((s) => !foreign.has(s.traceId)) : all;
  if (spans.length === 0) return { runs: [], rejected: all.length };
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
      project,
      fidelity: "trace",
      maxEventsPerRun: db.config.limits.maxEventsPerRun,
      lockRuns: runIds,
      replaceRuns: true,
      redactedBefore: true,
    },
  );
  const stored = result.runs.filter((r) => r.status === "stored").map((r) => r.run);
  await publishRunChanges(db, stored).catch(() => undefined);
  return { runs: stored, rejected: result.errors.length + (all.length - spans.length) };
}
