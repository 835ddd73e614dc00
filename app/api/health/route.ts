import { NextResponse } from "next/server";
import { getDb } from "@/lib/server/db";
import { pingDatabase } from "@/lib/server/queries";
import type { HealthAnswer } from "@/lib/view/api-types";

export const dynamic = "force-dynamic";

/** Liveness and database reachability, for load balancers and the test harness. */
export async function GET() {
  const db = getDb();
  await pingDatabase(db);
  return NextResponse.json({ ok: true, database: db.config.dialect } satisfies HealthAnswer);
}
