import { DEFAULT_PROJECT, KEY_SCOPES, type KeyScope } from "../../access/roles";
import { AccessError } from "../../server/access/accounts";
import { appendAudit } from "../../server/access/audit-log";
import { createKey, listKeys, revokeKey } from "../../server/access/keys";
import { openDb } from "../../server/db";
import type { CommandArgs } from "../args";

export const summary = "create, list or revoke API keys (ingest: write-only; read)";
export const usage = `Usage:
  npm run -s retrace -- key add NAME --scope ingest|read [--project ID]
  npm run -s retrace -- key list [--project ID]
  npm run -s retrace -- key revoke KEY_ID

The key is printed once, on stdout alone (so \`KEY=$(… key add …)\` works); only its hash is kept.
Send it as Authorization: Bearer <key>.`;

export const options = { scope: { type: "string" }, project: { type: "string" } } as const;

export async function run({ values, positionals }: CommandArgs<typeof options>): Promise<number> {
  const [verb, arg, ...extra] = positionals;
  const actor = `cli:${process.env.USER ?? "local"}`;
  const db = openDb();
  try {
    if (verb === "add" && arg && extra.length === 0) {
      if (!values.scope || !(KEY_SCOPES as readonly string[]).includes(values.scope)) {
        console.error(`retrace key add: --scope must be one of ${KEY_SCOPES.join(", ")}`);
        return 2;
      }
      const project = values.project ?? DEFAULT_PROJECT;
      const { id, key } = await createKey(db, { project, name: arg, scope: values.scope as KeyScope, createdBy: actor });
      await appendAudit(db, { actor, action: "key.add", project, target: arg, result: "ok", detail: { id, scope: values.scope } });
      console.error(`key "${arg}" (${values.scope}, project "${project}", id ${id}); it is shown only now:`);
      console.log(key);
      return 0;
    }
    if (verb === "list" && !arg) {
      const keys = await listKeys(db, values.project ? [values.project] : "all");
      for (const k of keys) {
        const used = k.lastUsedMs ? new Date(k.lastUsedMs).toISOString() : "never";
        console.log(
          [k.id, k.projectId, k.scope, k.name, `${k.prefix}…`, `last used ${used}`, k.revokedMs ? "revoked" : "active"].join("\t"),
        );
      }
      return 0;
    }
    if (verb === "revoke" && arg && extra.length === 0) {
      const k = await revokeKey(db, arg, "all");
      await appendAudit(db, { actor, action: "key.revoke", project: k.projectId, target: k.name, result: "ok", detail: { id: k.id } });
      console.log(`revoked key "${k.name}"`);
      return 0;
    }
    console.error(usage);
    return 1;
  } catch (e) {
    if (e instanceof AccessError) {
      console.error(`retrace key: ${e.message}`);
      return 1;
    }
    throw e;
  } finally {
    await db.close();
  }
}
