import { NextResponse } from "next/server";
import { route } from "@/lib/server/edge";
import { pingDatabase } from "@/lib/server/queries";
import type { HealthAnswer } from "@/lib/view/api-types";

export const dynamic = "force-dynamic";

/** Liveness and database reachability, for load balancers and the test harness; public, says nothing else. */
export const GET = route({ need: "public" }, async ({ db }) => {
  await pingDatabase(db);
  return NextResponse.json({ ok: true, database: db.config.dialect } satisfies HealthAnswer);
});
