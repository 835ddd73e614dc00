import { NextResponse } from "next/server";
import { getDb } from "@/lib/server/db";
import { jsonError, requireRole } from "@/lib/server/http";
import { getRun } from "@/lib/server/queries";

export const dynamic = "force-dynamic";

export async function GET(req: Request, ctx: { params: Promise<{ run: string }> }) {
  const denied = requireRole(req, "read");
  if (denied) return denied;
  const { run } = await ctx.params;
  const detail = await getRun(getDb(), run);
  if (!detail) return jsonError(404, `no run "${run}"`);
  return NextResponse.json(detail);
}
