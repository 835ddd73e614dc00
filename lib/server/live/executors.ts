import "server-only";
/**
 * A project's executors (lib/live/README.md): what carries out a live action. Listing
 * never returns a credential; only `executorCredential`, called by the live actions
 * themselves right before a request, opens one.
 */
import { randomBytes } from "node:crypto";
import { ENVIRONMENT } from "../../access/roles";
import { EXECUTOR_KINDS, type ExecutorInfo, type ExecutorKind } from "../../live/types";
import { AccessError, projectExists } from "../access/accounts";
import type { Db } from "../db";
import { executorHostProblem } from "./executor-hosts";
import { openCredential, sealCredential } from "./executor-key";

interface Row {
  id: string;
  projectId: string;
  kind: string;
  name: string;
  environment: string;
  url: string;
  credential: string | null;
  createdMs: number;
  createdBy: string;
}

export interface NewExecutor {
  project: string;
  kind: ExecutorKind;
  /** a tool name, `*` for every tool, or a model name */
  name: string;
  environment: string;
  url: string;
  credential?: string | null;
  createdBy: string;
}

const NAME = /^(\*|[A-Za-z0-9][A-Za-z0-9._:/-]{0,127})$/;
export const MAX_CREDENTIAL = 4096;

/** What is wrong with a new executor, in words for the form; null when nothing. */
export function executorProblem(e: Omit<NewExecutor, "createdBy" | "project">): string | null {
  if (!(EXECUTOR_KINDS as readonly string[]).includes(e.kind)) return "an executor is a tool or a model executor";
  if (!NAME.test(e.name)) return "a name is a tool or model name (letters, digits, . _ : / -) or * for every tool";
  if (e.kind === "model" && e.name === "*") return "a model executor names its model";
  if (!ENVIRONMENT.test(e.environment)) return "an environment is lower-case letters, digits, . _ - (sandbox, production, …)";
  let u: URL;
  try {
    u = new URL(e.url);
  } catch {
    return "the endpoint must be an http:// or https:// URL";
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return "the endpoint must be an http:// or https:// URL";
  // a password in the URL would be stored in the clear: it goes in the credential field
  if (u.username || u.password) return "put no credential in the URL: give it as the credential, which is stored encrypted";
  if (u.search || u.hash) return "the endpoint is a base URL, without ?query or #fragment";
  if (e.credential && e.credential.length > MAX_CREDENTIAL) return `a credential has at most ${MAX_CREDENTIAL} characters`;
  return null;
}

const info = (r: Row): ExecutorInfo => ({
  id: r.id,
  project: r.projectId,
  kind: r.kind as ExecutorKind,
  name: r.name,
  environment: r.environment,
  url: r.url,
  hasCredential: r.credential !== null,
  createdMs: Number(r.createdMs),
  createdBy: r.createdBy,
});

const aadOf = (r: { id: string; projectId: string }) => `retrace executor ${r.projectId} ${r.id}`;

export async function addExecutor(db: Db, e: NewExecutor): Promise<ExecutorInfo> {
  const problem = executorProblem(e) ?? (await executorHostProblem(e.url, db.config.executorHosts));
  if (problem) throw new AccessError(problem, 400);
  if (!(await projectExists(db, e.project))) throw new AccessError(`project "${e.project}" not found`, 404);
  const id = `ex_${randomBytes(8).toString("hex")}`;
  const credential = e.credential ? sealCredential(db.config, e.credential, aadOf({ id, projectId: e.project })) : null;
  const url = e.url.replace(/\/+$/, "");
  const now = Date.now();
  await db.sql.transaction((tx) =>
    tx.run(
      `INSERT INTO "Executor" ("id", "projectId", "kind", "name", "environment", "url", "credential", "createdMs", "createdBy") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [id, e.project, e.kind, e.name, e.environment, url, credential, now, e.createdBy],
    ),
  );
  return info({
    id,
    projectId: e.project,
    kind: e.kind,
    name: e.name,
    environment: e.environment,
    url,
    credential,
    createdMs: now,
    createdBy: e.createdBy,
  });
}

export async function listExecutors(db: Db, projects: "all" | readonly string[]): Promise<ExecutorInfo[]> {
  if (projects !== "all" && projects.length === 0) return [];
  const where = projects === "all" ? "" : ` WHERE "projectId" IN (${projects.map(() => "?").join(", ")})`;
  const rows = await db.sql.all<Row>(
    `SELECT * FROM "Executor"${where} ORDER BY "projectId", "kind", "name", "environment"`,
    projects === "all" ? [] : [...projects],
  );
  return rows.map(info);
}

export async function getExecutor(db: Db, project: string, id: string): Promise<ExecutorInfo | null> {
  const rows = await db.sql.all<Row>(`SELECT * FROM "Executor" WHERE "id" = ? AND "projectId" = ?`, [id, project]);
  return rows.length === 0 ? null : info(rows[0]);
}

export async function removeExecutor(db: Db, project: string, id: string): Promise<ExecutorInfo> {
  const found = await getExecutor(db, project, id);
  if (!found) throw new AccessError(`executor "${id}" not found in project "${project}"`, 404);
  await db.sql.transaction((tx) => tx.run(`DELETE FROM "Executor" WHERE "id" = ? AND "projectId" = ?`, [id, project]));
  return found;
}

/** The tool executors of a project that carry out `tool` (named for it, or `*`). */
export async function toolExecutorsFor(db: Db, project: string, tool: string): Promise<ExecutorInfo[]> {
  const rows = await db.sql.all<Row>(
    `SELECT * FROM "Executor" WHERE "projectId" = ? AND "kind" = 'tool' AND ("name" = ? OR "name" = '*') ORDER BY "environment", "name" DESC`,
    [project, tool],
  );
  return rows.map(info);
}

/** The credential, opened for one request; never logged, returned to a client or stored elsewhere. */
export async function executorCredential(db: Db, ex: ExecutorInfo): Promise<string | null> {
  const rows = await db.sql.all<{ credential: string | null }>(`SELECT "credential" FROM "Executor" WHERE "id" = ? AND "projectId" = ?`, [
    ex.id,
    ex.project,
  ]);
  const sealed = rows[0]?.credential ?? null;
  return sealed === null ? null : openCredential(db.config, sealed, aadOf({ id: ex.id, projectId: ex.project }));
}
