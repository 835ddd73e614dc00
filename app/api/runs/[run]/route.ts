import { NextResponse } from "next/server";
import { route, runParams } from "@/lib/server/edge";
import { getRun } from "@/lib/server/queries";

export const dynamic = "force-dynamic";

/** One run: summary, versions in force, policy, chain status, findings. */
export const GET = route({ need: "runs.read", project: "run", params: runParams }, async ({ db, params }) => {
  const detail = await getRun(db, params.run);
  if (!detail) return NextResponse.json({ error: `run "${params.run}" not found` }, { status: 404 });
  return NextResponse.json(detail);
});
