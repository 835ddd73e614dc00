/**
 * The JSON answers of the API routes (app/api, app/v1), as zod schemas: the single
 * definition. lib/server builds the answers to these types, client code (which must not
 * import lib/server) reads them through the inferred types, and the API tests parse every
 * response with the schema, so a route that drifts from it fails a test. docs/openapi.yaml
 * describes the same shapes for people.
 *
 * The schemas are strict (an unknown key is an error) except where a payload is passed on
 * as recorded: a stored event, a run's header, the state. Client code imports this file
 * with `import type` only, so zod stays out of the browser bundle.
 */
import { z } from "zod";
import type { RunIdentity } from "../journal/summary";

const int = z.int();
const seq = z.int().min(0);

/** Every failed request answers `{error}` (401, 403, 404, 400 for a bad query, 413, 415). */
export const errorAnswerSchema = z.strictObject({ error: z.string() });

const runStatusSchema = z.enum(["running", "succeeded", "failed", "cancelled", "incomplete"]);
export type RunStatus = z.infer<typeof runStatusSchema>;
const fidelitySchema = z.enum(["replayable", "trace", "partial"]);
export type RunFidelity = z.infer<typeof fidelitySchema>;
const chainStatusSchema = z.enum(["verified", "unverified", "broken"]);
export type ChainStatus = z.infer<typeof chainStatusSchema>;
/** One event's chain verdict at ingest (lib/journal/chain.ts ChainVerdict). */
const chainVerdictSchema = z.enum(["ok", "fail", "none"]);

/** RunIdentity of lib/journal/summary.ts: what the run says it is, from its run.start. */
const runIdentity = {
  workflow: z.string().nullable(),
  workflowVersion: z.string().nullable(),
  agent: z.string().nullable(),
  agentVersion: z.string().nullable(),
  environment: z.string().nullable(),
  initiator: z.string().nullable(),
} satisfies Record<keyof RunIdentity, z.ZodType>;

const runListItemShape = {
  id: z.string(),
  /** the project the run belongs to */
  project: z.string(),
  ...runIdentity,
  status: runStatusSchema,
  live: z.boolean(),
  /** null when unknown, and when the source recorded no times (timesRecorded false). */
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  durationMs: z.number().nullable(),
  /** false: the source had no times; events carry synthetic ones that only keep their order. */
  timesRecorded: z.boolean(),
  eventCount: int,
  errorCount: int,
  findingCount: int,
  /** findings of severity error (findingCount less these are warnings): the run's health reads both */
  errorFindings: int,
  /** rule id of the finding the health chip names (lib/semantics `topFinding`), null without findings */
  topRule: z.string().nullable(),
  fidelity: fidelitySchema,
  chainStatus: chainStatusSchema,
  chainBrokenAt: seq.nullable(),
  tags: z.array(z.string()),
  source: z.string(),
  updatedAt: z.number(),
  /** the run's run.start `forkOf`: a branch run (a live action's, or any fork) of that run at that seq */
  forkOf: z.object({ run: z.string(), seq: z.number() }).nullable().optional(),
  /** the run's run.start `resumeOf`: a run resumed from that run's checkpoint (a resume branch, or any resumed run) */
  resumeOf: z.object({ run: z.string(), checkpoint: z.string().nullable() }).nullable().optional(),
  /** the run's run.start `replayOf`: the agent replayed against that recorded run through the gateway (`retrace replay -- CMD`) */
  replayOf: z.object({ run: z.string() }).nullable().optional(),
};

/** Where a search's text was found in a run's events: the first matching event the search read. */
const contentMatchSchema = z.strictObject({
  seq,
  /** the event's type (tool.result, model.response…) */
  type: z.string(),
  /** where in the event: a dotted path such as "data.result.refund_id", "" for the stored text itself */
  field: z.string(),
  /** the stored (redacted) text around the match, "…" where cut; text, never markup */
  snippet: z.string(),
});
export type ContentMatch = z.infer<typeof contentMatchSchema>;

/** One run of GET /api/runs. */
const runListItemSchema = z.strictObject({
  ...runListItemShape,
  /** with `q`: the run's first event whose stored text holds it (absent when only names matched) */
  match: contentMatchSchema.optional(),
});
export type RunListItem = z.infer<typeof runListItemSchema>;

/** GET /api/runs. */
export const runListPageSchema = z.strictObject({ runs: z.array(runListItemSchema), nextCursor: z.string().nullable() });
export type RunListPage = z.infer<typeof runListPageSchema>;

const findingItemSchema = z.strictObject({
  rule: z.string(),
  seq,
  severity: z.enum(["error", "warning"]),
  message: z.string(),
});
export type FindingItem = z.infer<typeof findingItemSchema>;

/** GET /api/runs/{run}. */
export const runDetailSchema = z.strictObject({
  ...runListItemShape,
  header: z.record(z.string(), z.unknown()),
  recorderLastHash: z.string().nullable(),
  serverLastHash: z.string().nullable(),
  nextSeq: seq,
  maxSeq: int.min(-1),
  findings: z.array(findingItemSchema),
  /**
   * The declared policy that judged the run: the one its run.start recorded, one attached at
   * import (`retrace import --policy`), or a workflow's attached version; null: none.
   */
  judgedBy: z.union([
    z.strictObject({ source: z.literal("recorded") }),
    /** `policy`: the attached policy (the JSON of run.start.data.policy), which the replay judges the run by too */
    z.strictObject({ source: z.literal("import"), policy: z.unknown() }),
    z.strictObject({ source: z.literal("workflow"), workflow: z.string(), version: int.min(1), policy: z.unknown() }),
    z.null(),
  ]),
});
export type RunDetail = z.infer<typeof runDetailSchema>;

/** One stored event as the events and inspect routes send it. */
const storedEventSchema = z.strictObject({
  seq,
  chain: chainVerdictSchema,
  recordedHash: z.string().nullable(),
  redactions: int.min(0),
  /** The stored (redacted) event, with the server's chain hash as `hash` when known. */
  event: z.looseObject({
    run: z.string(),
    seq,
    ts: z.string(),
    type: z.string(),
    step: z.string().optional(),
    parent: seq.optional(),
    data: z.record(z.string(), z.unknown()),
    hash: z.string().optional(),
  }),
});
export type StoredEvent = z.infer<typeof storedEventSchema>;

/** GET /api/runs/{run}/events: a page of events in seq order; `nextAfter` null on the last. */
export const eventsPageSchema = z.strictObject({ events: z.array(storedEventSchema), nextAfter: seq.nullable() });
export type EventsPage = z.infer<typeof eventsPageSchema>;

/** The run state around an event, rebuilt on the server from the state events. */
const stateAtSchema = z.strictObject({
  /** State before the last state-changing event at or before the seq. */
  before: z.unknown(),
  /** State after it: the run state at the seq. */
  after: z.unknown(),
  /** Seq of that last state-changing event (state or checkpoint), null when none. */
  changedAt: seq.nullable(),
  /** The checkpoint the rebuild started from, null when it started from {}. */
  fromCheckpoint: seq.nullable(),
  /** `data.hash` recorded on the changedAt event. */
  recordedHash: z.string().nullable(),
  /** Hash of the rebuilt state (sha256 of its canonical JSON). */
  rebuiltHash: z.string(),
  /** The state hash the analyzer holds at the seq: the recorded one, or the hash of {}. */
  hashAtSeq: z.string(),
  /** Why the last state event could not be applied, when it could not. */
  error: z.string().nullable(),
  /**
   * The rebuilt state holds secrets replaced at ingest (an event since the last whole
   * replacement was stored redacted): its hash cannot match the recorder's, and is not judged.
   */
  redacted: z.boolean(),
});
export type StateAt = z.infer<typeof stateAtSchema>;

/**
 * The verdicts that concern an inspected event (lib/semantics/verdicts.ts EventVerdicts):
 * what the findings are reported from, for the panes to show rather than decide again.
 */
export const eventVerdictsSchema = z.strictObject({
  /** a retrieval: each document's age (exact, ms) against policy.retrievalMaxAgeSeconds (retrieval.stale) */
  retrieval: z
    .strictObject({
      maxAgeSeconds: z.number().nullable(),
      documents: z.array(
        z.strictObject({ index: int.min(0), id: z.unknown(), ageMs: z.number().nullable(), stale: z.boolean().nullable() }),
      ),
      stale: z.boolean(),
    })
    .nullable(),
  /** an approval.decision: the approver's state hash against the hash in force (approval.stale-state) */
  decision: z
    .strictObject({ stateHash: z.string().nullable(), hashInForce: z.string().nullable(), stale: z.boolean().nullable() })
    .nullable(),
  /** a tool.call, its tool.result or reconcile: the call ledger's outcome and the fold's verdicts at the call */
  call: z
    .strictObject({
      seq,
      call: z.string(),
      effect: z.enum(["read", "write"]),
      status: z.string().nullable(),
      open: z.boolean(),
      confirmed: z.boolean(),
      reconciled: z.strictObject({ outcome: z.string(), where: z.string(), seq: seq.nullable() }).nullable(),
      retryOf: seq.nullable(),
    })
    .nullable(),
  /**
   * a tool.call (its tool.result, reconcile): the fold's approval verdict on it (approval.missing,
   * .undecided, .denied, .reused; "ok" when none applies); an approval.request or decision: the
   * verdict on the call it gates, null while none was made
   */
  approval: z
    .strictObject({
      seq,
      call: z.string(),
      tool: z.string(),
      required: z.boolean(),
      status: z.enum(["ok", "missing", "undecided", "denied", "reused"]),
      requested: z.boolean(),
      approved: z.boolean(),
      denied: z.boolean(),
      usedBy: seq.nullable(),
    })
    .nullable(),
  /**
   * a tool.call (its tool.result, reconcile): the declared policy's verdict on it, the one
   * tool.args-invalid and policy.<kind> are reported from (the attached policy when one
   * judges the run); null when the policy declares no contract schema or invariant for its tool
   */
  policy: z
    .strictObject({
      seq,
      call: z.string(),
      tool: z.string(),
      args: z
        .discriminatedUnion("status", [
          z.strictObject({ status: z.literal("ok") }),
          z.strictObject({ status: z.literal("invalid"), keyword: z.string(), path: z.string(), message: z.string() }),
          z.strictObject({ status: z.literal("schema-refused"), message: z.string() }),
        ])
        .nullable(),
      checked: z.array(z.string()),
      broken: z.array(
        z.strictObject({
          kind: z.enum(["requires-before", "state-precondition", "once-per", "confirmed-by-input", "arg-from-input"]),
          id: z.string(),
          evidence: seq.nullable(),
          path: z.string().nullable(),
        }),
      ),
    })
    .nullable(),
});
export type EventVerdictsAnswer = z.infer<typeof eventVerdictsSchema>;

/** GET /api/runs/{run}/inspect. */
export const inspectAnswerSchema = z.strictObject({
  seq,
  event: storedEventSchema,
  /** Events that belong with it: the call's answer, the approval's pair, the context sent, the parent. */
  related: z.array(storedEventSchema),
  state: stateAtSchema.nullable(),
  findings: z.array(findingItemSchema),
  verdicts: eventVerdictsSchema,
});
export type InspectAnswer = z.infer<typeof inspectAnswerSchema>;

/** A `change` message of GET /api/runs/{run}/stream (Server-Sent Events). */
export const runChangeSchema = z.strictObject({
  eventCount: int,
  maxSeq: int.min(-1),
  nextSeq: seq,
  status: runStatusSchema,
  live: z.boolean(),
  updatedAt: z.number(),
});
export type RunChange = z.infer<typeof runChangeSchema>;

/** GET /api/runs/{run}/usage: each model call's tokens (by its response's seq) and the project's prices. */
const usd = z.number().min(0);
export const usageAnswerSchema = z.strictObject({
  calls: z.array(z.strictObject({ seq, model: z.string().nullable(), inputTokens: z.number().min(0), outputTokens: z.number().min(0) })),
  prices: z.record(z.string(), z.strictObject({ input: usd, output: usd })),
});
export type UsageAnswer = z.infer<typeof usageAnswerSchema>;

/** GET /api/runs/{run}/search. */
/** A page of matches in seq order; `next`: pass it as `after` for the page after (null: this was the last). */
export const searchAnswerSchema = z.strictObject({ seqs: z.array(seq), truncated: z.boolean(), next: seq.nullable() });
export type SearchAnswer = z.infer<typeof searchAnswerSchema>;

/** A string column of the summary: dictionary-encoded (-1 for null), or plain. */
const dictColumnSchema = z.strictObject({ dict: z.array(z.string()), idx: z.array(int.min(-1)) });
export type DictColumn = z.infer<typeof dictColumnSchema>;
const strColumnSchema = z.union([dictColumnSchema, z.array(z.string().nullable())]);
export type StrColumn = z.infer<typeof strColumnSchema>;

/** GET /api/runs/{run}/summary: every event's columns, no payloads (see lib/graph/summary.ts). */
export const summaryAnswerSchema = z.strictObject({
  run: z.string(),
  count: int.min(0),
  /** Epoch ms of the first row. */
  t0: z.number(),
  /** Seqs when they are not simply `seqFrom`, `seqFrom + 1`, …; null when contiguous. */
  seq: z.array(seq).nullable(),
  seqFrom: seq,
  /** ms since the previous row (the first: since t0), so most entries are a few digits. */
  t: z.array(z.number()),
  type: strColumnSchema,
  step: strColumnSchema,
  /** Seq of the causing event; -1 or null for none. */
  parent: z.array(int.min(-1).nullable()),
  call: strColumnSchema,
  name: strColumnSchema,
  status: strColumnSchema,
  /** -1 or null for none. */
  latencyMs: z.array(z.number().nullable()),
  /** -1 or null for none. */
  tokens: z.array(z.number().nullable()),
  chain: strColumnSchema,
  redactions: z.array(int.min(0)),
});
export type SummaryDto = z.infer<typeof summaryAnswerSchema>;

/** What ingest says about one run of an upload. */
const runOutcomeSchema = z.strictObject({
  run: z.string(),
  status: z.enum(["stored", "rejected"]),
  accepted: int.min(0),
  duplicates: int.min(0),
  nextSeq: seq,
  findings: int.min(0),
});
export type RunOutcome = z.infer<typeof runOutcomeSchema>;

const ingestKind = z.enum(["invalid", "conflict", "limit"]);

/** An error of an upload: the 1-based line of the body, and the run and seq when known. */
const lineErrorSchema = z.strictObject({
  line: int.min(1).optional(),
  run: z.string().optional(),
  seq: seq.optional(),
  message: z.string(),
  kind: ingestKind,
});
export type LineError = z.infer<typeof lineErrorSchema>;

/** A warning: a line error that did not reject anything, or an importer's note (message only). */
const ingestMessageSchema = lineErrorSchema.extend({ kind: ingestKind.optional() });

/** POST /api/runs/{run}/events, stored. */
export const appendAnswerSchema = z.strictObject({
  accepted: int.min(0),
  duplicates: int.min(0),
  /** The first missing seq. */
  nextSeq: seq,
  warnings: z.array(ingestMessageSchema),
  /** Warnings noticed beyond the first 100 listed. */
  moreWarnings: int.min(1).optional(),
});
export type AppendAnswer = z.infer<typeof appendAnswerSchema>;

/** POST /api/journals (201, 207, 200, 400, 413 and 415 after reading the body). */
export const journalsAnswerSchema = z.strictObject({
  runs: z.array(runOutcomeSchema),
  errors: z.array(lineErrorSchema),
  warnings: z.array(ingestMessageSchema),
  /** Runs beyond the first 1,000 listed in `runs`. */
  moreRuns: int.min(1).optional(),
  /** Errors noticed beyond the first 100 listed in `errors`. */
  moreErrors: int.min(1).optional(),
  /** Warnings noticed beyond the first 100 listed in `warnings`. */
  moreWarnings: int.min(1).optional(),
  error: z.string().optional(),
  /** The trace format the body looks like, when it is not a journal (415). */
  format: z.string().optional(),
});

/** POST /api/imports: the upload answer, with the format the file was detected as. */
export const importsAnswerSchema = journalsAnswerSchema.extend({ formatLabel: z.string().optional() });

/** POST /api/journals or /api/imports as the upload form reads it: a full answer or just `{error}`. */
export const uploadAnswerSchema = importsAnswerSchema.partial();
export type UploadAnswer = z.infer<typeof uploadAnswerSchema>;

/** POST /api/runs/{run}/events, rejected (400, 409 naming the seq, 413). */
export const appendRejectedSchema = z.strictObject({
  error: z.string(),
  errors: z.array(lineErrorSchema),
  /** Errors noticed beyond the first 100 listed. */
  moreErrors: int.min(1).optional(),
  seq: seq.optional(),
});
export type AppendRejected = z.infer<typeof appendRejectedSchema>;

/** GET /api/health. */
export const healthAnswerSchema = z.strictObject({ ok: z.literal(true), database: z.enum(["sqlite", "postgres"]) });
export type HealthAnswer = z.infer<typeof healthAnswerSchema>;

/** POST /v1/traces as JSON (OTLP ExportTraceServiceResponse): empty, or what was refused. */
export const otlpAnswerSchema = z.strictObject({
  partialSuccess: z.strictObject({ rejectedSpans: int.min(1), errorMessage: z.string() }).optional(),
});
