import fs from "node:fs";
import { ArchiveTooLarge } from "../../evidence/archive";
import { describeFailures, verifyBundle } from "../../evidence/bundle";
import { loadConfig } from "../../server/config";
import type { CommandArgs } from "../args";

export const summary = "check an audit bundle: signature, every member's hash, every journal's chain";
export const usage = `Usage: npm run -s retrace -- verify FILE [--key PUBLIC_KEY_FILE] [--json]

Checks the manifest's Ed25519 signature, the SHA-256 of every member, every journal's hash
chain and the counts the manifest states. With --key (a PEM public key, as served at
/api/keys/audit or printed by \`retrace keys show\`) the bundle must be signed by that key;
without it, the key named in the manifest is used and its id printed, to compare with the
deployment's. Needs no database. Exit 0 when everything holds, 1 naming each failure (the
member, and the seq for a journal, or a bundle that inflates past RETRACE_MAX_DOCUMENT_BYTES,
default 64 MiB), 2 for unreadable arguments.`;

export const options = { key: { type: "string" }, json: { type: "boolean" } } as const;

export async function run({ values, positionals }: CommandArgs<typeof options>): Promise<number> {
  if (positionals.length !== 1) {
    console.error(usage);
    return 2;
  }
  let bytes: Buffer;
  let trusted: string | undefined;
  let max: number;
  try {
    max = loadConfig().limits.maxDocumentBytes;
    const size = fs.statSync(positionals[0]).size;
    if (size > max) {
      console.error(`retrace verify: the file is ${size} bytes, over the ${max}-byte limit (RETRACE_MAX_DOCUMENT_BYTES)`);
      return 1;
    }
    bytes = fs.readFileSync(positionals[0]);
    if (values.key) trusted = fs.readFileSync(values.key, "utf8");
  } catch (e) {
    console.error(`retrace verify: ${(e as Error).message}`);
    return 2;
  }
  let r;
  try {
    r = await verifyBundle(bytes, { trustedPublicKeyPem: trusted, maxTarBytes: max });
  } catch (e) {
    if (!(e instanceof ArchiveTooLarge)) throw e;
    console.error(`retrace verify: ${e.message} (RETRACE_MAX_DOCUMENT_BYTES)`);
    return 1;
  }
  if (values.json) {
    console.log(
      JSON.stringify({ ok: r.ok, failures: r.failures, keyId: r.keyId, keyTrusted: r.keyTrusted, runs: r.runs, events: r.events }),
    );
    return r.ok ? 0 : 1;
  }
  if (r.ok) {
    const m = r.manifest!;
    console.log(
      `verified: ${r.members} members, ${r.runs} run${r.runs === 1 ? "" : "s"}, ${r.events} events, profile ${m.profile}, exported ${m.exportedAt} by ${m.exporter}`,
    );
    console.log(
      r.keyTrusted
        ? `signed by the trusted key ${r.keyId}`
        : `signed by key ${r.keyId} (named in the bundle; pass --key to require the deployment's key, from /api/keys/audit)`,
    );
    return 0;
  }
  console.error(`verification FAILED (${r.failures.length} problem${r.failures.length === 1 ? "" : "s"}):`);
  for (const line of describeFailures(r)) console.error(`  ${line}`);
  return 1;
}
