import { NextResponse } from "next/server";
import { verifyBundle } from "@/lib/evidence";
import { auditPublicKey } from "@/lib/server/audit-key";
import { isBodyLimit, limitBytes } from "@/lib/server/body-limits";
import { route } from "@/lib/server/edge";

export const dynamic = "force-dynamic";

/**
 * Verifies an uploaded audit bundle (the body, as it is: never gunzipped here) against this
 * deployment's key: 200 with the report whatever it says, 413 over RETRACE_MAX_DOCUMENT_BYTES.
 */
export const POST = route({ need: "runs.read" }, async ({ req, db }) => {
  const parts: Uint8Array[] = [];
  try {
    if (req.body)
      for await (const c of limitBytes(req.body, db.config.limits.maxDocumentBytes, "RETRACE_MAX_DOCUMENT_BYTES")) parts.push(c);
  } catch (e) {
    if (isBodyLimit(e)) return NextResponse.json({ error: e.message }, { status: 413 });
    throw e;
  }
  const k = auditPublicKey(db.config);
  const r = await verifyBundle(Buffer.concat(parts), { trustedPublicKeyPem: k.publicKeyPem });
  // a bundle of another deployment is not a failure of the bundle: say whose key signed it
  const failures = r.failures.filter((f) => !(f.member === "manifest.sig" && /not by the trusted key/.test(f.message)));
  const m = r.manifest;
  return NextResponse.json({
    ok: failures.length === 0,
    failures,
    membersHold: r.membersHold,
    keyId: r.keyId,
    signedByThisDeployment: r.keyTrusted === true,
    deploymentKeyId: k.keyId,
    members: r.members,
    events: r.events,
    manifest:
      m && failures.length === 0
        ? {
            exportedAt: m.exportedAt,
            exporter: m.exporter,
            profile: m.profile,
            runs: m.runs.map((x) => ({ id: x.id, events: x.events, findings: x.findings, notes: x.notes })),
          }
        : null,
  });
});
