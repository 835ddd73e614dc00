import os from "node:os";
import { openDb } from "../../server/db";
import type { CommandArgs } from "../args";

export const summary = "drop payloads and remove runs past their project's retention (not under legal hold)";
export const usage = `Usage: npm run -s retrace -- purge [--project ID] [--dry-run] [--json]

Two stages, on the runs the server has not changed for longer than their project's days,
except runs under legal hold (\`hold RUN\`), in one transaction:
1. past the payload days (\`project payloads ID DAYS\`): drops each run's payloads (event
   contents, OTLP spans), keeping its summary, findings, notes and every event's hashes;
2. past the retention (\`project retention ID DAYS\`): removes each run with its events,
   findings, notes and OTLP spans.
Each stage writes one entry to the privileged-action log (run ids and counts).
--dry-run prints both counts (payloads to drop, runs to remove) and changes nothing.`;

export const options = {
  project: { type: "string" },
  "dry-run": { type: "boolean" },
  json: { type: "boolean" },
} as const;

export async function run({ values, positionals }: CommandArgs<typeof options>): Promise<number> {
  if (positionals.length > 0) {
    console.error(usage);
    return 2;
  }
  const db = openDb();
  try {
    const { purge } = await import("../../server/retention");
    const r = await purge(db, { actor: `cli:${os.userInfo().username}`, project: values.project, dryRun: values["dry-run"] === true });
    if (values.json) {
      console.log(JSON.stringify(r));
      return 0;
    }
    const verb = r.dryRun ? "would remove" : "removed";
    const dropVerb = r.dryRun ? "would drop" : "dropped";
    if (r.policies.length === 0 && r.payloadPolicies.length === 0) console.log("no project has a retention policy: nothing to purge");
    for (const run of r.dropped)
      console.log(
        `${dropVerb} the payloads of ${run.id} (project ${run.project}, last changed ${new Date(run.updatedMs).toISOString()}): ` +
          `${run.events} events, ${run.spans} spans`,
      );
    if (r.payloadPolicies.length > 0)
      console.log(
        `${r.dryRun ? "dry run: " : ""}${dropVerb} the payloads of ${r.dropped.length} run${r.dropped.length === 1 ? "" : "s"} ` +
          `(${r.dropped.reduce((n, x) => n + x.events, 0)} events, ${r.dropped.reduce((n, x) => n + x.spans, 0)} spans), ` +
          `keeping their summaries, findings and hashes` +
          (r.dropAuditSeq === null ? "" : `; privileged-action log entry ${r.dropAuditSeq}`),
      );
    for (const run of r.runs)
      console.log(
        `${verb} ${run.id} (project ${run.project}, last changed ${new Date(run.updatedMs).toISOString()}): ` +
          `${run.events} events, ${run.findings} findings, ${run.notes} notes, ${run.spans} spans`,
      );
    for (const id of r.held) console.log(`kept ${id}: under legal hold`);
    const sum = (k: "events" | "findings" | "notes" | "spans") => r.runs.reduce((n, x) => n + x[k], 0);
    console.log(
      `${r.dryRun ? "dry run: " : ""}${verb} ${r.runs.length} run${r.runs.length === 1 ? "" : "s"} ` +
        `(${sum("events")} events, ${sum("findings")} findings, ${sum("notes")} notes, ${sum("spans")} spans), ` +
        `${r.held.length} held` +
        (r.auditSeq === null ? "" : `; privileged-action log entry ${r.auditSeq}`) +
        (r.walEmptied === true ? "; SQLite pages zeroed and WAL emptied" : "") +
        (r.walEmptied === false ? "; SQLite WAL busy: its next checkpoint empties it" : "") +
        (r.vacuumed ? "; tables vacuumed" : ""),
    );
    return 0;
  } catch (e) {
    console.error(`retrace purge: ${(e as Error).message}`);
    return 1;
  } finally {
    await db.close();
  }
}
