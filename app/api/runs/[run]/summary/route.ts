import { NextResponse } from "next/server";
import { route, runParams } from "@/lib/server/edge";
import { getRunSummaryCached, summaryQuery } from "@/lib/server/viewer-queries";

export const dynamic = "force-dynamic";

/** The run's per-event columns, columnar (lib/graph/summary.ts); `?after=SEQ` for what came later. */
export const GET = route({ need: "runs.read", project: "run", params: runParams, query: summaryQuery }, async ({ db, params, query }) => {
  const text = await getRunSummaryCached(db, params.run, query.after);
  if (text === null) return NextResponse.json({ error: `run "${params.run}" not found` }, { status: 404 });
  return new Response(text, { headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" } });
});
