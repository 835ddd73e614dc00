/**
 * Where a gateway journal goes: a file (`--out`), a Retrace server (`--url`, ingest key from
 * RETRACE_KEY, spooled while the server is down), or nowhere. Secrets are redacted with the
 * key in RETRACE_REDACTION_KEY (hex) when set, else with a key of this process. `observe`
 * sees every event as it is written (a replay's policy guard, lib/playback).
 */
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { JournalWriter } from "../../gateway";
import { Redactor, redactionKeyFromHex } from "../../redact";
import type { JournalEvent } from "../../journal/types";
import { fileSink, httpSink, memorySink, type Sink } from "../../recorder";

export interface JournalTarget {
  writer: JournalWriter;
  /** What the journal is, for people and `--json`: the file, or the run id when streamed. */
  name: string | null;
}

export function newRunId(prefix: string): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*$/, "");
  return `${prefix}-${stamp}-${randomBytes(4).toString("hex")}`.slice(0, 128);
}

/** `sink`, with `observe` told of each event as it is written. */
function observed(sink: Sink, observe: ((e: JournalEvent) => void) | undefined): Sink {
  if (!observe) return sink;
  return { write: (e) => (sink.write(e), observe(e)), flush: (t) => sink.flush(t), close: (t) => sink.close(t) };
}

export function journalTarget(
  runId: string,
  out: string | undefined,
  url: string | undefined,
  observe?: (e: JournalEvent) => void,
): JournalTarget {
  const hex = process.env.RETRACE_REDACTION_KEY;
  const key = hex && /^[0-9a-fA-F]{32,}$/.test(hex) && hex.length % 2 === 0 ? redactionKeyFromHex(hex) : new Uint8Array(randomBytes(32));
  const redactor = new Redactor(key);
  const onError = (e: Error) => console.error(`retrace gateway: ${e.message}`);
  if (out !== undefined)
    return { writer: new JournalWriter(runId, observed(fileSink(path.resolve(out), { onError }), observe), redactor), name: out };
  if (url !== undefined) {
    const spoolDir = process.env.RETRACE_SPOOL_DIR ?? path.join(os.tmpdir(), "retrace-spool");
    const sink = httpSink({ baseUrl: url, token: process.env.RETRACE_KEY, spoolDir, onError });
    return { writer: new JournalWriter(runId, observed(sink, observe), redactor), name: runId };
  }
  return { writer: new JournalWriter(runId, observed(memorySink(), observe), redactor), name: null };
}
