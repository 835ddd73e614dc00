import "server-only";
/**
 * Every request body is read as a stream, and its limits are enforced while reading: bytes
 * are counted as they pass and reading stops at the limit, before the next chunk is
 * pulled; a gzip body is inflated with a ratio cap (gunzip.ts) and
 * counted again after inflation. A body that must be held whole (an OTLP/HTTP request,
 * decoded at once; a single-document trace export) has the smaller document limit.
 */
import { byteChunks, type ByteSource } from "../journal/reader";
import { gunzipLimited, InflateLimitError } from "./gunzip";
import type { IngestLimits } from "./config";

export class BodyTooLarge extends Error {}

/** Counts bytes as they pass and stops at the limit; `variable` names the setting in the message. */
export async function* limitBytes(source: ByteSource, max: number, variable = "RETRACE_MAX_BODY_BYTES"): AsyncGenerator<Uint8Array> {
  let total = 0;
  for await (const chunk of byteChunks(source)) {
    total += chunk.length;
    if (total > max) throw new BodyTooLarge(`the body is over ${max} bytes (${variable}); nothing was stored`);
    yield chunk;
  }
}

/**
 * A body's bytes as they arrive, gunzipped when gzip, both sides counted against `max`
 * (the wire and what it inflates to) and inflation capped by the gzip ratio.
 */
export function limitedBody(
  source: ByteSource,
  limits: IngestLimits,
  max = limits.maxBodyBytes,
  variable?: string,
): AsyncGenerator<Uint8Array> {
  return limitBytes(gunzipLimited(limitBytes(source, max, variable), { maxRatio: limits.maxGzipRatio }), max, variable);
}

/** A declared content-length over `max`: the message to refuse it with (413), unread; else null. */
export function declaredTooLarge(headers: Headers, max: number, variable = "RETRACE_MAX_BODY_BYTES"): string | null {
  const declared = Number(headers.get("content-length") ?? "0");
  return declared > max ? `the body is ${declared} bytes, over the ${max}-byte limit (${variable}); nothing was stored` : null;
}

/** Whether an error is one of the body limits (answered 413). */
export function isBodyLimit(e: unknown): e is Error {
  return e instanceof BodyTooLarge || e instanceof InflateLimitError;
}

/**
 * A whole body (gunzipped, within the document limit), or the reason it is refused (413).
 * The document limit is counted on the wire and after inflation, while reading.
 */
export async function readWholeBody(source: ByteSource | null, limits: IngestLimits): Promise<Uint8Array | { tooLarge: string }> {
  const parts: Uint8Array[] = [];
  let size = 0;
  if (source) {
    try {
      for await (const chunk of limitedBody(source, limits, limits.maxDocumentBytes, "RETRACE_MAX_DOCUMENT_BYTES")) {
        parts.push(chunk);
        size += chunk.length;
      }
    } catch (e) {
      if (isBodyLimit(e)) return { tooLarge: e.message };
      throw e;
    }
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
 * A body read whole up to `max` bytes as it arrives (not gunzipped: an audit bundle is
 * checked as it is), or why it is refused (413). A body over `max` is read on and
 * discarded, up to `drainBytes` more, so the client is sending no more when the 413 comes
 * and reads it (cancelling the body resets the connection instead); one that goes on
 * past that (the wire limit, RETRACE_MAX_BODY_BYTES, at the routes) is cancelled.
 */
export async function readCappedBody(
  source: ByteSource | null,
  max: number,
  variable: string,
  drainBytes = max,
): Promise<Uint8Array | { tooLarge: string }> {
  const parts: Uint8Array[] = [];
  let size = 0;
  if (source) {
    for await (const chunk of byteChunks(source)) {
      size += chunk.length;
      if (size <= max) parts.push(chunk);
      else if (size > max + drainBytes) break;
    }
  }
  if (size > max) return { tooLarge: `the body is over ${max} bytes (${variable}); nothing was read` };
  return Buffer.concat(parts);
}
