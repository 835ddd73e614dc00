import "server-only";
/**
 * The OTLP/HTTP receiver. Spans received over OTLP are kept (redacted) per trace, and the
 * trace's run is re-derived from all of them on every request, since a trace arrives in
 * many pieces; its events go to ingest as reader items (lib/journal/event-items.ts).
 * Files (journals and trace exports) are imported by `importStream` in service.ts.
 */
import { canonicalJson, sha256Hex } from "../canonical";
import {
  encodeExportTraceServiceResponse,
  modelCallSignature,
  spansFromOtlpJson,
  spansFromOtlpProtobuf,
  spansToRuns,
  type NormalizedSpan,
  type OpenToolCall,
} from "../importers";
import { eventBatches } from "../journal/event-items";
import { parseJsonExact } from "../journal/parse-line";
import { DEFAULT_READER_LIMITS } from "../journal/reader";
import type { Db } from "./db";
import type { SqlTx } from "./sql";
import type { ImportedRun } from "../importers/types";
import type { JournalEvent, Seq } from "../journal/types";
import { ingest } from "./ingest";
import { publishRunChanges } from "./changes";
import { runProjectOf } from "./queries";
import { declaredTooLarge, readWholeBody } from "./body-limits";
import { loadConfig } from "./config";
import { redactorFor } from "./service";
import { redactMessage, type Redactor } from "../redact";

class OtlpBadRequest extends Error {}

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
  let decoded: NormalizedSpan[];
  const skipped: string[] = [];
  try {
    decoded = decodeOtlp(bytes, type, await redactorFor(db), skipped);
  } catch (e) {
    if (e instanceof OtlpBadRequest) return otlpError(400, e.message);
    throw e;
  }
  const spans = decoded.filter(hasValidIds);
  // spans without ids (dropped by decoding) or with ids OTLP does not allow
  const invalid = skipped.length + decoded.length - spans.length;
  const { rejected } = await receiveSpans(db, spans, project, { contentType: req.headers.get("content-type") ?? "" });
  const why = [
    invalid > 0 ? `${invalid} span(s) have no valid trace id or span id (16 and 8 bytes, not all zeros) and were not stored` : "",
    rejected > 0 ? `${rejected} span(s) could not be converted` : "",
  ].filter(Boolean);
  // ExportTraceServiceResponse: empty on success; partialSuccess names what was refused.
  const partial = invalid + rejected > 0 ? { rejectedSpans: invalid + rejected, errorMessage: why.join("; ") } : undefined;
  if (isProto)
    return new Response(encodeExportTraceServiceResponse(partial) as Uint8Array<ArrayBuffer>, {
      status: 200,
      headers: { "content-type": "application/x-protobuf" },
    });
  return Response.json(partial ? { partialSuccess: partial } : {});
}

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;

/** The ids OTLP allows: a trace id of 16 bytes and a span id of 8, neither all zeros. */
function hasValidIds(s: NormalizedSpan): boolean {
  return TRACE_ID.test(s.traceId) && SPAN_ID.test(s.spanId) && /[1-9a-f]/.test(s.traceId) && /[1-9a-f]/.test(s.spanId);
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
 * others are redacted (with the deployment's redactor when given). `skipped` gets one
 * line per span dropped for want of ids.
 */
export function decodeOtlp(bytes: Uint8Array, contentType: string, redactor?: Redactor, skipped: string[] = []): NormalizedSpan[] {
  // decoding warns only of the spans it skips (no trace id or span id): one each
  const warnings = skipped;
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

/** How a trace's spans arrived: kept per trace, so the next request can be appended without reading the trace. */
interface TraceState {
  /** Parent ids named by stored spans that have not arrived (they would have to come before them). */
  missing: string[];
  /** The last top-level step appended: its start's millisecond and its end (ns), for sibling order. */
  lastMs?: string;
  lastEnd?: string;
  /** A root span has arrived (the trace is complete). */
  root: boolean;
  /** The content type of the trace's first request, as it came. */
  contentType: string;
  /** Ended without its root (idle): the next span derives the trace again. */
  ended?: boolean;
  /**
   * The latest top-level model calls (what they were asked, their times in ns): a request
   * holding a second instrumentation of one of them (the same messages at overlapping
   * times, e.g. LangChain + OpenAI) derives the trace again, so the call is counted once.
   */
  calls?: ModelCallMark[];
  /** Tool calls the trace's model responses requested that no tool span has answered yet (`OpenToolCall`, the latest 32). */
  open?: OpenToolCall[];
}

interface ModelCallMark {
  /** Hash of `modelCallSignature`. */
  sig: string;
  start: string;
  end: string;
}

/** How many top-level model calls the state remembers: twins end close together. */
const CALL_MARKS = 16;

function callMarks(spans: NormalizedSpan[]): ModelCallMark[] {
  const out: ModelCallMark[] = [];
  for (const s of spans) {
    const sig = modelCallSignature(s);
    // hashed: the state row stays small whatever the prompts hold
    if (sig !== undefined) out.push({ sig: sha256Hex(sig).slice(0, 32), start: s.startTimeUnixNano, end: s.endTimeUnixNano });
  }
  return out;
}

function twinOf(marks: ModelCallMark[], news: ModelCallMark[]): boolean {
  return news.some((n) => marks.some((m) => m.sig === n.sig && BigInt(m.start) <= BigInt(n.end) && BigInt(n.start) <= BigInt(m.end)));
}

/** The trace's state row in TraceSpan: span ids are 16 hex digits, so the empty one is free. */
const STATE_ID = "";
const MS = 1_000_000n;

interface ReceiveOptions {
  /** The request's Content-Type as sent (recorded in run.start `source.contentType`). */
  contentType?: string;
  /** Now, in ms (tests). */
  now?: number;
}

const formatOf = (contentType: string) => (contentType.toLowerCase().includes("protobuf") ? "otlp-protobuf" : "otlp-json");

/** Top-level spans of a set (their parent is not in it), with what the state keeps of the last. */
function topLevel(spans: NormalizedSpan[]): { missing: string[]; last?: { ms: bigint; end: bigint } } {
  const ids = new Set(spans.map((s) => s.spanId));
  const missing = new Set<string>();
  let last: { ms: bigint; end: bigint } | undefined;
  for (const s of spans) {
    if (s.parentSpanId && ids.has(s.parentSpanId)) continue;
    if (s.parentSpanId) missing.add(s.parentSpanId);
    const ms = BigInt(s.startTimeUnixNano) / MS;
    const end = BigInt(s.endTimeUnixNano);
    if (!last || ms > last.ms || (ms === last.ms && end > last.end)) last = { ms, end };
  }
  return { missing: [...missing], last };
}

/** The spans of a set whose parent is not in it. */
function topSpans(spans: NormalizedSpan[]): NormalizedSpan[] {
  const ids = new Set(spans.map((s) => s.spanId));
  return spans.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId));
}

function stateOf(spans: NormalizedSpan[], contentType: string): TraceState {
  const { missing, last } = topLevel(spans);
  const state: TraceState = { missing, root: spans.some((s) => !s.parentSpanId), contentType };
  const tops = topSpans(spans).sort((a, b) => (BigInt(a.endTimeUnixNano) < BigInt(b.endTimeUnixNano) ? -1 : 1));
  const calls = callMarks(tops).slice(-CALL_MARKS);
  if (calls.length > 0) state.calls = calls;
  if (last) {
    state.lastMs = last.ms.toString();
    state.lastEnd = last.end.toString();
  }
  return state;
}

/**
 * Stores spans (redacted) and gives each trace they belong to its events, in `project`.
 * A trace whose run belongs to another project is refused whole: its spans are neither
 * stored nor mixed into that project's run.
 *
 * Incremental: a request whose spans go after everything the trace holds (in causal order:
 * none of them is the parent of a stored span or a child of one, its top-level spans start
 * after the last one appended, no root span) is appended to the run, derived from its own
 * spans alone, so its cost does not grow with the trace. Otherwise (the root arrives, a
 * parent after its children, a span out of order or changed) the run is derived again from
 * every stored span (`spansToRuns`, a pure function of the set). Until the root arrives the
 * run has no run.end and shows as live; finishIdleTraces ends it after RETRACE_OTLP_IDLE_SECONDS.
 */
export async function receiveSpans(
  db: Db,
  all: NormalizedSpan[],
  project: string,
  opts: ReceiveOptions = {},
): Promise<{ runs: string[]; rejected: number }> {
  await finishIdleTraces(db, opts.now).catch(() => undefined);
  if (all.length === 0) return { runs: [], rejected: 0 };
  const contentType = opts.contentType ?? "application/json";
  const redactor = await redactorFor(db);
  const foreign = new Set<string>();
  for (const trace of new Set(all.map((s) => s.traceId))) {
    const owner = await runProjectOf(db, `otel-${trace}`);
    if (owner !== null && owner !== project) foreign.add(trace);
  }
  const spans = foreign.size > 0 ? all.filter((s) => !foreign.has(s.traceId)) : all;
  if (spans.length === 0) return { runs: [], rejected: all.length };
  const byTrace = new Map<string, NormalizedSpan[]>();
  for (const s of spans) {
    const stored = redactor.redact(s).value;
    const list = byTrace.get(s.traceId) ?? [];
    list.push(stored);
    byTrace.set(s.traceId, list);
  }
  const runIds = [...byTrace.keys()].map((t) => `otel-${t}`);
  const result = await ingest(
    db.sql,
    redactor,
    async (tx) => {
      const runs: ImportedRun[] = [];
      for (const [trace, list] of byTrace) runs.push(...(await traceEvents(tx, trace, list, contentType)));
      return eventBatches(runs, DEFAULT_READER_LIMITS);
    },
    {
      // stream: a run without run.end is live (its root has not arrived)
      mode: "stream",
      source: "otlp",
      project,
      fidelity: "trace",
      maxEventsPerRun: db.config.limits.maxEventsPerRun,
      lockRuns: runIds,
      redactedBefore: true,
      // a rejected trace leaves nothing: neither its spans nor a half-cleared run
      atomic: true,
    },
  );
  const stored = result.runs.filter((r) => r.status === "stored").map((r) => r.run);
  await publishRunChanges(db, stored).catch(() => undefined);
  return { runs: stored, rejected: result.errors.length + (all.length - spans.length) };
}

/** One trace's part of a request (inside ingest's transaction, its run locked): stores the spans, gives the events to add. */
async function traceEvents(tx: SqlTx, trace: string, incoming: NormalizedSpan[], contentType: string): Promise<ImportedRun[]> {
  const runId = `otel-${trace}`;
  // one copy per span id (a request may repeat one): the last wins, as the upsert below would
  const fresh = new Map<string, NormalizedSpan>();
  for (const s of incoming) fresh.set(s.spanId, s);
  const ids = [...fresh.keys()];
  const known = new Map<string, string>();
  for (const chunk of chunks([STATE_ID, ...ids])) {
    const rows = await tx.all<{ spanId: string; body: string }>(
      `SELECT "spanId", "body" FROM "TraceSpan" WHERE "traceId" = ? AND "spanId" IN (${chunk.map(() => "?").join(", ")})`,
      [trace, ...chunk],
    );
    for (const r of rows) known.set(r.spanId, r.body);
  }
  const stateText = known.get(STATE_ID);
  const state = stateText ? (JSON.parse(stateText) as TraceState) : undefined;
  const news: NormalizedSpan[] = [];
  let changed = false;
  for (const s of fresh.values()) {
    const before = known.get(s.spanId);
    if (before === undefined) news.push(s);
    else if (before !== canonicalJson(s)) changed = true;
  }
  if (news.length === 0 && !changed) return [];
  const events = await tx.all<{ n: number }>(`SELECT "eventCount" AS "n" FROM "Run" WHERE "id" = ?`, [runId]);
  const hasEvents = events.length > 0 && Number(events[0].n) > 0;

  let append = hasEvents && state !== undefined && !state.root && !state.ended && !changed && !news.some((s) => !s.parentSpanId);
  if (append && state) {
    const missing = new Set(state.missing);
    if (news.some((s) => missing.has(s.spanId))) append = false;
    const newIds = new Set(news.map((s) => s.spanId));
    const parents = [...new Set(news.flatMap((s) => (s.parentSpanId && !newIds.has(s.parentSpanId) ? [s.parentSpanId] : [])))];
    const outside = parents.filter((p) => !missing.has(p));
    for (const chunk of chunks(outside)) {
      if (!append) break;
      const rows = await tx.all<{ spanId: string }>(
        `SELECT "spanId" FROM "TraceSpan" WHERE "traceId" = ? AND "spanId" IN (${chunk.map(() => "?").join(", ")})`,
        [trace, ...chunk],
      );
      if (rows.length > 0) append = false;
    }
    const first = topLevel(news);
    const newCalls = append ? callMarks(topSpans(news)) : [];
    if (append && newCalls.length > 0 && twinOf(state.calls ?? [], newCalls)) append = false;
    if (append && state.lastMs !== undefined && state.lastEnd !== undefined) {
      // the request's first top-level step must not sort before the last one appended
      const ids2 = new Set(news.map((s) => s.spanId));
      for (const s of news) {
        if (s.parentSpanId && ids2.has(s.parentSpanId)) continue;
        const ms = BigInt(s.startTimeUnixNano) / MS;
        const lastMs = BigInt(state.lastMs);
        if (ms < lastMs || (ms === lastMs && BigInt(s.endTimeUnixNano) < BigInt(state.lastEnd))) append = false;
      }
    }
    if (append) {
      await storeSpans(tx, runId, news);
      // a tool span here may answer a call requested by a response stored before
      const toolCalls = { open: state.open ?? [] };
      const run = await appendedRun(tx, runId, news, state.contentType, toolCalls);
      const next: TraceState = { ...state, missing: [...new Set([...state.missing, ...first.missing])] };
      if (toolCalls.open.length > 0) next.open = toolCalls.open;
      else delete next.open;
      if (newCalls.length > 0) next.calls = [...(state.calls ?? []), ...newCalls].slice(-CALL_MARKS);
      if (first.last) {
        next.lastMs = first.last.ms.toString();
        next.lastEnd = first.last.end.toString();
      }
      await storeState(tx, trace, runId, next);
      return [run];
    }
  }

  // Derive the whole trace again from every stored span.
  await storeSpans(tx, runId, [...fresh.values()]);
  const rows = await tx.all<{ body: string }>(
    `SELECT "body" FROM "TraceSpan" WHERE "traceId" = ? AND "spanId" <> ? ORDER BY "startNs", "spanId"`,
    [trace, STATE_ID],
  );
  const spans = rows.map((r) => JSON.parse(r.body) as NormalizedSpan);
  const firstType = state?.contentType ?? contentType;
  const toolCalls = { open: [] as OpenToolCall[] };
  const runs = spansToRuns(spans, { format: formatOf(firstType), liveWithoutRoot: true, contentType: firstType, toolCalls });
  const next = stateOf(spans, firstType);
  if (toolCalls.open.length > 0) next.open = toolCalls.open;
  await storeState(tx, trace, runId, next);
  if (hasEvents) await clearRun(tx, runId);
  return runs;
}

/** The events of spans appended to a live run: derived from them alone, numbered after the stored ones. */
async function appendedRun(
  tx: SqlTx,
  runId: string,
  news: NormalizedSpan[],
  contentType: string,
  toolCalls: { open: OpenToolCall[] },
): Promise<ImportedRun> {
  const [derived] = spansToRuns(news, { format: formatOf(contentType), liveWithoutRoot: true, contentType, toolCalls });
  const row = await tx.all<{ nextSeq: number }>(`SELECT "nextSeq" FROM "Run" WHERE "id" = ?`, [runId]);
  const base = Number(row[0]?.nextSeq ?? 0);
  // run.start and the run's input were given when the trace began
  const kept = derived.events.filter((e) => e.type !== "run.start" && e.type !== "input" && e.type !== "run.end");
  const seqOf = new Map<number, number>();
  kept.forEach((e, i) => seqOf.set(e.seq as number, base + i));
  const events = kept.map((e) => {
    const out: JournalEvent = { ...e, seq: seqOf.get(e.seq as number) as Seq };
    const p = e.parent !== undefined ? seqOf.get(e.parent as number) : undefined;
    if (p === undefined) delete out.parent;
    else out.parent = p as Seq;
    return out;
  });
  return { runId, events };
}

async function storeSpans(tx: SqlTx, runId: string, spans: NormalizedSpan[]) {
  for (const span of spans) {
    await tx.run(
      `INSERT INTO "TraceSpan" ("traceId", "spanId", "runId", "startNs", "body") VALUES (?, ?, ?, ?, ?) ON CONFLICT ("traceId", "spanId") DO UPDATE SET "body" = excluded."body", "startNs" = excluded."startNs"`,
      [span.traceId, span.spanId, runId, span.startTimeUnixNano, canonicalJson(span)],
    );
  }
}

function storeState(tx: SqlTx, trace: string, runId: string, state: TraceState) {
  return tx.run(
    `INSERT INTO "TraceSpan" ("traceId", "spanId", "runId", "startNs", "body") VALUES (?, ?, ?, ?, ?) ON CONFLICT ("traceId", "spanId") DO UPDATE SET "body" = excluded."body"`,
    [trace, STATE_ID, runId, "", JSON.stringify(state)],
  );
}

/** What ingest's replaceRuns does, for a run whose events are given again from the start. */
async function clearRun(tx: SqlTx, runId: string) {
  await tx.run(`DELETE FROM "Event" WHERE "runId" = ?`, [runId]);
  await tx.run(`DELETE FROM "Finding" WHERE "runId" = ?`, [runId]);
  await tx.run(
    `UPDATE "Run" SET "eventCount" = 0, "analysis" = NULL, "analyzedSeq" = -1, "settleFrom" = NULL, "nextSeq" = 0, "maxSeq" = -1 WHERE "id" = ?`,
    [runId],
  );
}

function chunks<T>(xs: T[], size = 400): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
}

/**
 * Ends the traces received over OTLP that are still live (no root span) and have had no
 * span for RETRACE_OTLP_IDLE_SECONDS: each is derived again from its spans, with a run.end.
 * Called before each OTLP request; `now` for tests.
 */
export async function finishIdleTraces(db: Db, now = Date.now()): Promise<string[]> {
  const idleMs = (db.config.otlpIdleSeconds ?? 300) * 1000;
  const idle = await db.sql.all<{ id: string; projectId: string }>(
    `SELECT "id", "projectId" FROM "Run" WHERE "source" = 'otlp' AND "live" = ? AND "updatedAt" < ?`,
    [db.sql.dialect === "postgres" ? true : 1, now - idleMs],
  );
  const done: string[] = [];
  for (const { id, projectId } of idle) {
    const redactor = await redactorFor(db);
    const result = await ingest(
      db.sql,
      redactor,
      async (tx) => {
        const rows = await tx.all<{ spanId: string; body: string }>(`SELECT "spanId", "body" FROM "TraceSpan" WHERE "runId" = ?`, [id]);
        const state = rows.find((r) => r.spanId === STATE_ID);
        const spans = rows.filter((r) => r.spanId !== STATE_ID).map((r) => JSON.parse(r.body) as NormalizedSpan);
        const contentType = state ? (JSON.parse(state.body) as TraceState).contentType : "application/json";
        await clearRun(tx, id);
        await storeState(tx, id.slice("otel-".length), id, { ...stateOf(spans, contentType), ended: true });
        // a run.end now, root or not: the trace has gone quiet
        const runs = spansToRuns(spans, { format: formatOf(contentType), contentType });
        return eventBatches(runs, DEFAULT_READER_LIMITS);
      },
      {
        mode: "stream",
        source: "otlp",
        project: projectId,
        fidelity: "trace",
        maxEventsPerRun: db.config.limits.maxEventsPerRun,
        lockRuns: [id],
        redactedBefore: true,
        atomic: true,
      },
    );
    done.push(...result.runs.filter((r) => r.status === "stored").map((r) => r.run));
  }
  if (done.length > 0) await publishRunChanges(db, done).catch(() => undefined);
  return done;
}
