import { defineConfig } from "@playwright/test";
import { PG_PORT, SQLITE_PORT } from "./e2e/servers";

/**
 * Two real servers from the production build: one on an SQLite file, one on a
 * PostgreSQL database, each migrated on start. API tests run against both; browser
 * tests use the SQLite one unless they say otherwise.
 */
const PG_BASE = process.env.TEST_PG_BASE ?? "postgresql://postgres@127.0.0.1:5432";
const stamp = `${process.env.E2E_STAMP ?? "run"}_${SQLITE_PORT}`;

const server = (port: number, databaseUrl: string) => ({
  command: `bash scripts/e2e-server.sh ${port}`,
  url: `http://127.0.0.1:${port}/api/health`,
  reuseExistingServer: false,
  timeout: 120_000,
  env: {
    DATABASE_URL: databaseUrl,
    NEXT_TELEMETRY_DISABLED: "1",
    RETRACE_MAX_BODY_BYTES: String(48 * 1024 * 1024),
    RETRACE_MAX_LINE_BYTES: String(6 * 1024 * 1024),
  },
});

export default defineConfig({
  testDir: "e2e",
  timeout: 60_000,
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${SQLITE_PORT}`,
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
    viewport: { width: 1280, height: 720 },
  },
  webServer: [server(SQLITE_PORT, `file:./.tmp/e2e-${stamp}.db`), server(PG_PORT, `${PG_BASE}/retrace_e2e_${stamp}`)],
});
