/**
 * Streaming selection of OTLP JSON spans: export requests (`resourceSpans[].scopeSpans[]`),
 * Tempo's legacy `batches[].instrumentationLibrarySpans[]`, `{trace: …}` wrappers and
 * arrays of any of these, nested as `spansFromOtlpJson` accepts them. Each span object is
 * built alone and normalised at once by `spansFromOtlpJson` itself (wrapped in a one-span
 * request), so the mapping cannot drift from the whole-document path.
 *
 * Resource and scope may come after the spans in a JSON object, so they are attached when
 * their container closes; spans are passed on only then.
 */
import { isRecord } from "../json-utils";
import { keyValues, spansFromOtlpJson } from "../otlp";
import type { NormalizedSpan } from "../span";
import { eachElement, type ContainerVisitor, type StreamJson, type ValueVisitor } from "./json-walker";

type SpanSink = (spans: NormalizedSpan[]) => void;

const RESOURCE_LISTS = new Set(["resourceSpans", "resource_spans", "batches"]);
const SCOPE_LISTS = new Set(["scopeSpans", "scope_spans", "instrumentationLibrarySpans"]);

export function appendAll<T>(into: T[], items: T[]): void {
  // Not push(...items): spreading 100k+ items overflows the call stack.
  for (const item of items) into.push(item);
}

/**
 * Spans gathered per member key of one object. JSON.parse keeps the last of duplicate keys,
 * so a key seen again starts over.
 */
class SpansByKey {
  private readonly parts = new Map<string, NormalizedSpan[]>();

  open(key: string): NormalizedSpan[] {
    const list: NormalizedSpan[] = [];
    this.parts.set(key, list);
    return list;
  }

  all(): NormalizedSpan[] {
    const out: NormalizedSpan[] = [];
    for (const list of this.parts.values()) appendAll(out, list);
    return out;
  }
}

// A span the real code maps to a scope: how `scopeOf` is reached without copying it.
const PROBE_SPAN = { traceId: "01", spanId: "01" };

function scopeOf(scopeMembers: Record<string, StreamJson>): NormalizedSpan["scope"] {
  return spansFromOtlpJson({ resourceSpans: [{ scopeSpans: [{ ...scopeMembers, spans: [PROBE_SPAN] }] }] })[0]?.scope;
}

function spanList(into: NormalizedSpan[], warnings: string[]): ValueVisitor {
  const span: ValueVisitor = {
    take(value) {
      if (!isRecord(value)) return;
      const [normalized] = spansFromOtlpJson({ resourceSpans: [{ scopeSpans: [{ spans: [value] }] }] }, warnings);
      if (normalized) into.push(normalized);
    },
  };
  return { enter: (kind) => (kind === "array" ? eachElement(span) : undefined) };
}

function scopeSpans(into: NormalizedSpan[], warnings: string[]): ContainerVisitor {
  const scopeMembers: Record<string, StreamJson> = {};
  const parts = new SpansByKey();
  return {
    member(key) {
      if (key === "scope" || key === "instrumentationLibrary") return { take: (v) => void (scopeMembers[key] = v) };
      if (key === "spans") return spanList(parts.open(key), warnings);
      return undefined;
    },
    end() {
      const spans = parts.all();
      const scope = scopeOf(scopeMembers);
      if (scope) for (const s of spans) s.scope = scope;
      appendAll(into, spans);
    },
  };
}

function resourceSpans(into: NormalizedSpan[], warnings: string[]): ContainerVisitor {
  let resource: StreamJson | undefined;
  const parts = new SpansByKey();
  return {
    member(key) {
      if (key === "resource") return { take: (v) => void (resource = v) };
      if (typeof key === "string" && SCOPE_LISTS.has(key)) {
        const list = parts.open(key);
        const scope: ValueVisitor = { enter: (kind) => (kind === "object" ? scopeSpans(list, warnings) : undefined) };
        return { enter: (kind) => (kind === "array" ? eachElement(scope) : undefined) };
      }
      return undefined;
    },
    end() {
      const spans = parts.all();
      // One object shared by the resource's spans, as in the whole-document path.
      const attributes = keyValues(isRecord(resource) ? resource.attributes : undefined);
      for (const s of spans) s.resource = attributes;
      appendAll(into, spans);
    },
  };
}

function request(emit: SpanSink, warnings: string[]): ContainerVisitor {
  const parts = new SpansByKey();
  return {
    member(key) {
      if (key === "trace") {
        const list = parts.open(key);
        return { enter: (kind) => (kind === "object" ? request((spans) => appendAll(list, spans), warnings) : undefined) };
      }
      if (typeof key === "string" && RESOURCE_LISTS.has(key)) {
        const list = parts.open(key);
        const rs: ValueVisitor = { enter: (kind) => (kind === "object" ? resourceSpans(list, warnings) : undefined) };
        return { enter: (kind) => (kind === "array" ? eachElement(rs) : undefined) };
      }
      return undefined;
    },
    end: () => emit(parts.all()),
  };
}

/** The document: an export request, or arrays (nested too) of them. Spans go to `emit`. */
export function otlpDocument(emit: SpanSink, warnings: string[]): ValueVisitor {
  const doc: ValueVisitor = { enter: (kind) => (kind === "array" ? eachElement(doc) : request(emit, warnings)) };
  return doc;
}
