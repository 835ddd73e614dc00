/** Keeps events in an array: for tests, and for agents that hand the journal over themselves. */
import type { JournalEvent } from "../journal/types";
import type { Sink } from "./types";

export interface MemorySink extends Sink {
  readonly events: JournalEvent[];
}

export function memorySink(): MemorySink {
  const events: JournalEvent[] = [];
  return {
    events,
    write: (e) => void events.push(e),
    flush: async () => true,
    close: async () => true,
  };
}
