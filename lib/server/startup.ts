import "server-only";
/**
 * What a server checks as it starts (instrumentation.ts): a server with no accounts and
 * no keys is open, which is safe only on a loopback address; bound anywhere else it
 * refuses to start and says how to add an admin. With no accounts it prints a one-time
 * setup link for the first admin.
 */
import net from "node:net";
import { accessMode } from "./access/authenticate";
import { guardForwardedFor } from "./access/client-address";
import { issueSetupToken } from "./access/login";
import { getDb } from "./db";
import { sweepTempFiles } from "./temp-files";

interface Bound {
  host: string;
  port: string;
}

/**
 * The addresses this process listens on. Next's HTTP server is listening before it runs
 * instrumentation (and holds requests until that is done), so this is the truth whatever
 * started it: `next start -H …` (argv), `next dev` (a forked child whose argv has no -H),
 * a standalone server.js (HOSTNAME). Node lists its live handles only through
 * `process._getActiveHandles()` (undocumented, present since node 0.x): null when absent.
 */
export function listeningAddresses(handles: (() => unknown[]) | undefined = activeHandles()): Bound[] | null {
  if (!handles) return null;
  const out: Bound[] = [];
  for (const h of handles()) {
    if (!(h instanceof net.Server) || !h.listening) continue;
    const a = h.address();
    if (a && typeof a === "object") out.push({ host: a.address, port: String(a.port) });
  }
  return out;
}

function activeHandles(): (() => unknown[]) | undefined {
  const p = process as unknown as { _getActiveHandles?: () => unknown[] };
  return typeof p._getActiveHandles === "function" ? () => p._getActiveHandles!() : undefined;
}

/**
 * Where `next start -H … -p …` was told to listen, for when the listening sockets cannot be
 * seen. No -H means every address (Next's default); HOSTNAME is not read (`next start`
 * ignores it, and shells and containers set it to the machine's name).
 */
export function boundFromArgv(argv: readonly string[], env: Record<string, string | undefined> = process.env): Bound {
  let host = "0.0.0.0";
  let port = env.PORT ?? "3000";
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if ((a === "-H" || a === "--hostname") && argv[i + 1]) host = argv[i + 1];
    else if (a.startsWith("--hostname=")) host = a.slice("--hostname=".length);
    else if ((a === "-p" || a === "--port") && argv[i + 1]) port = argv[i + 1];
    else if (a.startsWith("--port=")) port = a.slice("--port=".length);
  }
  return { host, port };
}

export function isLoopbackAddress(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^(::ffff:)?127(\.\d{1,3}){3}$/.test(h);
}

const shownHost = (host: string) => (host.includes(":") ? `[${host}]` : host);

export async function checkStartup(
  argv: readonly string[] = process.argv,
  listening: Bound[] | null = listeningAddresses(),
): Promise<void> {
  // before any request: a client must not choose the address login throttling counts
  guardForwardedFor();
  // temporary folders a killed import left (spilled spans, even redacted, do not linger)
  sweepTempFiles();
  const db = getDb();
  const bound = listening && listening.length > 0 ? listening : [boundFromArgv(argv)];
  const exposed = bound.find((b) => !isLoopbackAddress(b.host));
  const mode = await accessMode(db);
  if (mode === "open" && exposed) {
    console.error(
      [
        `retrace: refusing to start on ${shownHost(exposed.host)}: this server has no accounts and no keys, so it would be open to anyone who can reach it.`,
        `Add an admin first:  npm run -s retrace -- user add NAME --role admin`,
        `or lock it with static keys:  RETRACE_TOKENS=name:scope:token (scopes ingest, read, admin)`,
        `or bind it to 127.0.0.1 (open mode, for one person on this machine):  next start -H 127.0.0.1`,
      ].join("\n"),
    );
    process.exit(1);
  }
  // retention: the server purges on its own schedule (RETRACE_PURGE_EVERY_MINUTES)
  const { purgeIntervalMs, startPurgeSchedule } = await import("./retention");
  const every = purgeIntervalMs();
  if (every !== null) startPurgeSchedule(db, every);
  const token = await issueSetupToken(db);
  if (token) {
    const { host, port } = bound[0];
    const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : shownHost(host);
    console.log(
      `retrace: no accounts yet (${mode} mode on ${shownHost(host)}). Create the first admin: http://${shown}:${port}/setup?token=${token}`,
    );
  }
}
