import { isRole, ROLES, DEFAULT_PROJECT } from "../../access/roles";
import { addUser, AccessError, findUserByName, setMembership, setPassword, parseEnvironments } from "../../server/access/accounts";
import { appendAudit } from "../../server/access/audit-log";
import { openDb } from "../../server/db";
import type { CommandArgs } from "../args";
import { readPassword } from "../prompt";

export const summary = "add an account, grant it a role in a project, or set its password";
export const usage = `Usage:
  npm run -s retrace -- user add NAME --role ROLE [--project ID] [--env ENV,…]
  npm run -s retrace -- user grant NAME --role ROLE [--project ID] [--env ENV,…]
  npm run -s retrace -- user password NAME

ROLE is one of ${ROLES.join(", ")} (per project; default project "${DEFAULT_PROJECT}").
--env lists the environments an operator (or admin) may act on, e.g. sandbox,production.
The password is asked for on a terminal (not echoed), or read from the first line of
stdin: echo "$PASSWORD" | npm run -s retrace -- user add ci-admin --role admin
Every change is written to the privileged-action log.`;

export const options = {
  role: { type: "string" },
  project: { type: "string" },
  env: { type: "string" },
} as const;

export async function run({ values, positionals }: CommandArgs<typeof options>): Promise<number> {
  const [verb, name, ...extra] = positionals;
  if (!verb || !name || extra.length > 0 || !["add", "grant", "password"].includes(verb)) {
    console.error(usage);
    return 1;
  }
  const project = values.project ?? DEFAULT_PROJECT;
  if (verb !== "password" && (!values.role || !isRole(values.role))) {
    console.error(`retrace user ${verb}: --role must be one of ${ROLES.join(", ")}`);
    return 2;
  }
  const db = openDb();
  try {
    const envs = parseEnvironments(values.env ?? "");
    const actor = `cli:${process.env.USER ?? "local"}`;
    if (verb === "add") {
      const password = await readPassword(`Password for ${name}: `);
      const role = values.role as (typeof ROLES)[number];
      await addUser(db, { name, password, project, role, environments: envs });
      await appendAudit(db, { actor, action: "user.add", project, target: name, result: "ok", detail: { role, environments: envs } });
      console.log(`added ${name} as ${role} of project "${project}"`);
    } else {
      const user = await findUserByName(db, name);
      if (!user) throw new AccessError(`no user "${name}"`, 404);
      if (verb === "grant") {
        const role = values.role as (typeof ROLES)[number];
        await setMembership(db, user.id, project, role, envs);
        await appendAudit(db, { actor, action: "role.set", project, target: name, result: "ok", detail: { role, environments: envs } });
        console.log(`${name} is now ${role} of project "${project}"`);
      } else {
        await setPassword(db, user.id, await readPassword(`New password for ${name}: `));
        await appendAudit(db, { actor, action: "user.password", target: name, result: "ok" });
        console.log(`password of ${name} changed; its sessions are ended`);
      }
    }
    return 0;
  } catch (e) {
    if (e instanceof AccessError) {
      console.error(`retrace user ${verb}: ${e.message}`);
      return 1;
    }
    throw e;
  } finally {
    await db.close();
  }
}
