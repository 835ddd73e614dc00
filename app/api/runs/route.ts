import { NextResponse } from "next/server";
import { getDb } from "@/lib/server/db";
import { jsonError, parseQuery, requireRole } from "@/lib/server/http";
import { BadQuery, listRuns, runListQuery } from "@/lib/server/queries";

export const dynamic = "force-dynamic";

/** Runs, newest first by default; filters and `cursor` pagination (see README "API"). */
export async function GET(req: Request) {
  const denied = requireRole(req, "read");
  if (denied) return denied;
  const q = parseQuery(runListQuery, req.url);
  if (!q.ok) return q.response;
  try {
    return NextResponse.json(await listRuns(getDb(), q.data));
  } catch (e) {
    if (e instanceof BadQuery) return jsonError(400, e.message);
    throw e;
  }
}
