/**
 * What the list, the graph and the timeline need of an event and a run, derived once at
 * ingest and stored as columns so those views never read payloads.
 */
import type { JournalEvent, JsonObject, JsonValue } from "./types";
import { num as numOrUndefined, obj as objOrUndefined, str as strOrUndefined } from "./values";

export interface EventColumns {
  call: string | null;
  name: string | null;
  status: string | null;
  latencyMs: number | null;
  tokens: number | null;
}

// Columns are null where a field is absent (lib/journal/values reads undefined).
const str = (v: unknown): string | null => strOrUndefined(v) ?? null;
const num = (v: unknown): number | null => numOrUndefined(v) ?? null;
const obj = (v: unknown): JsonObject | null => objOrUndefined(v) ?? null;

export function eventColumns(event: JournalEvent, toolOfCall?: (call: string) => string | undefined): EventColumns {
  const d = event.data;
  const call = str(d.call);
  let name: string | null = null;
  let status: string | null = null;
  let latencyMs: number | null = null;
  let tokens: number | null = null;
  switch (event.type) {
    case "tool.call":
      name = str(d.tool);
      status = str(d.effect);
      break;
    case "tool.result":
      name = call && toolOfCall ? (toolOfCall(call) ?? null) : null;
      status = str(d.status);
      latencyMs = num(d.latencyMs);
      break;
    case "model.request":
      name = str(d.model);
      break;
    case "model.response": {
      const usage = obj(d.usage);
      const i = num(usage?.inputTokens);
      const o = num(usage?.outputTokens);
      tokens = i === null && o === null ? null : tokenCount((i ?? 0) + (o ?? 0));
      latencyMs = num(d.latencyMs);
      status = d.error !== undefined && d.error !== null ? "error" : str(d.finishReason);
      break;
    }
    case "step.start":
      name = str(d.name);
      status = str(d.kind);
      break;
    case "step.end":
    case "run.end":
      status = str(d.status);
      break;
    case "approval.request":
      name = str(d.approval);
      break;
    case "approval.decision":
      name = str(d.approval);
      status = str(d.decision);
      break;
    case "decision":
      status = str(d.action);
      break;
    case "checkpoint":
      name = str(d.id);
      break;
    case "error":
      name = str(d.code) ?? (typeof d.code === "number" ? String(d.code) : null);
      break;
    case "reconcile":
      status = str(d.outcome);
      break;
    case "run.start": {
      const wf = obj(d.workflow);
      name = str(wf?.name);
      break;
    }
  }
  return { call, name, status, latencyMs, tokens };
}

/** The columns of an event the failure count reads (lib/semantics/failure.ts). */
export interface FailureInput {
  type: string;
  status: string | null;
  step: string | null;
  /** `data.call` (tool.result, model.response, an `error` naming the call it concerns). */
  call: string | null;
  /** Envelope `parent`: a `step.start`'s names its enclosing step's `step.start`. */
  parent: number | null;
  seq: number;
}

/** What the failure count reads of an event (lib/semantics/failure.ts). */
export function failureInput(event: JournalEvent, cols: Pick<EventColumns, "status" | "call"> = eventColumns(event)): FailureInput {
  return {
    type: event.type,
    status: cols.status,
    step: typeof event.step === "string" ? event.step : null,
    call: cols.call,
    parent: typeof event.parent === "number" ? event.parent : null,
    seq: event.seq,
  };
}

/** Who ran what where: the run.start fields the runs list shows and filters on. */
export interface RunIdentity {
  workflow: string | null;
  workflowVersion: string | null;
  agent: string | null;
  agentVersion: string | null;
  environment: string | null;
  initiator: string | null;
}

/**
 * `source.timestamps` in run.start when the source recorded no times (SWE-agent and
 * tau-bench files): the importer gives event n the time 1970-01-01T00:00:00.000Z + n ms,
 * which keeps the order and must never be shown as a start, a duration or an offset.
 */
export const SYNTHETIC_TIMES = "synthetic";

/** Whether a run's event times are real, from its header (RunHeader.header). */
export function timesRecordedIn(header: Record<string, unknown>): boolean {
  const source = header.source;
  return !(source !== null && typeof source === "object" && (source as Record<string, unknown>).timestamps === SYNTHETIC_TIMES);
}

export interface RunHeader extends RunIdentity {
  tags: string[];
  /** versions, policy, initiator, resumeOf, forkOf, and a gateway run's replayOf, mode, components, command and isolation: shown on the run page. */
  header: JsonObject;
}

export function runHeaderFromStart(event: JournalEvent): RunHeader {
  const d = event.data;
  const wf = obj(d.workflow);
  const agent = obj(d.agent);
  const initiator = obj(d.initiator);
  const tags = Array.isArray(d.tags) ? d.tags.filter((t): t is string => typeof t === "string") : [];
  const header: JsonObject = {};
  const keys = [
    "versions",
    "policy",
    "initiator",
    "resumeOf",
    "forkOf",
    "replayOf",
    "mode",
    "components",
    "gateway",
    "isolation",
    "source",
    "workflow",
    "agent",
  ] as const;
  for (const k of keys) {
    if (d[k] !== undefined) header[k] = d[k] as JsonValue;
  }
  return {
    workflow: str(wf?.name),
    workflowVersion: str(wf?.version),
    agent: str(agent?.name),
    agentVersion: str(agent?.version),
    environment: str(d.environment),
    initiator: initiator ? [str(initiator.kind), str(initiator.id)].filter(Boolean).join(":") || null : null,
    tags,
    header,
  };
}

/**
 * The tokens column holds a whole count the databases' integer column takes: a recorder's
 * 1.5 or 1e12 is data (the event's body keeps it as sent), never a reason to refuse the run,
 * so the column gets it rounded, or nothing when it is out of an int32's range.
 */
function tokenCount(n: number): number | null {
  const r = Math.round(n);
  return Number.isFinite(r) && Math.abs(r) <= 2_147_483_647 ? r : null;
}
