/**
 * Streaming selection of Jaeger JSON spans (`{data: [trace…]}`, an array of traces, or one
 * trace). Each span is normalised by `spansFromJaeger` itself as soon as it is read; what
 * depends on the rest of its trace is patched when the trace closes, because Jaeger writes
 * `processes` after `spans`: the resource (from `processes[processID]`) and, for a span
 * without its own `traceID`, the trace's id.
 */
import { asArray, idToHex, isRecord, str } from "../json-utils";
import { spansFromJaeger } from "../jaeger";
import type { Attributes, NormalizedSpan } from "../span";
import { eachElement, type ContainerVisitor, type StreamJson, type ValueVisitor } from "./json-walker";
import { appendAll } from "./otlp-stream";

type TraceSink = (spans: NormalizedSpan[], warnings: string[]) => void;

interface PendingSpan {
  span: NormalizedSpan;
  processId: string;
  ownTraceId: boolean;
}

/** The resource `spansFromJaeger` gives a span of process `processId` (one object per process). */
function processResource(processes: Record<string, unknown>, processId: string): Attributes {
  return spansFromJaeger({ processes, spans: [{ spanID: "01", processID: processId }] })[0]?.resource ?? {};
}

/**
 * One trace object. At the root it may instead be a `{data: [...]}` wrapper; which one is
 * only known at its end (`data` must be an array), so both are gathered until then.
 */
function traceObject(emit: TraceSink, isRoot: boolean): ContainerVisitor {
  let traceId: StreamJson | undefined;
  let processes: StreamJson | undefined;
  let traceWarnings: StreamJson | undefined;
  let pending: PendingSpan[] = [];
  let spanWarnings: string[] = [];
  let dataIsArray = false;
  let data: Array<{ spans: NormalizedSpan[]; warnings: string[] }> = [];

  const span: ValueVisitor = {
    take(value) {
      if (!isRecord(value)) return;
      const warnings: string[] = [];
      // Processes are not known yet: the span gets its own `process` (or nothing) for now.
      const [normalized] = spansFromJaeger({ spans: [value] }, warnings);
      appendAll(spanWarnings, warnings);
      if (normalized)
        pending.push({ span: normalized, processId: str(value.processID) ?? "", ownTraceId: idToHex(value.traceID, 16) !== undefined });
    },
  };

  return {
    member(key) {
      switch (key) {
        case "traceID":
          return { take: (v) => void (traceId = v) };
        case "processes":
          return { take: (v) => void (processes = v) };
        case "warnings":
          return { take: (v) => void (traceWarnings = v) };
        case "spans":
          pending = [];
          spanWarnings = [];
          return { enter: (kind) => (kind === "array" ? eachElement(span) : undefined) };
        case "data":
          if (!isRoot) return undefined;
          dataIsArray = false;
          data = [];
          return {
            enter(kind) {
              if (kind !== "array") return undefined;
              dataIsArray = true;
              return eachElement(jaegerTrace((spans, warnings) => data.push({ spans, warnings }), false));
            },
          };
        default:
          return undefined;
      }
    },
    end() {
      if (dataIsArray) {
        for (const t of data) emit(t.spans, t.warnings);
        return;
      }
      const traceHex = idToHex(traceId, 16) ?? "0";
      const procs = isRecord(processes) ? processes : {};
      const resources = new Map<string, Attributes>();
      const spans = pending.map(({ span: s, processId, ownTraceId }) => {
        if (!ownTraceId) s.traceId = traceHex;
        if (isRecord(procs[processId])) {
          let resource = resources.get(processId);
          if (!resource) resources.set(processId, (resource = processResource(procs, processId)));
          s.resource = resource;
        }
        return s;
      });
      const warnings = [...spanWarnings];
      for (const w of asArray(traceWarnings)) if (typeof w === "string") warnings.push(`Jaeger: ${w}`);
      emit(spans, warnings);
    },
  };
}

function jaegerTrace(emit: TraceSink, isRoot: boolean): ValueVisitor {
  return { enter: (kind) => (kind === "object" ? traceObject(emit, isRoot) : undefined) };
}

/** The document: `{data: [trace…]}`, `[trace…]` or one trace. Each trace goes to `emit` when complete. */
export function jaegerDocument(emit: TraceSink): ValueVisitor {
  return { enter: (kind) => (kind === "array" ? eachElement(jaegerTrace(emit, false)) : traceObject(emit, true)) };
}
