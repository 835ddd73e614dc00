"use server";
/**
 * The admin pages' changes. Each needs the admin role in the project its input names
 * (open mode counts as admin) and writes one entry to the privileged-action log, whether
 * it succeeds or is refused: who, what, in which project, on whom, and the result. No
 * password or key ever goes into an entry.
 */
import { z } from "zod";
import { actorOf, DEFAULT_PROJECT, KEY_SCOPES, PROJECT_ID, ROLES } from "@/lib/access/roles";
import { AccessError, addProject, setMembership } from "@/lib/server/access/accounts";
import { accountName, addAccount, addKey, addMember, changeMembership, setAccountDisabled } from "@/lib/server/access/admin";
import { appendAudit, type AuditInput } from "@/lib/server/access/audit-log";
import { revokeKey as revokeStoredKey } from "@/lib/server/access/keys";
import { MAX_PASSWORD_LENGTH } from "@/lib/server/access/password";
import { MAX_RETENTION_DAYS, setPayloadRetention, setRetention } from "@/lib/server/retention";
import { action, type ActionCtx } from "@/lib/server/edge";
import { setModelPrices } from "@/lib/server/prices";
import { formatPriceLines, parsePriceLines } from "@/lib/view/prices";
import { attachWorkflowPolicy } from "@/lib/server/workflow-policy";

const project = z.string().regex(PROJECT_ID, "a project id is lower-case letters, digits and dashes");
const userId = z.string().min(1).max(64);
const userName = z.string().trim().min(1, "enter a name").max(64, "a name has at most 64 characters");
const role = z.enum(ROLES, { message: `a role is one of ${ROLES.join(", ")}` });
/** "sandbox, production": checked name by name by the access code */
const environments = z
  .string()
  .max(400)
  .default("")
  .transform((s) => s.split(/[\s,]+/).filter(Boolean));

type Entry = Omit<AuditInput, "actor" | "result">;

/**
 * Runs `work` and logs it: "ok", "refused" (a rule said no; its message is kept) or
 * "failed". `known` adds what only the result tells (a new key's id).
 */
async function audited<R>(ctx: ActionCtx, entry: Entry, work: () => Promise<R>, known?: (r: R) => Partial<Entry>): Promise<R> {
  const actor = actorOf(ctx.principal);
  try {
    const r = await work();
    await appendAudit(ctx.db, { ...entry, ...known?.(r), actor, result: "ok" });
    return r;
  } catch (e) {
    const refused = e instanceof AccessError;
    await appendAudit(ctx.db, {
      ...entry,
      actor,
      result: refused ? "refused" : "failed",
      detail: { ...entry.detail, ...(refused ? { error: e.message } : {}) },
    });
    throw e;
  }
}

/** Only an admin of the default project (or open mode) makes projects; the maker administers the new one. */
export const createProject = action(
  { need: "project.admin", projectOf: () => DEFAULT_PROJECT },
  z.object({ id: project, name: z.string().max(100).default("") }),
  async (ctx, input) =>
    audited(
      ctx,
      { action: "project.add", project: input.id, target: input.id, detail: { name: input.name.trim() || input.id } },
      async () => {
        const p = await addProject(ctx.db, input.id, input.name);
        if (ctx.principal.kind === "user") await setMembership(ctx.db, ctx.principal.id, p.id, "admin");
        return { id: p.id };
      },
    ),
);

/** A new account with a password and a role in one project. */
export const addUser = action(
  { need: "project.admin", projectOf: (i) => i.project },
  z.object({
    project,
    name: userName,
    password: z.string().max(MAX_PASSWORD_LENGTH),
    role,
    environments,
  }),
  async (ctx, input) =>
    audited(
      ctx,
      { action: "user.add", project: input.project, target: input.name, detail: { role: input.role, environments: input.environments } },
      () =>
        addAccount(ctx.db, {
          name: input.name,
          password: input.password,
          project: input.project,
          role: input.role,
          environments: input.environments,
        }),
    ),
);

/** An existing account joins the project. */
export const addExistingMember = action(
  { need: "project.admin", projectOf: (i) => i.project },
  z.object({ project, name: userName, role, environments }),
  async (ctx, input) =>
    audited(
      ctx,
      { action: "member.add", project: input.project, target: input.name, detail: { role: input.role, environments: input.environments } },
      () => addMember(ctx.db, { project: input.project, name: input.name, role: input.role, environments: input.environments }),
    ),
);

/** A member's role and environments in the project. */
export const setMemberRole = action(
  { need: "project.admin", projectOf: (i) => i.project },
  z.object({ project, userId, role, environments }),
  async (ctx, input) =>
    audited(
      ctx,
      {
        action: "role.set",
        project: input.project,
        target: (await accountName(ctx.db, input.userId)) ?? input.userId,
        detail: { role: input.role, environments: input.environments },
      },
      () =>
        changeMembership(ctx.db, {
          project: input.project,
          userId: input.userId,
          role: input.role,
          environments: input.environments,
        }),
    ),
);

/** Takes a member out of the project (the account stays). */
export const removeMember = action(
  { need: "project.admin", projectOf: (i) => i.project },
  z.object({ project, userId }),
  async (ctx, input) =>
    audited(
      ctx,
      { action: "member.remove", project: input.project, target: (await accountName(ctx.db, input.userId)) ?? input.userId },
      () => changeMembership(ctx.db, { project: input.project, userId: input.userId, role: null, environments: [] }),
    ),
);

/** Disables (ends its sessions, refuses its sign-ins) or enables an account. */
export const setUserDisabled = action(
  { need: "project.admin", projectOf: (i) => i.project },
  z.object({ project, userId, disabled: z.boolean() }),
  async (ctx, input) =>
    audited(
      ctx,
      {
        action: input.disabled ? "user.disable" : "user.enable",
        project: input.project,
        target: (await accountName(ctx.db, input.userId)) ?? input.userId,
      },
      () => setAccountDisabled(ctx.db, ctx.principal, input),
    ),
);

/** A new API key; its value is in this answer only (the database keeps a digest). */
export const createKey = action(
  { need: "project.admin", projectOf: (i) => i.project },
  z.object({
    project,
    name: z.string().trim().min(1, "enter a name for the key").max(64, "a key name has at most 64 characters"),
    scope: z.enum(KEY_SCOPES, { message: "a key's scope is ingest or read" }),
  }),
  async (ctx, input) => {
    const made = await audited(
      ctx,
      { action: "key.add", project: input.project, target: input.name, detail: { scope: input.scope } },
      () => addKey(ctx.db, { project: input.project, name: input.name, scope: input.scope, createdBy: actorOf(ctx.principal) }),
      (k) => ({ detail: { scope: input.scope, id: k.id } }),
    );
    return { id: made.id, key: made.key, project: input.project, name: input.name, scope: input.scope };
  },
);

/** Revokes a key of the project: every request with it gets 401 from now on. */
export const revokeKey = action(
  { need: "project.admin", projectOf: (i) => i.project },
  z.object({ project, keyId: z.string().min(1).max(64) }),
  async (ctx, input) =>
    audited(
      ctx,
      { action: "key.revoke", project: input.project, target: input.keyId, detail: { id: input.keyId } },
      async () => {
        const k = await revokeStoredKey(ctx.db, input.keyId, [input.project]);
        return { id: k.id, name: k.name };
      },
      (k) => ({ target: k.name }),
    ),
);

/** How long a project keeps runs before a purge removes them (null: forever). */
export const setProjectRetention = action(
  { need: "project.admin", projectOf: (i) => i.project },
  z.object({
    project,
    days: z
      .number()
      .int("retention is whole days")
      .min(1, "retention is at least 1 day")
      .max(MAX_RETENTION_DAYS, `retention is at most ${MAX_RETENTION_DAYS} days`)
      .nullable(),
  }),
  async (ctx, input) =>
    audited(
      ctx,
      { action: "project.retention", project: input.project, target: input.project, detail: { retentionDays: input.days } },
      () => setRetention(ctx.db, input.project, input.days).then(() => ({ project: input.project, days: input.days })),
    ),
);

/** After how many days a purge drops a project's payloads, keeping summaries, findings and hashes (null: never). */
export const setProjectPayloadRetention = action(
  { need: "project.admin", projectOf: (i) => i.project },
  z.object({
    project,
    days: z
      .number()
      .int("payload retention is whole days")
      .min(1, "payload retention is at least 1 day")
      .max(MAX_RETENTION_DAYS, `payload retention is at most ${MAX_RETENTION_DAYS} days`)
      .nullable(),
  }),
  async (ctx, input) =>
    audited(
      ctx,
      { action: "project.payload-retention", project: input.project, target: input.project, detail: { payloadDays: input.days } },
      () => setPayloadRetention(ctx.db, input.project, input.days).then(() => ({ project: input.project, days: input.days })),
    ),
);

/**
 * Sets the project's model prices (one model a line, `MODEL INPUT OUTPUT` in USD per
 * million tokens; lib/view/prices.ts reads it). An empty text removes them.
 */
export const setProjectModelPrices = action(
  { need: "project.admin", projectOf: (i) => i.project },
  z.object({ project, text: z.string().max(40_000, "at most 40,000 characters") }),
  async (ctx, input) => {
    const { table, errors } = parsePriceLines(input.text);
    const models = Object.keys(table).length;
    return audited(ctx, { action: "project.prices", project: input.project, target: input.project, detail: { models } }, async () => {
      if (errors.length > 0) throw new AccessError(errors.slice(0, 5).join("; "), 400);
      await setModelPrices(ctx.db, input.project, table);
      return { project: input.project, models, text: formatPriceLines(table) };
    });
  },
);

/** A policy file's size in characters (the tau-bench airline policy, docs/policies, is 11,000). */
const MAX_POLICY_CHARS = 200_000;

/**
 * Attaches a declared policy to a workflow as its next version and judges its stored runs
 * again (docs/declared-policy.md, "Attaching a policy"). The workflow's runs may span
 * projects, so no one project is decided at the edge: the core allows an account that
 * administers every project holding them (lib/server/workflow-policy.ts), refuses anyone
 * else with 403, and writes the privileged-action log itself, both ways.
 */
export const attachPolicy = action(
  { need: "signed-in" },
  z.object({
    workflow: z.string().min(1, "choose a workflow").max(2_000, "a workflow name has at most 2,000 characters"),
    policy: z
      .string()
      .min(1, "paste a policy or choose a file")
      .max(MAX_POLICY_CHARS, `a policy has at most ${MAX_POLICY_CHARS.toLocaleString("en-US")} characters`),
  }),
  async (ctx, input) =>
    attachWorkflowPolicy(ctx.db, { principal: ctx.principal, label: actorOf(ctx.principal) }, input.workflow, input.policy),
);
