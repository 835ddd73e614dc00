/**
 * A small HTTP server implementing Retrace's append contract for tests:
 * `POST /api/runs/{run}/events` with NDJSON, idempotent by seq, answering
 * `{accepted, duplicates, nextSeq}`. It can be stopped and started again on the same port
 * to simulate an outage.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { JournalEvent } from "../../journal/types";

export interface AppendServer {
  port: number;
  /** run → seq → the line as received. */
  runs: Map<string, Map<number, string>>;
  requests: number;
  duplicates: number;
  authorization: Array<string | undefined>;
  stop(): Promise<void>;
  start(): Promise<void>;
  rejectRun?: string;
}

export async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function appendServer(port = 0): Promise<AppendServer> {
  const state: AppendServer = {
    port,
    runs: new Map(),
    requests: 0,
    duplicates: 0,
    authorization: [],
    stop: async () => undefined,
    start: async () => undefined,
  };
  let server: Server | undefined;
  state.start = () =>
    new Promise<void>((resolve) => {
      server = createServer(async (req, res) => {
        const m = /^\/api\/runs\/([^/]+)\/events$/.exec(req.url ?? "");
        if (req.method !== "POST" || !m) {
          res.writeHead(404).end();
          return;
        }
        state.requests++;
        state.authorization.push(req.headers.authorization);
        const run = decodeURIComponent(m[1]);
        const text = await body(req);
        if (run === state.rejectRun) {
          res.writeHead(422, { "content-type": "application/json" }).end(JSON.stringify({ error: "invalid events" }));
          return;
        }
        const store = state.runs.get(run) ?? new Map<number, string>();
        state.runs.set(run, store);
        let accepted = 0;
        let duplicates = 0;
        for (const line of text.split("\n")) {
          if (!line.trim()) continue;
          const e = JSON.parse(line) as { run: string; seq: number };
          if (e.run !== run) {
            res.writeHead(400).end();
            return;
          }
          if (store.has(e.seq)) duplicates++;
          else {
            store.set(e.seq, line);
            accepted++;
          }
        }
        state.duplicates += duplicates;
        let nextSeq = 0;
        while (store.has(nextSeq)) nextSeq++;
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ accepted, duplicates, nextSeq }));
      });
      server.listen(state.port, "127.0.0.1", () => {
        state.port = (server!.address() as AddressInfo).port;
        resolve();
      });
    });
  state.stop = () =>
    new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.close(() => resolve());
      // fetch keeps connections alive; drop them so the port is really gone.
      server.closeAllConnections();
    });
  await state.start();
  return state;
}

/** The events stored for a run, in seq order. */
export function stored(server: AppendServer, run: string): JournalEvent[] {
  const store = server.runs.get(run) ?? new Map<number, string>();
  return [...store.keys()].sort((a, b) => a - b).map((seq) => JSON.parse(store.get(seq)!) as JournalEvent);
}
