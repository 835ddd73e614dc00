/** An Ed25519 signer from a PKCS#8 PEM private key (node:crypto): what buildBundle signs with. */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign } from "node:crypto";
import { keyIdOf, type Signer } from "./bundle";

export function signerFromPem(privateKeyPem: string): Signer {
  const priv = createPrivateKey(privateKeyPem);
  if (priv.asymmetricKeyType !== "ed25519") throw new Error(`the audit key must be Ed25519, not ${priv.asymmetricKeyType}`);
  const pub = createPublicKey(priv);
  return {
    keyId: keyIdOf(pub),
    publicKeyPem: pub.export({ format: "pem", type: "spki" }).toString(),
    sign: (data) => sign(null, data, priv),
  };
}

/** A new Ed25519 private key as PKCS#8 PEM. */
export function newPrivateKeyPem(): string {
  return generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }).toString();
}
