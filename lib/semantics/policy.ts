/**
 * The run's policy as `run.start` states it. Fields of the wrong type are dropped rather
 * than trusted, so a malformed policy switches its rule off instead of crashing the fold.
 */
import type { JsonValue, RunPolicy } from "../journal/types";
import { num } from "../journal/values";

function stringList(v: JsonValue | undefined): string[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return v.filter((x): x is string => typeof x === "string");
}

/** The policy of a `run.start`'s `data.policy` (an empty policy when it has none). */
export function readPolicy(policy: JsonValue | undefined): RunPolicy {
  const out: RunPolicy = {};
  if (policy === null || typeof policy !== "object" || Array.isArray(policy)) return out;
  const requireApproval = stringList(policy.requireApproval);
  const maxSteps = num(policy.maxSteps);
  const retrievalMaxAgeSeconds = num(policy.retrievalMaxAgeSeconds);
  const requiredInstructions = stringList(policy.requiredInstructions);
  if (requireApproval) out.requireApproval = requireApproval;
  if (maxSteps !== undefined) out.maxSteps = maxSteps;
  if (retrievalMaxAgeSeconds !== undefined) out.retrievalMaxAgeSeconds = retrievalMaxAgeSeconds;
  if (requiredInstructions) out.requiredInstructions = requiredInstructions;
  return out;
}
