/**
 * What a what-if fork changes, as one zod schema: the CLI's `--override JSON`, the replay
 * page's `?override=` and the fork form all check an override here, so the three accept
 * the same overrides and refuse the rest with the same words, naming the field.
 */
import { z } from "zod";
import { policySchema } from "../journal/schema";
import type { JsonValue } from "../journal/types";
import { ReplayError } from "./errors";

/** Any JSON value (the CLI's exact parser may give a bigint for an integer beyond 2^53). */
const json = z.custom<JsonValue>((v) => v !== undefined);

const POLICY_FIELDS = "requireApproval: string[], maxSteps: a whole number, retrievalMaxAgeSeconds: number, requiredInstructions: string[]";

const toolResult = z
  .object(
    {
      status: z.enum(["ok", "error", "timeout", "unknown"], { error: "must be one of ok, error, timeout, unknown" }).optional(),
      partial: z.boolean({ error: "must be true or false" }).optional(),
      externalId: z.string({ error: "must be a string" }).optional(),
    },
    { error: 'must be a JSON object such as {"status":"error","error":"…"}' },
  )
  .catchall(json);

const toolCall = z
  .object(
    {
      id: z.string({ error: "must be a string" }).optional(),
      name: z.string({ error: "must be a string: each tool call needs a name" }),
      args: json.optional(),
    },
    { error: "must be an object {id, name, args}" },
  )
  .catchall(json);

const modelOutput = z
  .object(
    {
      text: z.string({ error: "must be a string" }).optional(),
      toolCalls: z.array(toolCall, { error: "must be an array of {id, name, args}" }).optional(),
    },
    { error: 'must be a JSON object such as {"text":"…"}' },
  )
  .catchall(json);

const policy = z.strictObject(policySchema.shape, {
  error: (iss) =>
    iss.code === "unrecognized_keys"
      ? `has unknown field${iss.keys.length > 1 ? "s" : ""} ${iss.keys.join(", ")} (it takes ${POLICY_FIELDS})`
      : `must be an object such as {"maxSteps":2} (${POLICY_FIELDS})`,
});

const fields = {
  /** Fields replacing the run's policy from the fork seq on (e.g. `{maxSteps: 2}`). */
  policy: policy.optional(),
  /** The outcome replacing that of the tool.result at the fork seq (or of the fork tool.call's result), not merged with it (plan.ts). */
  toolResult: toolResult.optional(),
  /** Replaces `data.output` of the model.response at the fork seq (or of the fork model.request's response). */
  modelOutput: modelOutput.optional(),
  /** Replaces the run state right after the event at the fork seq. */
  state: json.optional(),
  /** RFC 6902 operations applied to the run state right after the event at the fork seq. */
  statePatch: z.array(json, { error: "must be an array of RFC 6902 operations" }).optional(),
  /** The decision of the approval at the fork seq (an approval.decision, its request, or the gated tool.call). */
  approval: z.enum(["approved", "denied"], { error: 'must be "approved" or "denied"' }).optional(),
};

const forkOverrideSchema = z
  .strictObject(fields, {
    error: (iss) =>
      iss.code === "unrecognized_keys"
        ? `unknown override field${iss.keys.length > 1 ? "s" : ""} ${iss.keys.join(", ")}; expected ${Object.keys(fields).join(", ")}`
        : 'the override must be a JSON object such as {"policy":{"maxSteps":2}}',
  })
  .refine((o) => Object.keys(o).length > 0, "the override is empty")
  .refine((o) => o.state === undefined || o.statePatch === undefined, "give either override.state or override.statePatch, not both");

/** What a what-if fork changes; several fields may be combined. */
export type ForkOverride = z.output<typeof forkOverrideSchema>;

type ForkOverrideCheck = { ok: true; override: ForkOverride } | { ok: false; error: string; path: ReadonlyArray<PropertyKey> };

/** zod's words for the issues this schema leaves to it (the journal's policy fields). */
function fallback(iss: z.core.$ZodRawIssue): string | undefined {
  if (iss.code === "invalid_type") return iss.expected === "int" ? "must be a whole number" : `must be a ${iss.expected}`;
  if (iss.code === "too_small") return `must be ${String(iss.minimum)} or more`;
  return undefined;
}

/**
 * Checks an override from outside. `root` names it in messages ("override" for the CLI
 * and the URL; "" for the form, whose fields are the override's own).
 */
export function checkForkOverride(value: unknown, root = "override"): ForkOverrideCheck {
  const r = forkOverrideSchema.safeParse(value, { error: fallback });
  if (r.success) return { ok: true, override: r.data };
  const issue = r.error.issues[0];
  const where = [root, ...issue.path.map(String)].filter(Boolean).join(".");
  // messages about the whole override are sentences; the others say what a field must be
  return { ok: false, error: issue.path.length === 0 ? issue.message : `${where} ${issue.message}`, path: issue.path };
}

/** The override, or a ReplayError saying which field is wrong and why. */
export function parseForkOverride(value: unknown): ForkOverride {
  const r = checkForkOverride(value);
  if (!r.ok) throw new ReplayError(r.error);
  return r.override;
}
