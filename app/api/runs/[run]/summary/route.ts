import { getDb } from "@/lib/server/db";
import { jsonError, parseQuery, requireRole } from "@/lib/server/http";
import { getRunSummaryCached, summaryQuery } from "@/lib/server/viewer-queries";

export const dynamic = "force-dynamic";

/** The run's per-event columns, columnar (lib/graph/summary.ts); `?after=SEQ` for what came later. */
export async function GET(req: Request, ctx: { params: Promise<{ run: string }> }) {
  const denied = requireRole(req, "read");
  if (denied) return denied;
  const { run } = await ctx.params;
  const q = parseQuery(summaryQuery, req.url);
  if (!q.ok) return q.response;
  const text = await getRunSummaryCached(getDb(), run, q.data.after);
  if (text === null) return jsonError(404, `no run "${run}"`);
  return new Response(text, { headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" } });
}
