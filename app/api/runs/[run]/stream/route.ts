import { getDb } from "@/lib/server/db";
import { requireRole } from "@/lib/server/http";
import { runChangesStream } from "@/lib/server/viewer-queries";

export const dynamic = "force-dynamic";

/** Server-Sent Events: `change` whenever any server instance stores events for the run. */
export async function GET(req: Request, ctx: { params: Promise<{ run: string }> }) {
  const denied = requireRole(req, "read");
  if (denied) return denied;
  const { run } = await ctx.params;
  return new Response(runChangesStream(getDb(), run, req.signal), {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      // no-transform keeps `next start`'s compression from buffering the stream
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
      connection: "keep-alive",
    },
  });
}
