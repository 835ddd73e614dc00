import { NextResponse } from "next/server";
import { getDb } from "@/lib/server/db";
import { parseQuery, requireRole } from "@/lib/server/http";
import { searchEvents, searchQuery } from "@/lib/server/viewer-queries";

export const dynamic = "force-dynamic";

/** `?q=TEXT`: seqs of the run's events whose stored payload contains the text. */
export async function GET(req: Request, ctx: { params: Promise<{ run: string }> }) {
  const denied = requireRole(req, "read");
  if (denied) return denied;
  const { run } = await ctx.params;
  const q = parseQuery(searchQuery, req.url);
  if (!q.ok) return q.response;
  return NextResponse.json(await searchEvents(getDb(), run, q.data.q, q.data.limit));
}
