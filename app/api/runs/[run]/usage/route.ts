import { NextResponse } from "next/server";
import { route, runParams } from "@/lib/server/edge";
import { modelPricesOf, runModelUsage } from "@/lib/server/prices";
import { runHasEvents } from "@/lib/server/queries";
import type { UsageAnswer } from "@/lib/view/api-types";

export const dynamic = "force-dynamic";

/** The run's model calls' token usage and its project's model prices, for the cost chart. */
export const GET = route({ need: "runs.read", project: "run", params: runParams }, async ({ db, params, project }) => {
  if (!(await runHasEvents(db, params.run))) return NextResponse.json({ error: `run "${params.run}" not found` }, { status: 404 });
  const [calls, prices] = await Promise.all([runModelUsage(db, params.run), modelPricesOf(db, project)]);
  return NextResponse.json({ calls, prices } satisfies UsageAnswer, { headers: { "cache-control": "no-store" } });
});
