import "server-only";
/** Small helpers so route handlers stay thin and answer with consistent JSON errors. */
import { NextResponse } from "next/server";
import type { z } from "zod";
import { authorize, type Role } from "./auth";
import { formatIssues } from "../journal/parse-line";
import { redactMessage } from "../redact";

export function jsonError(status: number, message: string, extra: Record<string, unknown> = {}) {
  return NextResponse.json({ error: message, ...extra }, { status });
}

/** Returns an error response when the caller lacks the role, else null. */
export function requireRole(req: Request, role: Role): NextResponse | null {
  const r = authorize(req.headers, role);
  if (r.ok) return null;
  return jsonError(r.status, r.message, r.status === 401 ? {} : {});
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

const NDJSON_TYPES = [
  "application/x-ndjson",
  "application/ndjson",
  "application/jsonl",
  "application/x-jsonlines",
  "application/json",
  "text/plain",
  "application/octet-stream",
  "application/gzip",
  "application/x-gzip",
];

/** 415 unless the body is declared as NDJSON (or one of its usual aliases), or gzip of it. */
export function requireNdjson(req: Request): NextResponse | null {
  const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type === "" || NDJSON_TYPES.includes(type)) return null;
  // the header is the client's text: quoted redacted, and not at any length
  const shown = redactMessage(type).slice(0, 100);
  return jsonError(415, `content-type ${shown} is not accepted; send NDJSON as application/x-ndjson (optionally gzip-compressed)`);
}
