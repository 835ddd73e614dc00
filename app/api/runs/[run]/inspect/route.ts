import { getDb } from "@/lib/server/db";
import { jsonError, parseQuery, requireRole } from "@/lib/server/http";
import { inspectEvent, inspectQuery } from "@/lib/server/viewer-queries";

export const dynamic = "force-dynamic";

/** `?seq=N[&state=1]`: one event, the events that belong with it, the run state at it, its findings. */
export async function GET(req: Request, ctx: { params: Promise<{ run: string }> }) {
  const denied = requireRole(req, "read");
  if (denied) return denied;
  const { run } = await ctx.params;
  const q = parseQuery(inspectQuery, req.url);
  if (!q.ok) return q.response;
  const body = await inspectEvent(getDb(), run, q.data.seq, q.data.state === "1");
  if (body === null) return jsonError(404, `no event ${q.data.seq} in run "${run}"`);
  return new Response(body, { headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" } });
}
