import { NextResponse } from "next/server";
import { route } from "@/lib/server/edge";
import { answerUpload } from "@/lib/server/upload";

export const dynamic = "force-dynamic";

/**
 * Upload any supported file (the UI's upload button): a Retrace journal, or a trace export
 * (OTLP JSON, Tempo, Jaeger, Langfuse, any-agent, OTel JS spans, SWE-agent, OpenHands,
 * Inspect AI, tau-bench), gzip too, detected from its content. `?name=` passes the file
 * name (some formats derive run ids from it), `?project=` the project. The body streams;
 * answers like /api/journals plus `format`.
 */
export const POST = route({ need: "runs.write", project: "write" }, async ({ db, req, project }) => {
  const { status, body } = await answerUpload(db, req, "any", project);
  return NextResponse.json(body, { status });
});
