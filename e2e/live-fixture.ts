/**
 * The setting of the live-action specs (access-live, access-continue, access-resume): the
 * demo agent's journals, a locked SQLite server made as an operator makes one (viewer,
 * reviewer, sandbox operator, admin) with them imported by the real CLI, and the demo bank
 * and scripted model over HTTP, whose executors each spec registers with the CLI
 * (credential on stdin, stored encrypted). Also the steps every spec takes: sign in in
 * the browser, a session cookie for calling server actions, screenshots at both sizes.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, type Locator, type Page } from "@playwright/test";
import { startBankServer, type BankServer } from "../scripts/demo-agent/bank-server";
import { runScenarios, type ScenarioName } from "../scripts/demo-agent/scenarios";
import { actionIds, callAction, PASSWORD, startLockedServer, type LockedServer } from "./access-servers";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** One event of a demo journal, as the specs read them. */
export interface DemoEvent {
  run: string;
  seq: number;
  type: string;
  data: Record<string, unknown>;
}

export interface LiveFixture {
  server: LockedServer;
  bank: BankServer;
  /** The bank's credential (its executors are registered with it). */
  token: string;
  /** The demo journals by run id, as imported. */
  journals: Record<string, DemoEvent[]>;
  /** The real CLI against the fixture's database; its stdout. */
  retrace(args: string[], input?: string): string;
  /** Registers an executor of the default project with the bank's credential; its id. */
  executor(kind: "tool" | "model", name: string, env: string, url: string): string;
  signIn(page: Page, name: string): Promise<void>;
  /** Headers with a signed-in session of `name`, for calling server actions directly. */
  session(name: string): Promise<Record<string, string>>;
  /** Screenshots at 1440×900 and 1024×768; fails when the page scrolls sideways. */
  shots(page: Page, name: string, focus?: Locator): Promise<void>;
  close(): Promise<void>;
}

export async function startLiveFixture(opts: {
  name: string;
  /** The server's port; the bank's is the next one. */
  port: number;
  shotsDir: string;
  /** Demo scenarios to record (all by default). */
  scenarios?: ScenarioName[];
  /** More journals to import beside them: file name → JSONL. */
  journals?: Record<string, string>;
}): Promise<LiveFixture> {
  fs.mkdirSync(opts.shotsDir, { recursive: true });
  const token = `bank-${Math.random().toString(36).slice(2)}-0123456789`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `retrace-${opts.name}-e2e-`));
  await runScenarios({
    outDir: dir,
    dbDir: path.join(dir, "bank"),
    fixedClock: true,
    ...(opts.scenarios ? { scenarios: opts.scenarios } : {}),
  });
  for (const [file, text] of Object.entries(opts.journals ?? {})) fs.writeFileSync(path.join(dir, file), text);
  const files = fs.readdirSync(dir).filter((x) => x.endsWith(".jsonl"));
  const journals: Record<string, DemoEvent[]> = {};
  for (const f of files) {
    const events = fs
      .readFileSync(path.join(dir, f), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as DemoEvent);
    journals[events[0].run] = events;
  }
  const server = await startLockedServer({
    name: opts.name,
    dialect: "sqlite",
    port: opts.port,
    accounts: [
      { name: "viewer", role: "viewer" },
      { name: "reviewer", role: "reviewer" },
      { name: "op-sandbox", role: "operator", env: "sandbox" },
      { name: "admin", role: "admin" },
    ],
    // the bank listens on loopback, which executors may reach only when allowed (docs/live-actions.md)
    env: { RETRACE_EXECUTOR_HOSTS: "127.0.0.1" },
  });
  const retrace = (args: string[], input = "") => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: server.databaseUrl, RETRACE_EXECUTOR_HOSTS: "127.0.0.1" };
    delete env.RETRACE_TOKENS;
    const r = spawnSync(process.execPath, [path.join(ROOT, "scripts/retrace.mjs"), ...args], {
      cwd: ROOT,
      input,
      encoding: "utf8",
      env,
      timeout: 120_000,
    });
    if (r.status !== 0) throw new Error(`retrace ${args.join(" ")}: ${r.stderr}`);
    return r.stdout;
  };
  retrace(["import", ...files.map((f) => path.join(dir, f))]);
  const bank = await startBankServer({ dir: path.join(dir, "bank"), port: opts.port + 1, token });
  return {
    server,
    bank,
    token,
    journals,
    retrace,
    executor: (kind, name, env, url) =>
      /executor (ex_[0-9a-f]+)/.exec(
        retrace(
          ["executor", "add", "--project", "default", "--kind", kind, "--name", name, "--env", env, "--url", url, "--credential"],
          `${token}\n`,
        ),
      )![1],
    async signIn(page, name) {
      await page.goto(`${server.base}/login`);
      await page.getByLabel("Name", { exact: true }).fill(name);
      await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL((u) => u.pathname !== "/login");
    },
    async session(name) {
      const out = await callAction(server.base, actionIds().get("session.signIn")!, { name, password: PASSWORD });
      if (!out.cookie) throw new Error(`no session for ${name}`);
      return { cookie: `retrace_session=${out.cookie}` };
    },
    async shots(page, name, focus) {
      for (const [w, h] of [
        [1440, 900],
        [1024, 768],
      ] as const) {
        await page.setViewportSize({ width: w, height: h });
        await page.waitForTimeout(150);
        if (focus) await focus.scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${opts.shotsDir}/${name}-${w}.png` });
        const scroll = await page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
        expect(scroll, `${name} at ${w}px scrolls sideways`).toBe(false);
      }
      await page.setViewportSize({ width: 1440, height: 900 });
    },
    async close() {
      await bank.close();
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
