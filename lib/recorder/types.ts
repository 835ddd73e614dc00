/** Types shared by the recorder and its sinks. */
import type { JournalEvent } from "../journal/types";

/**
 * Where recorded events go. `write` is called once per event, in seq order, and must never
 * throw or wait: a sink buffers, and reports its own trouble through `onError`.
 */
export interface Sink {
  write(event: JournalEvent): void;
  /** Resolves true once everything written so far is delivered, false at the timeout. */
  flush(timeoutMs?: number): Promise<boolean>;
  /** Flushes, then releases timers and files. Undelivered events stay spooled (HTTP). */
  close(timeoutMs?: number): Promise<boolean>;
}

/** How a sink reports a problem it has absorbed (it never throws into the agent). */
export type ErrorReporter = (error: Error) => void;

export const defaultReporter: ErrorReporter = (e) => {
  // Recording must not break the agent; the message is all the agent's operator gets.
  console.warn(`[retrace recorder] ${e.message}`);
};
