/**
 * The chain hash of format v1: hash(n) = "sha256:" + hex SHA-256 of
 * `H + "\n" + JCS(event n without its hash field)`, H the recorded hash of event n−1
 * ("" for seq 0). The recorder's chain and Retrace's own chain over what it stored use
 * the same construction, so an exported (redacted) journal verifies with any v1 verifier.
 */
import { canonicalJson, canonicalJsonOfSorted, sha256Hex } from "../canonical";
import type { JournalEvent } from "./types";

/** The event without its envelope `hash` (everything else, unknown fields included). */
export function withoutHash(event: JournalEvent): Omit<JournalEvent, "hash"> {
  if (!("hash" in event)) return event;
  // rest properties are own data properties (CopyDataProperties): `__proto__` stays data
  const { hash: _hash, ...copy } = event;
  return copy;
}

/**
 * The canonical text the chain hashes: the event without its `hash`. `keysSorted` (the
 * reader's finding that every key is already in canonical order) lets JSON.stringify write it.
 */
export function canonicalWithoutHash(event: JournalEvent, keysSorted = false): string {
  const bare = withoutHash(event);
  return keysSorted ? canonicalJsonOfSorted(bare) : canonicalJson(bare);
}

export function chainHashOf(prevHash: string, canonicalText: string): string {
  return "sha256:" + sha256Hex(prevHash + "\n" + canonicalText);
}

export function computeEventHash(prevHash: string, event: JournalEvent): string {
  return chainHashOf(prevHash, canonicalWithoutHash(event));
}

/**
 * The canonical text the chain hashes, from a line of JSON whose JSON.parse is exact (no
 * integer beyond 2^53): what the SQLite writer thread derives the stored text with.
 */
export function canonicalOfLine(line: string, keysSorted: boolean): string {
  return canonicalWithoutHash(JSON.parse(line) as JournalEvent, keysSorted);
}

export type ChainVerdict = "ok" | "fail" | "none";

/**
 * The one link check: an event's recorded hash against its predecessor's recorded hash
 * (`""` before seq 0; null or undefined when absent or unhashed) and its canonical text.
 */
export function verifyLink(
  prevRecordedHash: string | null | undefined,
  canonicalText: string,
  recordedHash: string | null | undefined,
): ChainVerdict {
  if (typeof recordedHash !== "string" || prevRecordedHash === null || prevRecordedHash === undefined) return "none";
  return chainHashOf(prevRecordedHash, canonicalText) === recordedHash ? "ok" : "fail";
}

/**
 * Verifies one event given its predecessor's recorded hash (`undefined` when the
 * predecessor is absent or unhashed; `""` stands for seq 0's empty predecessor).
 */
export function verifyEvent(prevRecordedHash: string | undefined, event: JournalEvent, canonical?: string): ChainVerdict {
  if (typeof event.hash !== "string") return "none";
  const prev = event.seq === 0 ? "" : prevRecordedHash;
  if (prev === undefined) return "none";
  return verifyLink(prev, canonical ?? canonicalWithoutHash(event), event.hash);
}

/**
 * The next link of Retrace's own chain over what it stores, after `tail`. Both chains
 * have one construction, so where the stored text is what arrived (`storedIsRaw`), its
 * link verified (`verdict` ok) and the chains agree so far (`tail` is the predecessor's
 * recorded hash), the server's link is the recorder's hash and costs no SHA-256.
 */
export function nextServerHash(
  tail: string,
  storedText: string,
  link: { verdict: ChainVerdict | null; storedIsRaw: boolean; prevRecordedHash: string | null | undefined; recordedHash: string | null },
): string {
  return link.verdict === "ok" && link.storedIsRaw && tail === link.prevRecordedHash && link.recordedHash !== null
    ? link.recordedHash
    : chainHashOf(tail, storedText);
}

/** Verifies a run's events (sorted by seq): the verdict of each, and where it first broke. */
export function verifyChain(events: JournalEvent[]): { verdicts: ChainVerdict[]; firstFailure: number | null } {
  const verdicts: ChainVerdict[] = [];
  let firstFailure: number | null = null;
  const bySeq = new Map<number, JournalEvent>();
  for (const e of events) if (!bySeq.has(e.seq)) bySeq.set(e.seq, e);
  for (const e of events) {
    const prev = bySeq.get(e.seq - 1);
    const v = verifyEvent(typeof prev?.hash === "string" ? prev.hash : undefined, e);
    verdicts.push(v);
    if (v === "fail" && firstFailure === null) firstFailure = e.seq;
  }
  return { verdicts, firstFailure };
}
