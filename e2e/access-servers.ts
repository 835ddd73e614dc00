/**
 * Locked servers for the access tests, made the way an operator makes one: a fresh
 * database migrated with `retrace migrate`, accounts, a second project and keys made with
 * the real CLI (passwords on stdin, keys read from stdout), then `next start` from the
 * production build. Ports are E2E_PORT_BASE + 50 and up, apart from the suite's servers.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PG_BASE = process.env.TEST_PG_BASE ?? "postgresql://postgres@127.0.0.1:5432";
export const STAMP = (process.env.E2E_STAMP ?? "run").replace(/[^a-z0-9_]/gi, "_").toLowerCase();
export const ACCESS_PORT_BASE = Number(process.env.E2E_PORT_BASE ?? 3100) + 50;

/** Every account's password (the tests sign in with it through the real form). */
export const PASSWORD = "matrix password 0123";

export interface Account {
  name: string;
  role: "viewer" | "reviewer" | "operator" | "admin";
  project?: string;
  env?: string;
}

export interface LockedServer {
  name: string;
  base: string;
  databaseUrl: string;
  keys: Record<string, string>;
  stop(): Promise<void>;
}

function retrace(databaseUrl: string, args: string[], input?: string): string {
  const r = spawnSync(process.execPath, [path.join(ROOT, "scripts/retrace.mjs"), ...args], {
    cwd: ROOT,
    input: input ?? "",
    encoding: "utf8",
    timeout: 120_000,
    env: { ...cleanEnv(), DATABASE_URL: databaseUrl },
  });
  if (r.status !== 0) throw new Error(`retrace ${args.join(" ")} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** The environment without anything that would change access (static keys, proxy trust). */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.RETRACE_TOKENS;
  delete env.RETRACE_TRUST_PROXY;
  delete env.RETRACE_SESSION_IDLE_MINUTES;
  return env;
}

async function freshDatabase(dialect: "sqlite" | "postgres", name: string): Promise<string> {
  if (dialect === "sqlite") {
    const file = path.join(ROOT, ".tmp", `access-${name}-${STAMP}.db`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
    return `file:${file}`;
  }
  const db = `retrace_${name}_${STAMP}`;
  const admin = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${db}"`);
  } finally {
    await admin.end();
  }
  return `${PG_BASE}/${db}`;
}

export interface ServerSetup {
  name: string;
  dialect: "sqlite" | "postgres";
  port: number;
  accounts: readonly Account[];
  projects?: readonly string[];
  /** key name → [scope, project] */
  keys?: Record<string, ["ingest" | "read", string]>;
  env?: Record<string, string>;
}

export async function startLockedServer(s: ServerSetup): Promise<LockedServer> {
  const databaseUrl = await freshDatabase(s.dialect, s.name);
  retrace(databaseUrl, ["migrate"]);
  for (const p of s.projects ?? []) retrace(databaseUrl, ["project", "add", p]);
  for (const a of s.accounts) {
    const args = ["user", "add", a.name, "--role", a.role, "--project", a.project ?? "default"];
    if (a.env) args.push("--env", a.env);
    retrace(databaseUrl, args, `${PASSWORD}\n`);
  }
  const keys: Record<string, string> = {};
  for (const [name, [scope, project]] of Object.entries(s.keys ?? {})) {
    keys[name] = retrace(databaseUrl, ["key", "add", name, "--scope", scope, "--project", project]).trim();
  }

  const log = fs.openSync(path.join(ROOT, ".tmp", `access-${s.name}-${STAMP}.log`), "w");
  const child: ChildProcess = spawn(path.join(ROOT, "node_modules/.bin/next"), ["start", "-H", "127.0.0.1", "-p", String(s.port)], {
    cwd: ROOT,
    env: { ...cleanEnv(), DATABASE_URL: databaseUrl, NEXT_TELEMETRY_DISABLED: "1", ...s.env },
    stdio: ["ignore", log, log],
    // its own process group, so stop() ends exactly what this started
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const base = `http://127.0.0.1:${s.port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the ${s.name} server exited (${child.exitCode}); see .tmp/access-${s.name}-${STAMP}.log`);
    const up = await fetch(`${base}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error(`the ${s.name} server did not answer on ${base} in 90 s`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    name: s.name,
    base,
    databaseUrl,
    keys,
    async stop() {
      if (child.exitCode === null && child.pid) {
        process.kill(-child.pid, "SIGTERM");
        // next start waits for open connections (a browser's live stream) before exiting
        const late = setTimeout(() => child.pid && process.kill(-child.pid, "SIGKILL"), 10_000);
        await exited;
        clearTimeout(late);
      }
      fs.closeSync(log);
    },
  };
}

/** POSTs a fixture journal with a key; the run ids it stored. */
export async function seedJournal(base: string, key: string, file: string): Promise<string[]> {
  const text = fs.readFileSync(path.join(ROOT, "tests/fixtures/examples", file), "utf8");
  const res = await fetch(`${base}/api/journals`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/x-ndjson" },
    body: text,
  });
  if (res.status !== 201) throw new Error(`seeding ${file}: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { runs: { run: string }[] };
  return body.runs.map((r) => r.run);
}

export const fixtureLine = (file: string, n: number): string =>
  fs.readFileSync(path.join(ROOT, "tests/fixtures/examples", file), "utf8").split("\n")[n] + "\n";

// ---- server actions, called the way the browser calls them ----

interface ManifestEntry {
  workers: Record<string, unknown>;
  filename?: string;
  exportedName?: string;
}

/**
 * The action ids of this build (.next/server/server-reference-manifest.json), keyed
 * `file.export` (`session.signIn`), each with a page that serves it: Next runs an action
 * POSTed to a page whose bundle includes it.
 */
export function actionIds(): Map<string, { id: string; page: string }> {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, ".next/server/server-reference-manifest.json"), "utf8")) as {
    node: Record<string, ManifestEntry>;
  };
  const out = new Map<string, { id: string; page: string }>();
  for (const [id, e] of Object.entries(manifest.node)) {
    const m = /^app\/actions\/([\w-]+)\.ts$/.exec(e.filename ?? "");
    if (!m || !e.exportedName) continue;
    const pages = Object.keys(e.workers).map((w) => w.replace(/^app/, "").replace(/\/page$/, "") || "/");
    // a page anyone may load, so the render after the action is not itself refused
    const page = ["/login", "/setup"].find((p) => pages.includes(p)) ?? pages.find((p) => !p.includes("[")) ?? "/login";
    out.set(`${m[1]}.${e.exportedName}`, { id, page });
  }
  return out;
}

export type ActionOutcome = { status: number; result?: { ok: boolean; status?: number; error?: string; value?: unknown }; cookie?: string };

/**
 * POSTs a server action as React's client does: `Next-Action: <id>`, the arguments encoded
 * as JSON text (a plain object argument), `Accept: text/x-component`, and the Origin of the
 * page. The answer is an RSC stream whose row 0 points at the action's return value.
 */
export async function callAction(
  base: string,
  action: { id: string; page: string },
  input: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<ActionOutcome> {
  const res = await fetch(`${base}${action.page}`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "next-action": action.id,
      accept: "text/x-component",
      "content-type": "text/plain;charset=UTF-8",
      origin: base,
      ...headers,
    },
    body: JSON.stringify([input]),
  });
  const text = await res.text();
  const cookie = /retrace_session=([^;]*)/.exec(res.headers.get("set-cookie") ?? "")?.[1];
  if (res.headers.get("x-action-redirect")) return { status: 303, cookie };
  if (res.status !== 200) return { status: res.status, cookie };
  const rows = new Map<string, string>();
  for (const line of text.split("\n")) {
    const i = line.indexOf(":");
    if (i > 0) rows.set(line.slice(0, i), line.slice(i + 1));
  }
  const head = JSON.parse(rows.get("0") ?? "{}") as { a?: string };
  const ref = /^\$@([0-9a-f]+)$/.exec(head.a ?? "")?.[1];
  if (!ref || !rows.has(ref)) throw new Error(`action answered without a result row: ${text.slice(0, 300)}`);
  const result = JSON.parse(rows.get(ref) as string) as NonNullable<ActionOutcome["result"]>;
  return { status: result.ok ? 200 : (result.status ?? 500), result, cookie };
}
