import { verifyAudit } from "../../server/access/audit-log";
import { openDb } from "../../server/db";
import type { CommandArgs } from "../args";

export const summary = "check the privileged-action log's hash chain (log verify)";
export const usage = `Usage: npm run -s retrace -- log verify

Recomputes every entry's hash from its fields and the entry before it. Exit 0 when the
chain holds; exit 1 naming the first entry that was changed, removed or reordered.`;

export const options = {} as const;

export async function run({ positionals }: CommandArgs<typeof options>): Promise<number> {
  if (positionals.length !== 1 || positionals[0] !== "verify") {
    console.error(usage);
    return 1;
  }
  const db = openDb();
  try {
    const r = await verifyAudit(db);
    if (r.ok) {
      console.log(`privileged-action log verified: ${r.entries} entries, chain intact`);
      return 0;
    }
    console.error(`privileged-action log broken at entry ${r.brokenAt}: ${r.reason} (${r.entries} entries before it verified)`);
    return 1;
  } finally {
    await db.close();
  }
}
