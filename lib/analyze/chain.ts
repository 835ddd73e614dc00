/**
 * The journal's chain hash (format v1, "Integrity"). Shared by `analyze` and `replay` so
 * both verify the same way; the SHA-256 primitive can be injected because the pure-JS
 * one is the slowest part of verifying a long run and node has a native one.
 */
import { canonicalJson, sha256Hex } from "../canonical";
import type { JournalEvent } from "../journal/types";

export type ChainVerdict = "ok" | "fail" | "none";
/** Lowercase hex SHA-256 of a UTF-8 string. */
export type Sha256Hex = (text: string) => string;

/**
 * `sha256:` + hex SHA-256 of `prev + "\n" + JCS(event without its envelope hash)`, or null
 * when the event has no canonical form (a lone surrogate in a string, for instance).
 */
export function chainHash(prev: string, event: JournalEvent, sha: Sha256Hex = sha256Hex): string | null {
  const rest: Record<string, unknown> = { ...event };
  delete rest.hash;
  let text: string;
  try {
    text = canonicalJson(rest);
  } catch {
    return null;
  }
  return "sha256:" + sha(prev + "\n" + text);
}

/**
 * Verdict for one event. `prevHash` is the recorded hash of event seq − 1: a string, or
 * null when that event is absent or has no hash (then nothing can be said: "none").
 * Seq 0 always chains from the empty string.
 */
export function verifyLink(event: JournalEvent, prevHash: string | null, sha: Sha256Hex = sha256Hex): ChainVerdict {
  if (typeof event.hash !== "string") return "none";
  const prev = event.seq === 0 ? "" : prevHash;
  if (prev === null) return "none";
  // An event that cannot be canonicalised cannot match any recorder's hash.
  return chainHash(prev, event, sha) === event.hash ? "ok" : "fail";
}
