import "server-only";
/**
 * Redaction accounting for arriving events: what is stored in place of each secret, how
 * many were replaced, and which secrets the analyzer reports (secret.exposed), including
 * placeholders left by an earlier arrival of the same data (IngestOptions.redactedBefore).
 */
import { canonicalJson } from "../../canonical";
import { withoutHash } from "../../journal/chain";
import type { JournalEvent } from "../../journal/types";
import { findPlaceholders, type Redactor } from "../../redact";
import { rawText, type Pending } from "./pending";

export function redactArrival(p: Pending, mayHoldSecret: boolean, redactor: Redactor, redactedBefore: boolean): void {
  if (mayHoldSecret) {
    const red = redactor.redact(withoutHash(p.raw));
    if (red.count > 0) {
      p.stored = red.value as JournalEvent;
      p.canonicalStored = canonicalJson(red.value);
      p.redactions = red.count;
      p.secrets = red.hits;
    }
  }
  if (redactedBefore && rawText(p).includes("[redacted:")) {
    const earlier = findPlaceholders(withoutHash(p.raw));
    p.redactions += earlier.length;
    p.secrets = [...p.secrets, ...earlier];
  }
}
