import { route } from "@/lib/server/edge";
import { answerOtlp } from "@/lib/server/otlp-receiver";

export const dynamic = "force-dynamic";

/**
 * OTLP/HTTP trace receiver: point an OpenTelemetry exporter at
 * http://HOST:3000/v1/traces (JSON or protobuf, gzip too). Spans are grouped into runs by
 * trace id, in the key's project.
 */
export const POST = route({ need: "runs.write", project: "write" }, async ({ db, req, project }) => answerOtlp(db, req, project));
