import { NextResponse } from "next/server";
import { getDb } from "@/lib/server/db";
import { jsonError, requireNdjson, requireRole } from "@/lib/server/http";
import { ingestStatus } from "@/lib/server/ingest-status";
import { ingestBytes } from "@/lib/server/service";

export const dynamic = "force-dynamic";

/** POST an NDJSON journal (optionally gzip): one or many runs, each stored atomically. */
export async function POST(req: Request) {
  const denied = requireRole(req, "ingest");
  if (denied) return denied;
  const wrongType = requireNdjson(req);
  if (wrongType) return wrongType;
  const db = getDb();
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > db.config.limits.maxBodyBytes) {
    return jsonError(
      413,
      `request body is ${declared} bytes, over the ${db.config.limits.maxBodyBytes}-byte limit (RETRACE_MAX_BODY_BYTES)`,
    );
  }
  if (!req.body) return jsonError(400, "empty body: send one NDJSON event per line");
  const result = await ingestBytes(db, req.body, { mode: "upload", source: "upload", warmViewer: true });
  const status = ingestStatus(result, "upload");
  return NextResponse.json(
    {
      runs: result.runs,
      errors: result.errors,
      warnings: result.warnings,
      ...(result.tooLarge ? { error: result.tooLarge } : {}),
      ...(result.unreadable ? { error: result.unreadable } : {}),
      ...(result.format ? { error: result.format.message, format: result.format.format } : {}),
    },
    { status },
  );
}
