import { NextResponse } from "next/server";
import { route } from "@/lib/server/edge";
import { auditPublicKey } from "@/lib/server/audit-key";

export const dynamic = "force-dynamic";

/** The public key that signs this deployment's audit bundles: what `retrace verify --key` trusts. */
export const GET = route({ need: "public" }, async ({ db }) => {
  const k = auditPublicKey(db.config);
  return NextResponse.json({ algorithm: k.algorithm, keyId: k.keyId, publicKey: k.publicKeyPem });
});
