import "server-only";
/**
 * What a server checks as it starts (instrumentation.ts): a server with no accounts and
 * no keys is open, which is safe only on a loopback address; bound anywhere else it
 * refuses to start and says how to add an admin. With no accounts it prints a one-time
 * setup link for the first admin.
 */
import { accessMode } from "./access/authenticate";
import { guardForwardedFor } from "./access/client-address";
import { issueSetupToken } from "./access/login";
import { getDb } from "./db";

/** The address `next start -H …` / `next dev -H …` was given (Next's default is every address). */
export function boundHost(argv: readonly string[] = process.argv, env: Record<string, string | undefined> = process.env): string {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if ((a === "-H" || a === "--hostname") && argv[i + 1]) return argv[i + 1];
    if (a.startsWith("--hostname=")) return a.slice("--hostname=".length);
  }
  return env.HOSTNAME ?? "0.0.0.0";
}

export function isLoopbackAddress(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

function portOf(argv: readonly string[]): string {
  for (let i = 0; i < argv.length; i++) if ((argv[i] === "-p" || argv[i] === "--port") && argv[i + 1]) return argv[i + 1];
  return process.env.PORT ?? "3000";
}

export async function checkStartup(argv: readonly string[] = process.argv): Promise<void> {
  // before any request: a client must not choose the address login throttling counts
  guardForwardedFor();
  const db = getDb();
  const host = boundHost(argv);
  const mode = await accessMode(db);
  if (mode === "open" && !isLoopbackAddress(host)) {
    console.error(
      [
        `retrace: refusing to start on ${host}: this server has no accounts and no keys, so it would be open to anyone who can reach it.`,
        `Add an admin first:  npm run -s retrace -- user add NAME --role admin`,
        `or lock it with static keys:  RETRACE_TOKENS=name:scope:token (scopes ingest, read, admin)`,
        `or bind it to 127.0.0.1 (open mode, for one person on this machine).`,
      ].join("\n"),
    );
    process.exit(1);
  }
  const token = await issueSetupToken(db);
  if (token) {
    const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
    console.log(
      `retrace: no accounts yet (open mode on ${host}). Create the first admin: http://${shown}:${portOf(argv)}/setup?token=${token}`,
    );
  }
}
