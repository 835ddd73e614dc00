import { NextResponse } from "next/server";
import { route } from "@/lib/server/edge";
import { answerUpload } from "@/lib/server/upload";

export const dynamic = "force-dynamic";

/** POST an NDJSON journal (optionally gzip): one or many runs, each stored atomically, in the caller's project (or `?project=`). */
export const POST = route({ need: "runs.write", project: "write" }, async ({ db, req, project }) => {
  const { status, body } = await answerUpload(db, req, "journal", project);
  return NextResponse.json(body, { status });
});
