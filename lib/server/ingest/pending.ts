import "server-only";
/** An arrived event on its way to storage, with the texts ingest derives from it once. */
import { canonicalWithoutHash } from "../../journal/chain";
import type { ReaderItem } from "../../journal/reader";
import type { JournalEvent } from "../../journal/types";
import type { SecretHit } from "../../redact";

export interface Pending {
  raw: JournalEvent;
  line: number;
  bytes: number;
  /** The line's text, when the writer may derive the stored text from it (ReaderItem.text). */
  text: string | null;
  keysSorted: boolean;
  /** Canonical text of the event without its hash; computed when first needed (rawText). */
  canonicalRaw: string | null;
  /** The event as stored: redacted (redaction.ts), or the raw one. */
  stored: JournalEvent;
  /** Canonical text of the stored (redacted) event; null: nothing was redacted, the stored text is the raw one. */
  canonicalStored: string | null;
  redactions: number;
  secrets: SecretHit[];
}

const NO_HITS: SecretHit[] = [];

export function pendingOf(item: Extract<ReaderItem, { kind: "event" }>): Pending {
  return {
    raw: item.event,
    line: item.line,
    bytes: item.bytes,
    text: item.text,
    keysSorted: item.keysSorted,
    canonicalRaw: null,
    stored: item.event,
    canonicalStored: null,
    redactions: 0,
    secrets: NO_HITS,
  };
}

/** The canonical text the recorder hashed. */
export function rawText(p: Pending): string {
  return (p.canonicalRaw ??= canonicalWithoutHash(p.raw, p.keysSorted));
}

/** The canonical text stored. */
export function storedText(p: Pending): string {
  return p.canonicalStored ?? rawText(p);
}
