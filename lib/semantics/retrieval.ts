/**
 * The retrieval verdict (docs/journal-format.md, `retrieval.stale` and "Retrieval"): each
 * retrieved document's age at the retrieval, exact to the nanosecond, against the policy's
 * `retrievalMaxAgeSeconds`. The analyzer reports `retrieval.stale` from it and the
 * inspect answer carries it, so the pane and the finding read one comparison.
 */
import { num, obj, str } from "../journal/values";
import { epochNanos, secondsToNanos } from "./time";

export interface RetrievalDocument {
  /** position in `documents` */
  index: number;
  /** the document's `id` as recorded (any JSON), undefined when absent */
  id: unknown;
  /** milliseconds from `indexedAt` to the retrieval (fractional, from exact nanoseconds), null without a readable date */
  ageMs: number | null;
  /** strictly older than the allowed age; null without a limit or a date */
  stale: boolean | null;
}

export interface RetrievalVerdict {
  /** the policy's limit, null when the run's policy sets none */
  maxAgeSeconds: number | null;
  documents: RetrievalDocument[];
  /** some document is stale: `retrieval.stale` is reported at this event */
  stale: boolean;
}

/** The verdict of a `retrieval` event under `maxAgeSeconds` (the run's policy value, whatever its type). */
export function retrievalVerdict(
  event: { readonly ts: string; readonly data: Readonly<Record<string, unknown>> },
  maxAgeSeconds: unknown,
): RetrievalVerdict {
  const max = num(maxAgeSeconds) ?? null;
  const now = epochNanos(event.ts);
  const limit = now === null || max === null ? null : now - secondsToNanos(max);
  const docs = Array.isArray(event.data.documents) ? event.data.documents : [];
  let stale = false;
  const documents = docs.map((doc, index): RetrievalDocument => {
    const d = obj(doc);
    const indexedAt = str(d?.indexedAt);
    const at = indexedAt === undefined ? null : epochNanos(indexedAt);
    const ageMs = at === null || now === null ? null : Number(now - at) / 1e6;
    const old = at === null || limit === null ? null : at < limit;
    if (old === true) stale = true;
    return { index, id: d?.id, ageMs, stale: old };
  });
  return { maxAgeSeconds: max, documents, stale };
}
