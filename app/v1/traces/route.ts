import { NextResponse } from "next/server";
import { route } from "@/lib/server/edge";
import { decodeOtlp, OtlpBadRequest, readLimitedBody, receiveSpans } from "@/lib/server/imports";

export const dynamic = "force-dynamic";

/**
 * OTLP/HTTP trace receiver: point an OpenTelemetry exporter at
 * http://HOST:3000/v1/traces (JSON or protobuf). Spans are grouped into runs by trace id,
 * in the key's project.
 */
export const POST = route({ need: "runs.write", project: "write" }, async ({ db, req, project }) => {
  const type = (req.headers.get("content-type") ?? "").toLowerCase();
  const isProto = type.includes("protobuf");
  if (!isProto && !type.includes("json")) {
    return NextResponse.json({ error: "send application/json or application/x-protobuf (OTLP/HTTP)" }, { status: 415 });
  }
  const bytes = await readLimitedBody(req, db.config.limits.maxBodyBytes);
  if (bytes === null) return NextResponse.json({ error: "request body over the limit" }, { status: 413 });
  let spans;
  try {
    spans = decodeOtlp(bytes, type);
  } catch (e) {
    if (e instanceof OtlpBadRequest) return NextResponse.json({ error: e.message }, { status: 400 });
    throw e;
  }
  const { rejected } = await receiveSpans(db, spans, project);
  // ExportTraceServiceResponse: empty on success; partialSuccess names what was refused.
  if (isProto) return new Response(new Uint8Array(0), { status: 200, headers: { "content-type": "application/x-protobuf" } });
  return NextResponse.json(
    rejected > 0 ? { partialSuccess: { rejectedSpans: rejected, errorMessage: "some spans could not be converted" } } : {},
  );
});
