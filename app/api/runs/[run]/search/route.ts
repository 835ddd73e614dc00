import { NextResponse } from "next/server";
import { route, runParams } from "@/lib/server/edge";
import { searchEvents, searchQuery } from "@/lib/server/viewer";

export const dynamic = "force-dynamic";

/** `?q=TEXT[&after=SEQ][&limit=N]`: a page of the seqs of the run's events whose stored payload contains the text. */
export const GET = route({ need: "runs.read", project: "run", params: runParams, query: searchQuery }, async ({ db, params, query }) =>
  NextResponse.json(await searchEvents(db, params.run, query.q, query.limit, query.after)),
);
