/**
 * Zod schema of journal format v1. The envelope is checked first, then `data` against
 * the schema of its type, so an error names the field that is wrong. Unknown fields are
 * allowed and kept: validation only checks, and the reader returns the event exactly as
 * parsed (hashing needs every field). Plain z.object is used because zod compiles it to a
 * fast path, which loose objects lose (much slower on the ingest hot path).
 * The JSON Schema served at /schema/journal-v1.json is generated from `journalEventSchema`.
 */
import { z } from "zod";
import { EVENT_TYPES } from "./types";

export const RUN_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
/**
 * A calendar date that exists: months 01–12, days within the month, 29 February only in
 * leap years (the Gregorian rule). A regex, not a refinement, so the generated JSON Schema
 * and validators check it too.
 */
const DATE_SOURCE =
  "(?:\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))" +
  "|(?:\\d\\d(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)";
const TIME_SOURCE = "(?:[01]\\d|2[0-3]):[0-5]\\d";
const OFFSET_SOURCE = `(?:Z|[+-]${TIME_SOURCE})`;
// RFC 3339 in UTC or with an offset; the format asks for UTC with milliseconds, but a
// recorder that writes seconds or an offset is still read exactly (epoch ms is derived).
// Hours 00–23, minutes and seconds 00–59 (no leap second: epoch ms has none).
export const TS_PATTERN = new RegExp(`^${DATE_SOURCE}T${TIME_SOURCE}:[0-5]\\d(?:\\.\\d{1,9})?${OFFSET_SOURCE}$`);
/** A date filter: a date, or a date and time (seconds, fraction and offset optional). */
export const DATE_FILTER_PATTERN = new RegExp(`^${DATE_SOURCE}(?:T${TIME_SOURCE}(?::[0-5]\\d(?:\\.\\d{1,9})?)?${OFFSET_SOURCE}?)?$`);

const safeInt = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const str = z.string();
const versionMap = z.record(z.string(), z.string());
const anyJson = z.unknown();

/** A JSON Pointer into args or a result (docs/journal-format.md, "Invariants"); `*` matches every element. */
const argPath = z.string().regex(/^(\/.*)?$/, 'expected a JSON Pointer ("" or starting with "/")');
const toolNames = z.array(str).min(1);
const invId = z.string().regex(/\S/, "expected a non-empty id");

export const toolContractSchema = z.object({
  effect: z.enum(["read", "write"]).optional(),
  idempotency: z.enum(["required", "not-applicable"]).optional(),
  args: z.union([z.record(z.string(), anyJson), z.boolean()]).optional(),
});

export const invariantSchema = z.discriminatedUnion("kind", [
  z.object({
    id: invId,
    kind: z.literal("requires-before"),
    tools: toolNames,
    after: z.union([str, z.array(str).min(1)]),
    sameArg: z.union([z.object({ arg: argPath, afterArg: argPath }), z.object({ arg: argPath, afterResult: argPath })]).optional(),
  }),
  z.object({
    id: invId,
    kind: z.literal("state-precondition"),
    tools: toolNames,
    arg: argPath,
    source: z.object({ tool: str, arg: argPath, path: argPath }),
    in: z.array(z.union([str, z.number(), z.boolean(), z.null()])).min(1),
  }),
  z.object({ id: invId, kind: z.literal("once-per"), tools: toolNames, arg: argPath }),
  z.object({
    id: invId,
    kind: z.literal("confirmed-by-input"),
    tools: toolNames,
    words: z.array(z.string().regex(/[\p{L}\p{N}]/u, "expected a word")).min(1),
  }),
  z.object({
    id: invId,
    kind: z.literal("arg-from-input"),
    tools: toolNames,
    arg: argPath,
    from: z.array(z.union([z.literal("user"), z.object({ tool: str })])).min(1),
  }),
]);

export const policySchema = z.object({
  requireApproval: z.array(str).optional(),
  maxSteps: z.number().int().min(0).optional(),
  retrievalMaxAgeSeconds: z.number().min(0).optional(),
  requiredInstructions: z.array(str).optional(),
  tools: z.record(z.string(), toolContractSchema).optional(),
  invariants: z.array(invariantSchema).max(500).optional(),
});

const nameVersion = z.object({ name: str, version: str.optional() });

export const dataSchemas = {
  "run.start": z.object({
    workflow: nameVersion.optional(),
    agent: nameVersion.optional(),
    versions: z
      .looseObject({
        prompts: versionMap.optional(),
        policies: versionMap.optional(),
        tools: versionMap.optional(),
        models: versionMap.optional(),
      })
      .optional(),
    environment: str.optional(),
    initiator: z.object({ kind: str, id: str.optional() }).optional(),
    input: anyJson.optional(),
    policy: policySchema.optional(),
    resumeOf: z.object({ run: str, checkpoint: str.optional() }).optional(),
    forkOf: z.object({ run: str, seq: safeInt }).optional(),
    tags: z.array(str).optional(),
  }),
  "run.end": z.object({
    status: z.enum(["succeeded", "failed", "cancelled"]),
    output: anyJson.optional(),
    error: anyJson.optional(),
  }),
  "step.start": z.object({ name: str, kind: str.optional() }),
  "step.end": z.object({ status: z.enum(["ok", "error"]) }),
  input: z.object({ source: z.enum(["user", "system", "event"]), content: anyJson }),
  retrieval: z.object({
    query: anyJson,
    documents: z.array(
      z.object({
        id: str,
        version: str.optional(),
        indexedAt: z.string().regex(TS_PATTERN, "expected an RFC 3339 timestamp").optional(),
        uri: str.optional(),
        content: anyJson.optional(),
      }),
    ),
  }),
  context: z.object({
    messages: z.array(z.object({ role: str, content: anyJson, source: str.optional() })),
    instructions: z.array(str).optional(),
    template: z.object({ id: str, version: str.optional() }).optional(),
    tokens: z.number().optional(),
  }),
  "model.request": z.object({
    call: str,
    model: str,
    params: z.record(z.string(), anyJson).optional(),
    context: safeInt.optional(),
    messages: z.array(anyJson).optional(),
    tools: z.array(str).optional(),
  }),
  "model.response": z.object({
    call: str,
    output: z
      .looseObject({
        text: str.optional(),
        toolCalls: z.array(z.object({ id: str, name: str, args: anyJson })).optional(),
      })
      .optional(),
    finishReason: str.optional(),
    usage: z.object({ inputTokens: z.number().optional(), outputTokens: z.number().optional() }).optional(),
    latencyMs: z.number().min(0).optional(),
    error: anyJson.optional(),
  }),
  "tool.call": z.object({
    call: str,
    tool: str,
    version: str.optional(),
    args: anyJson,
    effect: z.enum(["read", "write"]),
    // set by importers: the source did not say, the effect was guessed (lib/importers/effects.ts)
    effectInferred: z.boolean().optional(),
    idempotencyKey: str.optional(),
    target: anyJson.optional(),
  }),
  "tool.result": z.object({
    call: str,
    status: z.enum(["ok", "error", "timeout", "unknown"]),
    result: anyJson.optional(),
    error: anyJson.optional(),
    externalId: str.optional(),
    partial: z.boolean().optional(),
    latencyMs: z.number().min(0).optional(),
  }),
  "approval.request": z.object({
    approval: str,
    call: str,
    policy: z.object({ id: str, version: str.optional() }).optional(),
    stateHash: str.optional(),
  }),
  "approval.decision": z.object({
    approval: str,
    decision: z.enum(["approved", "denied"]),
    by: anyJson.optional(),
    reason: str.optional(),
    stateHash: str.optional(),
  }),
  state: z
    .looseObject({ set: anyJson.optional(), patch: z.array(z.object({ op: str, path: str })).optional(), hash: str.optional() })
    .refine((d) => "set" in d || "patch" in d, "a state event needs `set` or `patch`"),
  checkpoint: z.object({ id: str, state: anyJson, hash: str.optional(), durable: z.boolean().optional() }),
  decision: z.object({
    action: z.enum(["continue", "stop", "branch"]),
    reason: str.optional(),
    stop: z.object({ condition: anyJson.optional(), met: z.boolean().optional() }).optional(),
  }),
  error: z.object({ message: str, code: z.union([str, z.number()]).optional(), retryable: z.boolean().optional() }),
  reconcile: z.object({
    call: str,
    outcome: z.enum(["succeeded", "failed"]),
    evidence: anyJson.optional(),
    by: anyJson.optional(),
  }),
  note: z.object({ text: str }),
} as const satisfies Record<(typeof EVENT_TYPES)[number], z.ZodType>;

export const envelopeSchema = z.object({
  run: z.string().regex(RUN_ID_PATTERN, "run id must be 1 to 128 characters of A-Z a-z 0-9 . _ : -"),
  seq: safeInt,
  ts: z.string().regex(TS_PATTERN, "expected an RFC 3339 timestamp of a date and time that exist, such as 2026-11-07T11:00:01.026Z"),
  type: z.union([z.enum(EVENT_TYPES), z.string().regex(/^x-[A-Za-z0-9._:-]+$/)], {
    error: `type must be one of ${EVENT_TYPES.join(", ")} or an x-… extension`,
  }),
  step: str.optional(),
  parent: safeInt.optional(),
  data: z.object({}),
  hash: z
    .string()
    .regex(/^sha256:[0-9a-f]{64}$/, "hash must be sha256: followed by 64 lowercase hex digits")
    .optional(),
});

/** One event of any type, for the generated JSON Schema. */
export const journalEventSchema = z.union([
  ...EVENT_TYPES.map((t) => envelopeSchema.extend({ type: z.literal(t), data: dataSchemas[t] })),
  envelopeSchema.extend({ type: z.string().regex(/^x-[A-Za-z0-9._:-]+$/), data: z.object({}) }),
] as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]]);

export function journalJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(journalEventSchema, { unrepresentable: "any", io: "input" }) as Record<string, unknown>;
  return {
    $id: "https://retrace.dev/schema/journal-v1.json",
    title: "Retrace journal event (format v1)",
    description: "One line of a Retrace journal (NDJSON). Generated from lib/journal/schema.ts.",
    ...schema,
  };
}
