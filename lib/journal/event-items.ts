/**
 * Events built in memory (a converted trace import) → the reader items ingest takes, with
 * no NDJSON text in between. Each item is what `readJournalBatches` gives for the event's
 * canonical line: the same value (keys in canonical order, integers beyond 2^53 as bigint,
 * no undefined), the same checks and error messages, the same byte count, secret hint and
 * line number, so the stored rows are the ones an import of that NDJSON stores.
 */
import { canonicalJson, canonicalJsonOfSorted } from "../canonical";
import { lineMayMatchPattern } from "../redact/patterns";
import { setOwn } from "./own-keys";
import { checkEvent } from "./parse-line";
import type { ReaderItem, ReaderLimits } from "./reader";
import type { JournalEvent } from "./types";

// Items are grouped into batches of about this much text, as the reader's chunks group them.
const BATCH_CHARS = 1 << 20;

/** The value JSON.parse (exactly) gives for `canonicalJson(value)`; `big` is set when it holds a bigint. */
function jsonValue(value: unknown, seen: { big: boolean }): unknown {
  switch (typeof value) {
    case "number":
      if (!Number.isFinite(value)) throw new TypeError("value has no JSON form");
      if (Object.is(value, -0)) return 0;
      // written as its shortest digits (below 1e21), read back beyond 2^53 as a bigint of those digits
      if (Number.isInteger(value) && !Number.isSafeInteger(value) && Math.abs(value) < 1e21) {
        seen.big = true;
        return BigInt(String(value));
      }
      return value;
    case "bigint":
      if (value >= -BigInt(Number.MAX_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(value);
      seen.big = true;
      return value;
    case "object": {
      if (value === null) return null;
      if (Array.isArray(value)) {
        const out = new Array<unknown>(value.length);
        for (let i = 0; i < value.length; i++) {
          const v: unknown = value[i];
          out[i] = v === undefined || typeof v === "function" || typeof v === "symbol" ? null : jsonValue(v, seen);
        }
        return out;
      }
      const src = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(src).sort()) {
        const v = src[key];
        if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
        // an own property, as JSON.parse makes it, whatever the key's name
        setOwn(out, key, jsonValue(v, seen));
      }
      return out;
    }
    default:
      return value;
  }
}

/** UTF-8 length of a string without lone surrogates (canonical JSON escapes them). */
function utf8Length(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 2; // a pair: 2 code units, 4 bytes
      i++;
    } else n += 2;
  }
  return n;
}

/** One event as the reader item of its canonical line (numbered `line`). */
export function eventItem(event: JournalEvent, line: number, limits: ReaderLimits): ReaderItem {
  const seen = { big: false };
  const value = jsonValue(event, seen);
  const r = checkEvent(value, limits, !seen.big);
  const text = r.ok && r.keysSorted ? canonicalJsonOfSorted(value) : canonicalJson(value);
  const bytes = utf8Length(text);
  if (bytes > limits.maxLineBytes)
    return { kind: "error", line, message: `line is ${bytes} bytes, over the ${limits.maxLineBytes}-byte limit` };
  if (!r.ok) return { kind: "error", line, message: r.message, run: r.run, seq: r.seq };
  return {
    kind: "event",
    line,
    event: r.event,
    bytes,
    mayHoldSecret: r.secretKey || lineMayMatchPattern(text),
    keysSorted: r.keysSorted,
    text: r.plainJson ? text : null,
  };
}

/** The events of runs, one run after another, as batches of reader items (lines numbered from 1). */
export async function* eventBatches(
  runs: Iterable<{ events: Iterable<JournalEvent> }> | AsyncIterable<{ events: Iterable<JournalEvent> }>,
  limits: ReaderLimits,
): AsyncGenerator<ReaderItem[]> {
  let batch: ReaderItem[] = [];
  let size = 0;
  let line = 0;
  for await (const run of runs) {
    for (const event of run.events) {
      const item = eventItem(event, ++line, limits);
      batch.push(item);
      size += item.kind === "event" ? item.bytes : 1;
      if (size >= BATCH_CHARS) {
        yield batch;
        batch = [];
        size = 0;
      }
    }
  }
  if (batch.length > 0) yield batch;
}
