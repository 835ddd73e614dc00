import "server-only";
/**
 * Recorder links that could not be checked yet: a redacted event that arrived before its
 * predecessor. Its link needs the text the recorder hashed, which holds the secret and so
 * is never stored; this process keeps it in memory (bounded, oldest dropped first) until
 * the predecessor arrives and the late-filled gap's rechain (finishing.ts) checks the
 * link. A gap filled by another instance, after a restart or after eviction stays
 * unverified: honest, since nothing stored can decide it.
 */

interface Held {
  /** The canonical text the recorder hashed (secrets included). */
  raw: string;
  /** The stored (redacted) text: the entry answers only for the row that holds it. */
  stored: string;
}

const held = new Map<string, Held>();
let heldChars = 0;
/** Characters kept at most (UTF-16 units of both texts). */
const PENDING_LINK_CHARS = 32 * 1024 * 1024;

const keyOf = (run: string, seq: number, recordedHash: string) => `${run}\u0000${seq}\u0000${recordedHash}`;

function drop(key: string): void {
  const h = held.get(key);
  if (!h) return;
  held.delete(key);
  heldChars -= h.raw.length + h.stored.length;
}

/** Keeps the raw text of a redacted event whose predecessor is absent. */
export function holdLink(run: string, seq: number, recordedHash: string, raw: string, stored: string): void {
  const size = raw.length + stored.length;
  if (size > PENDING_LINK_CHARS / 4) return; // one huge event must not evict every other
  const key = keyOf(run, seq, recordedHash);
  drop(key);
  held.set(key, { raw, stored });
  heldChars += size;
  for (const oldest of held.keys()) {
    if (heldChars <= PENDING_LINK_CHARS) break;
    drop(oldest);
  }
}

/** The raw text held for the stored row (run, seq, recorded hash, stored body), removed; null when none. */
export function takeLink(run: string, seq: number, recordedHash: string, stored: string): string | null {
  const key = keyOf(run, seq, recordedHash);
  const h = held.get(key);
  if (!h || h.stored !== stored) return null;
  drop(key);
  return h.raw;
}
