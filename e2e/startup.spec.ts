/**
 * Start-up (instrumentation.ts → lib/server/startup.ts) of the real `next start` from the
 * build, on fresh databases of its own: a server with no accounts or keys refuses every
 * address but loopback and says how to add an admin; on 127.0.0.1 it prints a one-time
 * setup link that makes the first admin once, and then every page asks for a sign-in.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { SQLITE_PORT } from "./servers";

const PORT = SQLITE_PORT + 49;
const stamp = `${process.env.E2E_STAMP ?? "run"}_${SQLITE_PORT}`;

function env(databaseUrl: string): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, NEXT_TELEMETRY_DISABLED: "1" };
  delete e.RETRACE_TOKENS;
  return e;
}

function freshDb(name: string): string {
  fs.mkdirSync(".tmp", { recursive: true });
  const file = `.tmp/startup-${stamp}-${name}.db`;
  for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
  const url = `file:./${file}`;
  const r = spawnSync(process.execPath, ["scripts/retrace.mjs", "migrate"], { env: env(url), encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  return url;
}

interface Server {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function start(databaseUrl: string, args: string[]): Server {
  const child = spawn(process.execPath, ["node_modules/.bin/next", "start", ...args], { env: env(databaseUrl) });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => out, exited };
}

/** Resolves when the server answers its health check (a refusing server never does). */
async function answering(port: number): Promise<"answering"> {
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => null);
    if (res?.status === 200) return "answering";
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function stop(s: Server) {
  if (s.child.exitCode === null) s.child.kill("SIGTERM");
  await s.exited;
}

test.describe("start-up", () => {
  test.setTimeout(120_000);

  for (const [name, args] of [
    ["-H 0.0.0.0", ["-H", "0.0.0.0"]],
    ["no -H (Next listens on every address)", []],
  ] as const) {
    test(`with no accounts, ${name} refuses to start and says how to add an admin`, async () => {
      const s = start(freshDb("refuse"), [...args, "-p", String(PORT)]);
      try {
        const code = await Promise.race([s.exited, answering(PORT)]);
        expect(code, s.output()).not.toBe("answering");
        expect(code, s.output()).not.toBe(0);
        expect(s.output()).toContain("refusing to start");
        expect(s.output()).toContain("npm run -s retrace -- user add NAME --role admin");
      } finally {
        await stop(s);
      }
    });
  }

  test("on 127.0.0.1: a setup link makes the first admin once, then sign-in is required", async ({ browser }) => {
    const db = freshDb("setup");
    const s = start(db, ["-H", "127.0.0.1", "-p", String(PORT)]);
    try {
      await expect.poll(s.output, { timeout: 60_000 }).toMatch(/\/setup\?token=/);
      const link = /(http:\/\/\S+\/setup\?token=[\w-]+)/.exec(s.output())![1];
      expect(new URL(link).host).toBe(`127.0.0.1:${PORT}`);

      const first = await browser.newContext();
      const page = await first.newPage();
      await page.goto(link);
      await page.getByLabel("Name").fill("ada");
      await page.getByLabel("Password (at least 10 characters)").fill("correct horse battery");
      await page.getByLabel("Password again").fill("correct horse battery");
      await page.getByRole("button", { name: "Create admin and sign in" }).click();
      await expect(page).toHaveURL(`http://127.0.0.1:${PORT}/`);
      await expect(page.locator(".user-name")).toHaveText("ada");
      // the open-mode banner is gone
      await expect(page.locator(".open-mode-banner")).toHaveCount(0);

      // the same link again: refused, and no second admin
      const second = await browser.newContext();
      const again = await second.newPage();
      await again.goto(link);
      await again.getByLabel("Name").fill("mallory");
      await again.getByLabel("Password (at least 10 characters)").fill("another password");
      await again.getByLabel("Password again").fill("another password");
      await again.getByRole("button", { name: "Create admin and sign in" }).click();
      await expect(again.locator(".auth-error")).toContainText("no longer valid");

      // anonymous: pages send to the login page (back to the same path and query after), routes say 401
      await again.goto(`http://127.0.0.1:${PORT}/runs/some-run?event=3`);
      await expect(again).toHaveURL(`http://127.0.0.1:${PORT}/login?next=${encodeURIComponent("/runs/some-run?event=3")}`);
      await expect(again.getByRole("heading", { name: "Sign in to Retrace" })).toBeVisible();
      expect((await second.request.get(`http://127.0.0.1:${PORT}/api/runs`)).status()).toBe(401);
      await first.close();
      await second.close();
    } finally {
      await stop(s);
    }
    expect(s.output()).not.toMatch(/refusing/);

    // with an admin the server is locked: it may listen everywhere, and prints no link
    const open = start(db, ["-H", "0.0.0.0", "-p", String(PORT + 1)]);
    try {
      await answering(PORT + 1);
      expect((await fetch(`http://127.0.0.1:${PORT + 1}/api/runs`)).status).toBe(401);
      expect(open.output()).not.toMatch(/setup\?token=|refusing/);
    } finally {
      await stop(open);
    }
  });
});
