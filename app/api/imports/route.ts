import { NextResponse } from "next/server";
import { getDb } from "@/lib/server/db";
import { requireRole } from "@/lib/server/http";
import { answerUpload } from "@/lib/server/upload";

export const dynamic = "force-dynamic";

/**
 * Upload any supported file (the UI's upload button): a Retrace journal, or a trace export
 * (OTLP JSON, Tempo, Jaeger, Langfuse, any-agent, OTel JS spans, SWE-agent, OpenHands,
 * Inspect AI, tau-bench), gzip too, detected from its content. `?name=` passes the file
 * name (some formats derive run ids from it). The body streams; answers like /api/journals
 * plus `format`.
 */
export async function POST(req: Request) {
  const denied = requireRole(req, "ingest");
  if (denied) return denied;
  const { status, body } = await answerUpload(getDb(), req, "any");
  return NextResponse.json(body, { status });
}
