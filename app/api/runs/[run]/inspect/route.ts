import { NextResponse } from "next/server";
import { route, runParams } from "@/lib/server/edge";
import { inspectEvent, inspectQuery } from "@/lib/server/viewer";

export const dynamic = "force-dynamic";

/** `?seq=N[&state=1]`: one event, the events that belong with it, the run state at it, its findings. */
export const GET = route({ need: "runs.read", project: "run", params: runParams, query: inspectQuery }, async ({ db, params, query }) => {
  const body = await inspectEvent(db, params.run, query.seq, query.state === "1");
  if (body === null) return NextResponse.json({ error: `no event ${query.seq} in run "${params.run}"` }, { status: 404 });
  return new Response(body, { headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" } });
});
