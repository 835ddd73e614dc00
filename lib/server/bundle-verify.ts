import "server-only";
/**
 * POST /api/bundles/verify as one function (the route authorises, then calls this): the
 * body read whole within RETRACE_MAX_DOCUMENT_BYTES (an over-limit body drained, then
 * 413), the bundle inflated off the event loop within the same limit (a gzip bomb is a
 * 413 after that much inflation), then verified against this deployment's key: 200 with
 * the report whatever it says.
 */
import { ArchiveTooLarge, verifyBundle } from "../evidence";
import { auditPublicKey } from "./audit-key";
import { readCappedBody } from "./body-limits";
import type { Db } from "./db";

export async function answerVerify(db: Db, req: Request): Promise<Response> {
  const max = db.config.limits.maxDocumentBytes;
  const bytes = await readCappedBody(req.body, max, "RETRACE_MAX_DOCUMENT_BYTES", db.config.limits.maxBodyBytes);
  if (!(bytes instanceof Uint8Array)) return Response.json({ error: bytes.tooLarge }, { status: 413 });
  const k = auditPublicKey(db.config);
  let r;
  try {
    r = await verifyBundle(bytes, { trustedPublicKeyPem: k.publicKeyPem, maxTarBytes: max });
  } catch (e) {
    if (e instanceof ArchiveTooLarge) return Response.json({ error: `${e.message} (RETRACE_MAX_DOCUMENT_BYTES)` }, { status: 413 });
    throw e;
  }
  // a bundle of another deployment is not a failure of the bundle: say whose key signed it
  const failures = r.failures.filter((f) => !(f.member === "manifest.sig" && /not by the trusted key/.test(f.message)));
  const m = r.manifest;
  return Response.json({
    ok: failures.length === 0,
    failures,
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
}
