import "server-only";
/** Small helpers so route handlers stay thin and answer with consistent JSON errors. */
import { NextResponse } from "next/server";
import type { z } from "zod";
import { formatIssues } from "../journal/parse-line";
import { redactMessage } from "../redact";

export function jsonError(status: number, message: string, extra: Record<string, unknown> = {}) {
  return NextResponse.json({ error: message, ...extra }, { status });
}

export function parseQuery<T extends z.ZodType>(
  schema: T,
  url: string,
): { ok: true; data: z.infer<T> } | { ok: false; response: NextResponse } {
  const params = Object.fromEntries(new URL(url).searchParams);
  const r = schema.safeParse(params);
  if (r.success) return { ok: true, data: r.data };
  return { ok: false, response: jsonError(400, formatIssues(r.error.issues)) };
}

// text/plain is not among them: it is what a cross-site HTML form or no-cors fetch can send
const NDJSON_TYPES = [
  "application/x-ndjson",
  "application/ndjson",
  "application/jsonl",
  "application/x-jsonlines",
  "application/json",
  "application/octet-stream",
  "application/gzip",
  "application/x-gzip",
];

const contentType = (req: Request) => (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();

/** 415 unless the body is declared as NDJSON (or one of its usual aliases), or gzip of it. */
export function requireNdjson(req: Request): NextResponse | null {
  const type = contentType(req);
  if (type === "" || NDJSON_TYPES.includes(type)) return null;
  // the header is the client's text: quoted redacted, and not at any length
  const shown = redactMessage(type).slice(0, 100);
  return jsonError(415, `content-type ${shown} is not accepted; send NDJSON as application/x-ndjson (optionally gzip-compressed)`);
}

/**
 * The content types POST /api/imports accepts (docs/openapi.yaml): a file as bytes
 * (application/octet-stream, what the upload button sends), or declared as JSON, NDJSON, gzip or
 * zip (a folder of session files).
 */
const IMPORT_TYPES: readonly string[] = [...NDJSON_TYPES, "application/zip", "application/x-zip-compressed"];

/** The reason a body's declared type is refused (415), or null: journals for `journal`, any file for `any`. */
export function uploadTypeProblem(req: Request, accept: "journal" | "any"): string | null {
  const type = contentType(req);
  if (type === "" || (accept === "journal" ? NDJSON_TYPES : IMPORT_TYPES).includes(type)) return null;
  return accept === "journal"
    ? `content-type ${type} is not accepted; send NDJSON as application/x-ndjson (optionally gzip-compressed)`
    : `content-type ${type} is not accepted; send the file as application/octet-stream (or application/json, application/x-ndjson, application/gzip, application/zip)`;
}
