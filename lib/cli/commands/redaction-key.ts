import { loadConfig } from "../../server/config";
import { openDb } from "../../server/db";
import type { CommandArgs } from "../args";

export const summary = "rotate the redaction key (the HMAC key of the placeholders)";
export const usage = `Usage: npm run -s retrace -- redaction-key rotate

Makes a new redaction key for the database named by DATABASE_URL (default
file:./data/retrace.db) and writes it to its key file: RETRACE_REDACTION_KEY_FILE, or by
default the file beside the SQLite file (data/retrace.redaction-key) or
data/postgres-<database>.redaction-key for PostgreSQL. When RETRACE_REDACTION_KEY is set,
its value is taken as the new key instead (set it to a new value first, e.g. from
\`openssl rand -hex 32\`). The database records the new key's fingerprint.`;

export const options = {} as const;

const MEANING = `What rotation means:
  - Placeholders already stored keep their old values: nothing stored is rewritten (the
    secrets themselves were never kept, so they cannot be redacted again).
  - From now on the same secret gets a different placeholder than before it: a secret seen
    before and after the rotation no longer shows as the same one, so correlation across
    runs breaks at this point.
  - Running servers keep the old key until they restart, and an instance holding the old
    key refuses to start: give every instance the new key (copy the key file, or set
    RETRACE_REDACTION_KEY), then restart them.`;

export async function run({ positionals }: CommandArgs<typeof options>): Promise<number> {
  if (positionals.length !== 1 || positionals[0] !== "rotate") {
    console.error(usage);
    return 2;
  }
  const config = loadConfig();
  const db = openDb(config);
  try {
    const { rotateRedactionKey } = await import("../../server/redaction-key");
    const r = await rotateRedactionKey(config, db.sql);
    console.log(r.adopted ? `The redaction key is now the value of ${r.where}.` : `New redaction key written to ${r.where} (mode 0600).`);
    console.log(MEANING);
    return 0;
  } finally {
    await db.close();
  }
}
