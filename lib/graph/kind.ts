/**
 * What an event is "at a glance": one kind per event, a short badge and whether it
 * failed, derived from the summary columns only (type, status, and the effect of the
 * tool call a result answers).
 */

export const EVENT_KINDS = [
  "run",
  "step",
  "input",
  "retrieval",
  "context",
  "model",
  "tool-read",
  "tool-write",
  "approval",
  "state",
  "checkpoint",
  "decision",
  "error",
  "reconcile",
  "note",
  "extension",
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export const KIND_BADGE: Record<EventKind, string> = {
  run: "RUN",
  step: "STEP",
  input: "IN",
  retrieval: "RAG",
  context: "CTX",
  model: "LLM",
  "tool-read": "READ",
  "tool-write": "WRITE",
  approval: "APPR",
  state: "STATE",
  checkpoint: "CKPT",
  decision: "DEC",
  error: "ERR",
  reconcile: "RECON",
  note: "NOTE",
  extension: "EXT",
};

export const KIND_LABEL: Record<EventKind, string> = {
  run: "run",
  step: "step boundary",
  input: "input",
  retrieval: "retrieval",
  context: "context",
  model: "model call",
  "tool-read": "tool read",
  "tool-write": "tool write",
  approval: "approval",
  state: "state",
  checkpoint: "checkpoint",
  decision: "decision",
  error: "error",
  reconcile: "reconcile",
  note: "note",
  extension: "extension",
};

/**
 * @param effect for tool events, the `effect` of the tool call (`read`/`write`); for a
 * `tool.call` it is its own status column, for a `tool.result` the caller looks it up.
 */
export function kindOf(type: string, effect: string | null): EventKind {
  switch (type) {
    case "run.start":
    case "run.end":
      return "run";
    case "step.start":
    case "step.end":
      return "step";
    case "input":
      return "input";
    case "retrieval":
      return "retrieval";
    case "context":
      return "context";
    case "model.request":
    case "model.response":
      return "model";
    case "tool.call":
    case "tool.result":
      return effect === "write" ? "tool-write" : "tool-read";
    case "approval.request":
    case "approval.decision":
      return "approval";
    case "state":
      return "state";
    case "checkpoint":
      return "checkpoint";
    case "decision":
      return "decision";
    case "error":
      return "error";
    case "reconcile":
      return "reconcile";
    case "note":
      return "note";
    default:
      return "extension";
  }
}

/** Did this event fail? The one failure predicate of the run semantics (the runs list counts the same). */
export { isFailure } from "../semantics";
