/**
 * The gateway's journal: every event redacted (lib/redact, as every ingest is) before it is
 * numbered, chained and handed to a sink (a file, or a Retrace server through the recorder's
 * HTTP sink, which spools while the server is down).
 */
import { toJson } from "../importers/to-json";
import { computeEventHash } from "../journal/chain";
import type { EventType, JournalEvent, JsonObject, RunId, Seq } from "../journal/types";
import type { Redactor } from "../redact";
import type { Sink } from "../recorder/types";

export class JournalWriter {
  private seq = 0;
  private lastHash = "";

  constructor(
    readonly runId: string,
    private readonly sink: Sink,
    private readonly redactor: Redactor,
    private readonly clock: () => number = Date.now,
  ) {}

  get head(): string {
    return this.lastHash;
  }

  /** Appends one event; returns its seq. */
  append(type: EventType, data: Record<string, unknown>, parent?: number): number {
    const clean = this.redactor.redact(toJson(data)).value as JsonObject;
    const event: JournalEvent = {
      run: this.runId as RunId,
      seq: this.seq as Seq,
      ts: new Date(this.clock()).toISOString(),
      type,
      data: clean,
    };
    if (parent !== undefined) event.parent = parent as Seq;
    event.hash = computeEventHash(this.lastHash, event);
    this.lastHash = event.hash;
    this.sink.write(event);
    return this.seq++;
  }

  flush(timeoutMs?: number): Promise<boolean> {
    return this.sink.flush(timeoutMs);
  }

  close(timeoutMs?: number): Promise<boolean> {
    return this.sink.close(timeoutMs);
  }
}
