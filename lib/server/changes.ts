import "server-only";
/**
 * "This run changed" across server instances. PostgreSQL: NOTIFY after each commit and
 * one LISTEN connection per process. SQLite (one machine): poll the runs' updatedAt.
 * No in-process-only pub/sub, so any number of instances behind one database agree.
 */
import type { Client as PgClient } from "pg";
import { pgConnectionFromUrl } from "../../prisma/urls";
import type { RetraceConfig } from "./config";
import type { SqlExec } from "./sql";

/** The part of lib/server/db's Db this reads (db.ts stops the hub on close, so it imports this file, not the other way). */
interface Db {
  config: RetraceConfig;
  sql: SqlExec;
}

const CHANNEL = "retrace_runs";
const RECONNECT_MS = 1000;
/** Called with the ids of runs that changed, or null when changes may have been missed. */
type Listener = (runIds: string[] | null) => void;

export async function publishRunChanges(db: Db, runIds: string[]): Promise<void> {
  if (runIds.length === 0 || db.config.dialect !== "postgres") return;
  // NOTIFY payloads are limited to 8000 bytes; send ids in chunks.
  for (let i = 0; i < runIds.length; i += 50) {
    await db.sql.all(`SELECT pg_notify(?, ?)`, [CHANNEL, JSON.stringify(runIds.slice(i, i + 50))]);
  }
}

interface Hub {
  listeners: Set<Listener>;
  stop: () => Promise<void>;
}
const hubs = new WeakMap<Db, Promise<Hub>>();

async function startHub(db: Db): Promise<Hub> {
  const listeners = new Set<Listener>();
  const emit = (ids: string[] | null) => {
    for (const l of listeners) l(ids);
  };
  if (db.config.dialect === "postgres") {
    const { default: pg } = await import("pg");
    const cfg = pgConnectionFromUrl(db.config.databaseUrl);
    let stopped = false;
    let current: PgClient | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const connect = async () => {
      const client = new pg.Client(cfg);
      // A lost connection (server restart, failover) ends with 'end'; reconnect there.
      client.on("error", () => undefined);
      client.on("end", () => {
        if (current !== client) return;
        current = null;
        if (!stopped) reconnectSoon();
      });
      client.on("notification", (msg) => {
        if (msg.channel !== CHANNEL || !msg.payload) return;
        try {
          emit(JSON.parse(msg.payload) as string[]);
        } catch {
          /* ignore a malformed payload */
        }
      });
      try {
        await client.connect();
        await client.query(`LISTEN ${CHANNEL}`);
      } catch (e) {
        await client.end().catch(() => undefined);
        throw e;
      }
      current = client;
    };
    const reconnectSoon = () => {
      retry = setTimeout(() => {
        connect().then(
          // notifications sent while disconnected are lost: every listener re-checks
          () => emit(null),
          () => !stopped && reconnectSoon(),
        );
      }, RECONNECT_MS);
      retry.unref();
    };
    await connect();
    return {
      listeners,
      stop: async () => {
        stopped = true;
        clearTimeout(retry);
        await current?.end();
      },
    };
  }
  let since = Date.now();
  const timer = setInterval(async () => {
    if (listeners.size === 0) return;
    try {
      const rows = await db.sql.all<{ id: string; updatedAt: number }>(
        `SELECT "id", "updatedAt" FROM "Run" WHERE "updatedAt" > ? ORDER BY "updatedAt" LIMIT 500`,
        [since],
      );
      if (rows.length > 0) {
        since = Math.max(...rows.map((r) => Number(r.updatedAt)));
        emit(rows.map((r) => r.id));
      }
    } catch {
      /* the next tick tries again */
    }
  }, 500);
  timer.unref();
  return { listeners, stop: async () => clearInterval(timer) };
}

/** Calls `listener` with the ids of runs that changed (null: re-check everything); returns an unsubscribe function. */
export async function subscribeRunChanges(db: Db, listener: Listener): Promise<() => void> {
  let hub = hubs.get(db);
  if (!hub) {
    hub = startHub(db);
    hubs.set(db, hub);
    hub.catch(() => hubs.delete(db));
  }
  const h = await hub;
  h.listeners.add(listener);
  return () => h.listeners.delete(listener);
}

/** Stops this database's change hub (its LISTEN connection or poll timer), if one started. */
export async function stopRunChanges(db: Db): Promise<void> {
  const hub = hubs.get(db);
  if (!hub) return;
  hubs.delete(db);
  await (await hub.catch(() => null))?.stop();
}
