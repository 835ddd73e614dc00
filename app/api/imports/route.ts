import { NextResponse } from "next/server";
import { getDb } from "@/lib/server/db";
import { jsonError, requireRole } from "@/lib/server/http";
import { importBytes } from "@/lib/server/imports";
import { ingestStatus } from "@/lib/server/ingest-status";

export const dynamic = "force-dynamic";

/**
 * Upload any supported file: a Retrace journal, or a trace export (OTLP JSON, Tempo,
 * Jaeger, Langfuse, any-agent, OTel JS spans, SWE-agent, OpenHands, Inspect AI,
 * tau-bench), detected from its content. `?name=` passes the file name (some formats
 * derive run ids from it).
 */
export async function POST(req: Request) {
  const denied = requireRole(req, "ingest");
  if (denied) return denied;
  const db = getDb();
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > db.config.limits.maxBodyBytes) {
    return jsonError(
      413,
      `request body is ${declared} bytes, over the ${db.config.limits.maxBodyBytes}-byte limit (RETRACE_MAX_BODY_BYTES)`,
    );
  }
  const bytes = new Uint8Array(await req.arrayBuffer());
  if (bytes.length > db.config.limits.maxBodyBytes) return jsonError(413, `request body is over ${db.config.limits.maxBodyBytes} bytes`);
  if (bytes.length === 0) return jsonError(400, "empty body");
  const name = new URL(req.url).searchParams.get("name") ?? undefined;
  const result = await importBytes(db, bytes, name?.slice(0, 200));
  const status = ingestStatus(result, "upload");
  return NextResponse.json(
    {
      format: result.detected?.format,
      formatLabel: result.detected?.label,
      runs: result.runs,
      errors: result.errors,
      warnings: [...result.warnings, ...(result.importWarnings ?? []).map((message) => ({ message }))],
      ...(result.unreadable || result.tooLarge || result.format
        ? { error: result.unreadable ?? result.tooLarge ?? result.format?.message }
        : {}),
    },
    { status: result.unreadable ? 422 : status },
  );
}
