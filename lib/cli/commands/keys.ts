import { loadConfig } from "../../server/config";
import type { CommandArgs } from "../args";

export const summary = "show the audit-bundle signing key's public half (keys show)";
export const usage = `Usage: npm run -s retrace -- keys show

Prints the Ed25519 public key that signs this deployment's audit bundles (PEM) and its id,
as /api/keys/audit serves it. The private key is in RETRACE_AUDIT_KEY_FILE, by default the
file beside the SQLite file (data/retrace.audit-key), made on first use with mode 0600.`;

export const options = {} as const;

export async function run({ positionals }: CommandArgs<typeof options>): Promise<number> {
  if (positionals.length !== 1 || positionals[0] !== "show") {
    console.error(usage);
    return 2;
  }
  const { auditKeyFile, auditPublicKey } = await import("../../server/audit-key");
  const config = loadConfig();
  const k = auditPublicKey(config);
  console.log(`audit key ${k.keyId} (Ed25519), private half in ${auditKeyFile(config)}`);
  process.stdout.write(k.publicKeyPem);
  return 0;
}
