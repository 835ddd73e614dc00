import { addProject, AccessError, listProjects } from "../../server/access/accounts";
import { appendAudit } from "../../server/access/audit-log";
import { openDb } from "../../server/db";
import type { CommandArgs } from "../args";

export const summary = "add or list projects";
export const usage = `Usage:
  npm run -s retrace -- project add ID [--name NAME]
  npm run -s retrace -- project list
  npm run -s retrace -- project retention ID DAYS|off
  npm run -s retrace -- project payloads ID DAYS|off

A project id is lower-case letters, digits and dashes. Runs, keys and roles belong to a project.
Retention: \`purge\` removes the project's runs unchanged for more than DAYS days (off: kept forever).
Payloads: \`purge\` drops the payloads of runs unchanged for more than DAYS days (fewer than the
retention), keeping their summaries, findings and hashes (off: payloads stay with the run).`;

export const options = { name: { type: "string" } } as const;

export async function run({ values, positionals }: CommandArgs<typeof options>): Promise<number> {
  const [verb, id, ...extra] = positionals;
  const db = openDb();
  try {
    if (verb === "add" && id && extra.length === 0) {
      const p = await addProject(db, id, values.name ?? id);
      await appendAudit(db, {
        actor: `cli:${process.env.USER ?? "local"}`,
        action: "project.add",
        project: p.id,
        target: p.id,
        result: "ok",
        detail: { name: p.name },
      });
      console.log(`added project "${p.id}"`);
      return 0;
    }
    if (verb === "retention" && id && extra.length === 1) {
      const days = extra[0] === "off" ? null : /^\d+$/.test(extra[0]) ? Number(extra[0]) : NaN;
      const { setRetention } = await import("../../server/retention");
      await setRetention(db, id, days);
      await appendAudit(db, {
        actor: `cli:${process.env.USER ?? "local"}`,
        action: "project.retention",
        project: id,
        target: id,
        result: "ok",
        detail: { retentionDays: days },
      });
      console.log(days === null ? `project "${id}" keeps its runs forever` : `project "${id}" keeps runs for ${days} days`);
      return 0;
    }
    if (verb === "payloads" && id && extra.length === 1) {
      const days = extra[0] === "off" ? null : /^\d+$/.test(extra[0]) ? Number(extra[0]) : NaN;
      const { setPayloadRetention } = await import("../../server/retention");
      await setPayloadRetention(db, id, days);
      await appendAudit(db, {
        actor: `cli:${process.env.USER ?? "local"}`,
        action: "project.payload-retention",
        project: id,
        target: id,
        result: "ok",
        detail: { payloadDays: days },
      });
      console.log(
        days === null
          ? `project "${id}" keeps payloads as long as its runs`
          : `project "${id}" drops payloads after ${days} days (summaries, findings and hashes stay)`,
      );
      return 0;
    }
    if (verb === "list" && !id) {
      for (const p of await listProjects(db)) console.log(`${p.id}\t${p.name}`);
      return 0;
    }
    console.error(usage);
    return 1;
  } catch (e) {
    if (e instanceof AccessError) {
      console.error(`retrace project: ${e.message}`);
      return 1;
    }
    throw e;
  } finally {
    await db.close();
  }
}
