import { route, runParams } from "@/lib/server/edge";
import { runChangesStream } from "@/lib/server/viewer";

export const dynamic = "force-dynamic";

/** Server-Sent Events: `change` whenever any server instance stores events for the run. */
export const GET = route(
  { need: "runs.read", project: "run", params: runParams },
  async ({ db, params, req }) =>
    new Response(runChangesStream(db, params.run, req.signal), {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        // no-transform keeps `next start`'s compression from buffering the stream
        "cache-control": "no-cache, no-transform",
        "x-accel-buffering": "no",
        connection: "keep-alive",
      },
    }),
);
