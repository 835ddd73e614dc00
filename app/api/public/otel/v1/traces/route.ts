import { route } from "@/lib/server/edge";
import { answerOtlp } from "@/lib/server/otlp-receiver";

export const dynamic = "force-dynamic";

/**
 * Langfuse's OTLP path: the Langfuse SDK (and its OTel exporter) posts here when its
 * baseUrl is Retrace. The same receiver as /v1/traces; its Basic credentials carry the
 * Retrace key as the secret key (lib/server/access/authenticate.ts).
 */
export const POST = route({ need: "runs.write", project: "write" }, async ({ db, req, project }) => answerOtlp(db, req, project));
