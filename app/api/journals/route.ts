import { NextResponse } from "next/server";
import { getDb } from "@/lib/server/db";
import { requireRole } from "@/lib/server/http";
import { answerUpload } from "@/lib/server/upload";

export const dynamic = "force-dynamic";

/** POST an NDJSON journal (optionally gzip): one or many runs, each stored atomically. */
export async function POST(req: Request) {
  const denied = requireRole(req, "ingest");
  if (denied) return denied;
  const { status, body } = await answerUpload(getDb(), req, "journal");
  return NextResponse.json(body, { status });
}
