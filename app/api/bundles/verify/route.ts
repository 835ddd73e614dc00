import { answerVerify } from "@/lib/server/bundle-verify";
import { route } from "@/lib/server/edge";

export const dynamic = "force-dynamic";

/**
 * Verifies an uploaded audit bundle (the body, as it is: never gunzipped here) against this
 * deployment's key: 200 with the report whatever it says, 413 over RETRACE_MAX_DOCUMENT_BYTES
 * (the body, or what the archive inflates to).
 */
export const POST = route({ need: "runs.read" }, async ({ req, db }) => answerVerify(db, req));
