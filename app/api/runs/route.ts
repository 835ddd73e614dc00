import { NextResponse } from "next/server";
import { route } from "@/lib/server/edge";
import { listRuns, runListQuery } from "@/lib/server/queries";

export const dynamic = "force-dynamic";

/** Runs of the projects the caller may read, newest first by default; filters and `cursor` pagination (README "API"). */
export const GET = route({ need: "runs.read", project: "any", query: runListQuery }, async ({ db, query, readable }) =>
  NextResponse.json(await listRuns(db, query, readable)),
);
