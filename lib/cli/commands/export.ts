import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { isProfile, PROFILES, PROFILE_DESCRIPTIONS } from "../../evidence/profiles";
import { openDb } from "../../server/db";
import type { CommandArgs } from "../args";

export const summary = "write a signed, redacted audit bundle of runs (.tar.gz)";
export const usage = `Usage: npm run -s retrace -- export --run RUN [--run RUN…] [--profile secrets|reviewer|public] [--field PATH…] --out FILE

Writes one .tar.gz holding a signed manifest.json, each run's journal (format v1, chained
afresh over the exported events), its findings and notes, the privileged-action log
entries about the runs and an offline report.html (docs/audit-bundle.md). The export is
written to the privileged-action log.

Profiles (default reviewer):
${PROFILES.map((p) => `  ${p.padEnd(9)} ${PROFILE_DESCRIPTIONS[p]}`).join("\n")}

--field PATH  (repeatable) a JSON path whose value the reviewer and public profiles replace,
              e.g. data.args.customer.name (* for any key or index); the projects' own
              configured paths apply too.`;

export const options = {
  run: { type: "string", multiple: true },
  profile: { type: "string" },
  field: { type: "string", multiple: true },
  out: { type: "string" },
} as const;

export async function run({ values, positionals }: CommandArgs<typeof options>): Promise<number> {
  const runs = values.run ?? [];
  const profile = values.profile ?? "reviewer";
  if (positionals.length > 0 || runs.length === 0 || !values.out) {
    console.error(usage);
    return 2;
  }
  if (!isProfile(profile)) {
    console.error(`retrace export: --profile must be one of ${PROFILES.join(", ")}, not "${profile}"`);
    return 2;
  }
  const db = openDb();
  try {
    const { exportBundle } = await import("../../server/evidence");
    const r = await exportBundle(db, { runs, profile, exporter: `cli:${os.userInfo().username}`, fields: values.field ?? [] });
    const out = path.resolve(values.out);
    const tmp = `${out}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, r.bytes, { mode: 0o600 });
    fs.renameSync(tmp, out);
    console.log(
      `wrote ${out}: ${r.runs.length} run${r.runs.length === 1 ? "" : "s"}, ${r.events} events, profile ${profile}, ` +
        `${r.bytes.length} bytes, sha256 ${r.sha256}, signed by key ${r.keyId}`,
    );
    return 0;
  } catch (e) {
    console.error(`retrace export: ${(e as Error).message}`);
    return 1;
  } finally {
    await db.close();
  }
}
