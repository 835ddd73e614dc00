/**
 * Core journal types (format v1, see docs/journal-format.md).
 *
 * Ids and sequence numbers are branded so a seq is never passed where a line number or a
 * count is expected. Timestamps are RFC 3339 strings in UTC with millisecond precision;
 * where a number is needed it is epoch milliseconds (`EpochMs`).
 */

export type RunId = string & { readonly __brand: "RunId" };
export type Seq = number & { readonly __brand: "Seq" };
/** Milliseconds since the Unix epoch. */
export type EpochMs = number & { readonly __brand: "EpochMs" };

/**
 * A JSON value as Retrace holds it. Integers beyond 2^53 are kept exact as `bigint`
 * (the NDJSON reader produces them; canonical JSON writes their exact digits).
 */
export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export const EVENT_TYPES = [
  "run.start",
  "run.end",
  "step.start",
  "step.end",
  "input",
  "retrieval",
  "context",
  "model.request",
  "model.response",
  "tool.call",
  "tool.result",
  "approval.request",
  "approval.decision",
  "state",
  "checkpoint",
  "decision",
  "error",
  "reconcile",
  "note",
] as const;
export type KnownEventType = (typeof EVENT_TYPES)[number];
/** A known type or an `x-…` extension. */
export type EventType = KnownEventType | `x-${string}`;

/**
 * One journal event as it arrived (after validation). `data` and unknown envelope
 * fields are kept as they are, so hashing sees exactly what the recorder hashed.
 */
export interface JournalEvent {
  run: RunId;
  seq: Seq;
  ts: string;
  type: EventType;
  step?: string;
  parent?: Seq;
  data: JsonObject;
  hash?: string;
  [extra: string]: JsonValue | undefined;
}

export interface RunPolicy {
  requireApproval?: string[];
  maxSteps?: number;
  retrievalMaxAgeSeconds?: number;
  requiredInstructions?: string[];
  /** Tool contracts by tool name (docs/journal-format.md, "Tool contracts"). */
  tools?: Record<string, ToolContract>;
  /** Invariants over the run's past (docs/journal-format.md, "Invariants"). */
  invariants?: Invariant[];
}

/** What a policy declares of one tool. */
export interface ToolContract {
  /** Overrides an effect an importer inferred (`effectInferred`). */
  effect?: "read" | "write";
  /** `not-applicable`: a write to this tool needs no idempotency key (no effect.no-idempotency). */
  idempotency?: "required" | "not-applicable";
  /** JSON Schema (a bounded subset, docs/journal-format.md) the call's `args` must satisfy. */
  args?: unknown;
}

/** A JSON Pointer (RFC 6901) into a call's args or a result; a `*` segment means every array element or object member. */
export type ArgPath = string;

export type Invariant =
  | {
      id: string;
      kind: "requires-before";
      tools: string[];
      /** The tool (or any of the tools) that must have succeeded first. */
      after: string | string[];
      /** The value to match: the earlier call's args at `afterArg`, or its result at `afterResult`. */
      sameArg?: { arg: ArgPath; afterArg: ArgPath } | { arg: ArgPath; afterResult: ArgPath };
    }
  | {
      id: string;
      kind: "state-precondition";
      tools: string[];
      arg: ArgPath;
      source: { tool: string; arg: ArgPath; path: ArgPath };
      /** Allowed values of the field (scalars). */
      in: Array<string | number | boolean | null>;
    }
  | { id: string; kind: "once-per"; tools: string[]; arg: ArgPath }
  | { id: string; kind: "confirmed-by-input"; tools: string[]; words: string[] }
  | { id: string; kind: "arg-from-input"; tools: string[]; arg: ArgPath; from: Array<"user" | { tool: string }> };

export type InvariantKind = Invariant["kind"];
export const INVARIANT_KINDS = ["requires-before", "state-precondition", "once-per", "confirmed-by-input", "arg-from-input"] as const;

export type Fidelity = "replayable" | "trace" | "partial";

export type Severity = "error" | "warning";

export const RULE_IDS = [
  "journal.gap",
  "journal.chain",
  "context.missing",
  "context.instruction-omitted",
  "retrieval.stale",
  "tool.partial",
  "approval.missing",
  "approval.stale-state",
  "approval.undecided",
  "approval.denied",
  "approval.reused",
  "loop.past-stop",
  "loop.max-steps",
  "effect.no-idempotency",
  "effect.retry-after-unknown",
  "effect.duplicate",
  "state.hash-mismatch",
  "secret.exposed",
  "tool.args-invalid",
  "policy.requires-before",
  "policy.state-precondition",
  "policy.once-per",
  "policy.confirmed-by-input",
  "policy.arg-from-input",
] as const;
export type RuleId = (typeof RULE_IDS)[number];

export interface Finding {
  rule: RuleId;
  seq: Seq;
  severity: Severity;
  /** For people. Never contains a secret: messages name kinds and paths, not values. */
  message: string;
}

/** A problem with one input line; `line` is 1-based. */
export interface LineError {
  line: number;
  message: string;
  run?: string;
  seq?: number;
}

export const asSeq = (n: number) => n as Seq;
