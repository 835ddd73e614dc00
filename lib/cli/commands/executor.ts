import { AccessError } from "../../server/access/accounts";
import { appendAudit } from "../../server/access/audit-log";
import { openDb } from "../../server/db";
import { addExecutor, listExecutors, removeExecutor } from "../../server/live/executors";
import type { CommandArgs } from "../args";
import { readPassword } from "../prompt";

export const summary = "add, list or remove a project's executors (what live actions act through)";
export const usage = `Usage:
  npm run -s retrace -- executor add --project ID --kind tool|model --name TOOL|*|MODEL --env ENV --url URL [--credential] [--replace]
  npm run -s retrace -- executor list [--project ID]
  npm run -s retrace -- executor remove EXECUTOR_ID --project ID

A tool executor is an HTTP endpoint (POST URL/call, POST URL/lookup) acting on ENV (sandbox,
production, …); a model executor is an OpenAI-compatible base URL (POST URL/chat/completions).
--credential asks for the bearer credential (or reads the first line of stdin); it is stored
encrypted under the executor key file and never shown again. --replace first removes the
project's executors of the same kind, name and environment. Configuring an executor acts on
nothing: live actions exist only in the web interface.`;

export const options = {
  project: { type: "string" },
  kind: { type: "string" },
  name: { type: "string" },
  env: { type: "string" },
  url: { type: "string" },
  credential: { type: "boolean" },
  replace: { type: "boolean" },
} as const;

export async function run({ values, positionals }: CommandArgs<typeof options>): Promise<number> {
  const [verb, id, ...extra] = positionals;
  const actor = `cli:${process.env.USER ?? "local"}`;
  const db = openDb();
  try {
    if (verb === "add" && !id && values.project && values.kind && values.name && values.env && values.url) {
      const credential = values.credential ? await readPassword("Credential (bearer token): ") : null;
      const project = values.project;
      if (values.replace) {
        for (const e of await listExecutors(db, [project])) {
          if (e.kind === values.kind && e.name === values.name && e.environment === values.env) {
            await removeExecutor(db, project, e.id);
            await appendAudit(db, {
              actor,
              action: "executor.remove",
              project,
              target: e.id,
              result: "ok",
              detail: { id: e.id, replaced: true },
            });
          }
        }
      }
      const made = await addExecutor(db, {
        project,
        kind: values.kind as "tool" | "model",
        name: values.name,
        environment: values.env,
        url: values.url,
        credential,
        createdBy: actor,
      });
      await appendAudit(db, {
        actor,
        action: "executor.add",
        project,
        target: made.id,
        result: "ok",
        detail: {
          id: made.id,
          kind: made.kind,
          name: made.name,
          environment: made.environment,
          url: made.url,
          credential: made.hasCredential,
        },
      });
      console.log(`added ${made.kind} executor ${made.id} (${made.name} on ${made.environment}) to project "${project}"`);
      return 0;
    }
    if (verb === "list" && !id) {
      for (const e of await listExecutors(db, values.project ? [values.project] : "all"))
        console.log(
          [e.id, e.project, e.kind, e.name, e.environment, e.url, e.hasCredential ? "credential set" : "no credential"].join("\t"),
        );
      return 0;
    }
    if (verb === "remove" && id && extra.length === 0 && values.project) {
      const gone = await removeExecutor(db, values.project, id);
      await appendAudit(db, {
        actor,
        action: "executor.remove",
        project: values.project,
        target: gone.id,
        result: "ok",
        detail: { id: gone.id },
      });
      console.log(`removed executor ${gone.id}`);
      return 0;
    }
    console.error(usage);
    return 1;
  } catch (e) {
    if (e instanceof AccessError) {
      console.error(`retrace executor: ${e.message}`);
      return 1;
    }
    throw e;
  } finally {
    await db.close();
  }
}
