/**
 * Streams events to Retrace: `POST {baseUrl}/api/runs/{run}/events` with an NDJSON body.
 * The server is idempotent by seq, so anything may be resent; the sink relies on that.
 *
 * Per run, pending events are a spool file (older) followed by an in-memory buffer (newer):
 * - online: events wait in memory and go out in batches of `batchSize`;
 * - when a send fails, or memory passes `maxBuffer`, memory is appended to the spool file
 *   and, until the spool has been delivered, new events are appended there too (bounded
 *   memory, no blocking, order kept);
 * - the spool is sent from a byte offset, batch by batch, with exponential backoff while
 *   Retrace is unreachable, and deleted once delivered. Spool files left by an earlier
 *   process are picked up at start.
 * A 4xx answer (other than 408/429) means the batch will never be accepted; it is moved to
 * `<run>.rejected.ndjson` in the spool folder and reported, so the queue cannot get stuck.
 */
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, readSync, statSync, unlinkSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { canonicalJson } from "../canonical";
import type { JournalEvent } from "../journal/types";
import { defaultReporter, type ErrorReporter, type Sink } from "./types";

export interface HttpSinkOptions {
  baseUrl: string;
  token?: string;
  /** Folder for the per-run spool files (created if missing). */
  spoolDir: string;
  /** Events per request. */
  batchSize?: number;
  /** How often buffered events are sent (and failed sends retried), in ms. */
  flushIntervalMs?: number;
  /** Events held in memory (all runs) before spilling to the spool file. */
  maxBuffer?: number;
  requestTimeoutMs?: number;
  /** Cap of the exponential backoff between failed attempts. */
  maxBackoffMs?: number;
  onError?: ErrorReporter;
  fetch?: typeof fetch;
}

export interface HttpSinkStats {
  sentBatches: number;
  failedAttempts: number;
  acceptedEvents: number;
  duplicateEvents: number;
  spooledEvents: number;
  rejectedEvents: number;
  droppedEvents: number;
  memoryEvents: number;
}

interface Pending {
  line: string;
}

interface RunQueue {
  run: string;
  memory: Pending[];
  spoolPath: string;
  /** The spool file holds undelivered events; new events go there until it is drained. */
  spooled: boolean;
  /** Bytes of the spool file already delivered. */
  offset: number;
}

const SPOOL_SUFFIX = ".ndjson";
const REJECTED_SUFFIX = ".rejected.ndjson";
const MAX_LINE_READ = 64 * 1024 * 1024;

export interface HttpSink extends Sink {
  stats(): HttpSinkStats;
}

export function httpSink(options: HttpSinkOptions): HttpSink {
  const report = options.onError ?? defaultReporter;
  const batchSize = Math.max(1, options.batchSize ?? 100);
  const flushIntervalMs = Math.max(5, options.flushIntervalMs ?? 1000);
  const maxBuffer = Math.max(batchSize, options.maxBuffer ?? 10_000);
  const requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
  const maxBackoffMs = options.maxBackoffMs ?? 30_000;
  const doFetch = options.fetch ?? fetch;
  const base = options.baseUrl.replace(/\/+$/, "");
  const queues = new Map<string, RunQueue>();
  const stats: HttpSinkStats = {
    sentBatches: 0,
    failedAttempts: 0,
    acceptedEvents: 0,
    duplicateEvents: 0,
    spooledEvents: 0,
    rejectedEvents: 0,
    droppedEvents: 0,
    memoryEvents: 0,
  };
  let failures = 0;
  let nextAttemptAt = 0;
  let inflight: Promise<void> | null = null;
  let closed = false;

  try {
    mkdirSync(options.spoolDir, { recursive: true });
  } catch (e) {
    report(new Error(`cannot create the spool folder ${options.spoolDir}: ${msg(e)}`));
  }

  const queueFor = (run: string): RunQueue => {
    let q = queues.get(run);
    if (!q) {
      q = { run, memory: [], spoolPath: join(options.spoolDir, encodeURIComponent(run) + SPOOL_SUFFIX), spooled: false, offset: 0 };
      queues.set(run, q);
    }
    return q;
  };

  // Spool files of an earlier process: deliver them first (the server ignores what it has).
  try {
    for (const name of readdirSync(options.spoolDir)) {
      if (!name.endsWith(SPOOL_SUFFIX) || name.endsWith(REJECTED_SUFFIX)) continue;
      const q = queueFor(decodeURIComponent(name.slice(0, -SPOOL_SUFFIX.length)));
      q.spooled = true;
      // A process that died mid-append may have left half a line; end it so new lines stay whole.
      const size = statSync(q.spoolPath).size;
      if (size > 0) {
        const fd = openSync(q.spoolPath, "r");
        const last = Buffer.alloc(1);
        readSync(fd, last, 0, 1, size - 1);
        closeSync(fd);
        if (last[0] !== 0x0a) appendFileSync(q.spoolPath, "\n");
      }
    }
  } catch {
    // an unreadable folder was reported above
  }

  const appendSpool = (q: RunQueue, lines: string[]) => {
    if (lines.length === 0) return;
    try {
      appendFileSync(q.spoolPath, lines.join("\n") + "\n", "utf8");
      q.spooled = true;
      stats.spooledEvents += lines.length;
    } catch (e) {
      stats.droppedEvents += lines.length;
      report(new Error(`cannot spool ${lines.length} event(s) of run ${q.run} to ${q.spoolPath}: ${msg(e)}; they are lost`));
    }
  };

  const spill = (q: RunQueue) => {
    if (q.memory.length === 0) return;
    const lines = q.memory.map((p) => p.line);
    stats.memoryEvents -= q.memory.length;
    q.memory = [];
    appendSpool(q, lines);
  };

  /** Reads up to `batchSize` complete lines of the spool from the delivered offset. */
  const readSpool = async (q: RunQueue): Promise<{ lines: string[]; bytes: number }> => {
    const fh = await open(q.spoolPath, "r");
    try {
      let size = 256 * 1024;
      for (;;) {
        const buf = Buffer.alloc(size);
        const { bytesRead } = await fh.read(buf, 0, size, q.offset);
        const chunk = buf.subarray(0, bytesRead);
        const lines: string[] = [];
        let at = 0;
        while (lines.length < batchSize) {
          const nl = chunk.indexOf(0x0a, at);
          if (nl < 0) break;
          const line = chunk.subarray(at, nl).toString("utf8");
          if (line.trim() !== "") lines.push(line);
          at = nl + 1;
        }
        // A line longer than the read window: read a bigger window.
        if (lines.length === 0 && bytesRead === size && size < MAX_LINE_READ) {
          size *= 4;
          continue;
        }
        return { lines, bytes: at };
      }
    } finally {
      await fh.close();
    }
  };

  type SendResult = "ok" | "rejected" | "failed";

  const send = async (run: string, lines: string[]): Promise<SendResult> => {
    const headers: Record<string, string> = { "content-type": "application/x-ndjson" };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    try {
      const res = await doFetch(`${base}/api/runs/${encodeURIComponent(run)}/events`, {
        method: "POST",
        headers,
        body: lines.join("\n") + "\n",
        signal: AbortSignal.timeout(requestTimeoutMs),
      });
      const text = await res.text().catch(() => "");
      if (res.ok) {
        stats.sentBatches++;
        try {
          const body = JSON.parse(text) as { accepted?: number; duplicates?: number };
          stats.acceptedEvents += typeof body.accepted === "number" ? body.accepted : lines.length;
          stats.duplicateEvents += typeof body.duplicates === "number" ? body.duplicates : 0;
        } catch {
          stats.acceptedEvents += lines.length;
        }
        return "ok";
      }
      if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) {
        report(new Error(`Retrace refused ${lines.length} event(s) of run ${run} (HTTP ${res.status}): ${text.slice(0, 200)}`));
        return "rejected";
      }
      report(new Error(`Retrace answered HTTP ${res.status} for run ${run}; will retry`));
      return "failed";
    } catch (e) {
      if (failures === 0) report(new Error(`Retrace unreachable (${msg(e)}); spooling to ${options.spoolDir} and retrying`));
      return "failed";
    }
  };

  const fail = (q: RunQueue) => {
    failures++;
    stats.failedAttempts++;
    const delay = Math.min(maxBackoffMs, 100 * 2 ** Math.min(failures - 1, 16));
    nextAttemptAt = Date.now() + delay / 2 + Math.random() * (delay / 2);
    // Keep order and bound memory while Retrace is away: everything of this run goes to disk.
    spill(q);
  };

  const succeed = () => {
    failures = 0;
    nextAttemptAt = 0;
  };

  const hasPending = () => [...queues.values()].some((q) => q.spooled || q.memory.length > 0);

  /** Sends batches until nothing is pending, a send fails, or the backoff says wait. */
  const pump = (): Promise<void> => {
    if (inflight) return inflight;
    if (Date.now() < nextAttemptAt) return Promise.resolve();
    inflight = (async () => {
      try {
        let progressed = true;
        while (progressed) {
          progressed = false;
          for (const q of queues.values()) {
            if (q.spooled) {
              let batch: { lines: string[]; bytes: number };
              try {
                batch = existsSync(q.spoolPath) ? await readSpool(q) : { lines: [], bytes: 0 };
              } catch (e) {
                report(new Error(`cannot read the spool ${q.spoolPath}: ${msg(e)}`));
                continue;
              }
              if (batch.lines.length === 0) {
                // Drained: appends are synchronous, so nothing can land between this check and the unlink.
                try {
                  if (!existsSync(q.spoolPath) || statSync(q.spoolPath).size <= q.offset) {
                    if (existsSync(q.spoolPath)) unlinkSync(q.spoolPath);
                    q.spooled = false;
                    q.offset = 0;
                    progressed = true;
                  }
                } catch (e) {
                  report(new Error(`cannot remove the delivered spool ${q.spoolPath}: ${msg(e)}`));
                }
                continue;
              }
              const r = await send(q.run, batch.lines);
              if (r === "failed") {
                fail(q);
                return;
              }
              if (r === "rejected") reject(q, batch.lines);
              q.offset += batch.bytes;
              succeed();
              progressed = true;
            } else if (q.memory.length > 0) {
              const batch = q.memory.slice(0, batchSize);
              const r = await send(
                q.run,
                batch.map((p) => p.line),
              );
              if (r === "failed") {
                fail(q);
                return;
              }
              if (r === "rejected")
                reject(
                  q,
                  batch.map((p) => p.line),
                );
              // Only what was sent leaves memory; events written meanwhile stay behind it.
              q.memory.splice(0, batch.length);
              stats.memoryEvents -= batch.length;
              succeed();
              progressed = true;
            }
          }
        }
      } finally {
        inflight = null;
      }
    })();
    return inflight;
  };

  const reject = (q: RunQueue, lines: string[]) => {
    stats.rejectedEvents += lines.length;
    try {
      appendFileSync(join(options.spoolDir, encodeURIComponent(q.run) + REJECTED_SUFFIX), lines.join("\n") + "\n", "utf8");
    } catch (e) {
      report(new Error(`cannot keep rejected events of run ${q.run}: ${msg(e)}`));
    }
  };

  const timer = setInterval(() => {
    if (hasPending()) void pump();
  }, flushIntervalMs);
  timer.unref();

  const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(1, ms)));

  const flush = async (timeoutMs = 10_000): Promise<boolean> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (inflight) await Promise.race([inflight, sleep(deadline - Date.now())]);
      if (!hasPending() && !inflight) return true;
      const now = Date.now();
      if (now >= deadline) return false;
      if (now < nextAttemptAt) {
        await sleep(Math.min(nextAttemptAt - now, deadline - now, 250));
        continue;
      }
      await Promise.race([pump(), sleep(deadline - Date.now())]);
    }
  };

  return {
    write(event: JournalEvent) {
      let line: string;
      try {
        line = canonicalJson(event);
      } catch (e) {
        stats.droppedEvents++;
        report(new Error(`event ${event.seq} of run ${event.run} could not be serialised: ${msg(e)}`));
        return;
      }
      const q = queueFor(event.run);
      if (q.spooled || closed) {
        appendSpool(q, [line]);
        return;
      }
      q.memory.push({ line });
      stats.memoryEvents++;
      if (stats.memoryEvents > maxBuffer) {
        // Backpressure without blocking: the oldest runs' buffers move to disk.
        for (const other of queues.values()) spill(other);
      } else if (q.memory.length >= batchSize && !inflight && Date.now() >= nextAttemptAt) {
        setImmediate(() => void pump());
      }
    },
    flush,
    async close(timeoutMs = 10_000) {
      const ok = await flush(timeoutMs);
      clearInterval(timer);
      if (inflight) await Promise.race([inflight, sleep(requestTimeoutMs)]);
      // What could not be delivered stays on disk for the next process.
      for (const q of queues.values()) spill(q);
      closed = true;
      return ok;
    },
    stats: () => ({ ...stats }),
  };
}

function msg(e: unknown): string {
  if (e instanceof Error) {
    const cause = (e as { cause?: unknown }).cause;
    return cause instanceof Error ? `${e.message}: ${cause.message}` : e.message;
  }
  return String(e);
}
