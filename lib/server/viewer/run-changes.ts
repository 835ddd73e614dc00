import "server-only";
/** "This run changed" for a live run page: a server-sent event stream with a heartbeat. */
import type { RunChange, RunStatus } from "../../view/api-types";
import { subscribeRunChanges } from "../changes";
import type { Db } from "../db";
import { isRunId } from "../queries";

async function runChange(db: Db, runId: string): Promise<RunChange | null> {
  if (!isRunId(runId)) return null;
  const rows = await db.sql.all<{
    eventCount: number | string;
    maxSeq: number | string;
    nextSeq: number | string;
    status: string;
    live: boolean | number;
    updatedAt: number | string;
  }>(`SELECT "eventCount", "maxSeq", "nextSeq", "status", "live", "updatedAt" FROM "Run" WHERE "id" = ?`, [runId]);
  const r = rows[0];
  return r
    ? {
        eventCount: Number(r.eventCount),
        maxSeq: Number(r.maxSeq),
        nextSeq: Number(r.nextSeq),
        status: r.status as RunStatus,
        live: Boolean(r.live),
        updatedAt: Number(r.updatedAt),
      }
    : null;
}

const HEARTBEAT_MS = 15_000;

/**
 * Server-Sent Events for one run: `change` with the run's counters whenever any server
 * instance stores events for it (changes.ts: NOTIFY on PostgreSQL, polling on SQLite),
 * and a comment line now and then so proxies keep the connection open.
 */
export function runChangesStream(db: Db, runId: string, signal: AbortSignal): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let unsubscribe: (() => void) | null = null;
  let heartbeat: ReturnType<typeof setInterval> | null = null;
  let closed = false;
  const stop = () => {
    if (closed) return;
    closed = true;
    unsubscribe?.();
    if (heartbeat) clearInterval(heartbeat);
  };
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (text: string) => {
        if (closed) return;
        try {
          controller.enqueue(enc.encode(text));
        } catch {
          stop();
        }
      };
      const sendChange = async () => {
        const change = await runChange(db, runId).catch(() => null);
        if (change) send(`event: change\ndata: ${JSON.stringify(change)}\n\n`);
      };
      signal.addEventListener("abort", () => {
        stop();
        try {
          controller.close();
        } catch {
          /* already closed */
        }
      });
      send(`retry: 2000\n\n`);
      unsubscribe = await subscribeRunChanges(db, (ids) => {
        if (ids === null || ids.includes(runId)) void sendChange();
      });
      if (closed) unsubscribe();
      heartbeat = setInterval(() => send(`: keep-alive\n\n`), HEARTBEAT_MS);
      // the state now, so a client that missed changes while reconnecting catches up
      await sendChange();
    },
    cancel() {
      stop();
    },
  });
}
