/**
 * The run's policy as `run.start` states it (or as a workflow's attached policy replaces
 * it). Fields of the wrong type are dropped rather than trusted, so a malformed policy
 * switches its rule off instead of crashing the fold; the journal schema
 * (lib/journal/schema.ts) refuses them with a clear error where a journal enters.
 */
import type { Invariant, JsonValue, RunPolicy, ToolContract } from "../journal/types";
import { num, obj, str } from "../journal/values";
import { isArgPath } from "./arg-path";

function stringList(v: JsonValue | undefined): string[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return v.filter((x): x is string => typeof x === "string");
}

function readContract(v: JsonValue): ToolContract | null {
  const o = obj(v);
  if (!o) return null;
  const c: ToolContract = {};
  if (o.effect === "read" || o.effect === "write") c.effect = o.effect;
  if (o.idempotency === "required" || o.idempotency === "not-applicable") c.idempotency = o.idempotency;
  if (o.args !== undefined) c.args = o.args;
  return c;
}

/** One invariant, or null when its shape is not one of the kinds (docs/journal-format.md, "Invariants"). */
export function readInvariant(v: JsonValue): Invariant | null {
  const o = obj(v);
  const id = str(o?.id);
  const tools = stringList(o?.tools);
  if (!o || id === undefined || !tools || tools.length === 0) return null;
  switch (o.kind) {
    case "requires-before": {
      const after = str(o.after) ?? stringList(o.after);
      if (after === undefined || after.length === 0) return null;
      const same = obj(o.sameArg);
      if (o.sameArg === undefined) return { id, kind: "requires-before", tools, after };
      if (!same || !isArgPath(same.arg)) return null;
      if (isArgPath(same.afterArg))
        return { id, kind: "requires-before", tools, after, sameArg: { arg: same.arg, afterArg: same.afterArg } };
      if (isArgPath(same.afterResult))
        return { id, kind: "requires-before", tools, after, sameArg: { arg: same.arg, afterResult: same.afterResult } };
      return null;
    }
    case "state-precondition": {
      const src = obj(o.source);
      const tool = str(src?.tool);
      if (!isArgPath(o.arg) || !src || tool === undefined || !isArgPath(src.arg) || !isArgPath(src.path) || !Array.isArray(o.in))
        return null;
      const allowed = o.in.filter(
        (x): x is string | number | boolean | null => x === null || ["string", "number", "boolean"].includes(typeof x),
      );
      return { id, kind: "state-precondition", tools, arg: o.arg, source: { tool, arg: src.arg, path: src.path }, in: allowed };
    }
    case "once-per":
      return isArgPath(o.arg) ? { id, kind: "once-per", tools, arg: o.arg } : null;
    case "confirmed-by-input": {
      const words = stringList(o.words);
      return words && words.length > 0 ? { id, kind: "confirmed-by-input", tools, words } : null;
    }
    case "arg-from-input": {
      if (!isArgPath(o.arg) || !Array.isArray(o.from) || o.from.length === 0) return null;
      const from: Array<"user" | { tool: string }> = [];
      for (const f of o.from) {
        if (f === "user") from.push("user");
        else if (str(obj(f)?.tool) !== undefined) from.push({ tool: str(obj(f)?.tool) as string });
        else return null;
      }
      return { id, kind: "arg-from-input", tools, arg: o.arg, from };
    }
    default:
      return null;
  }
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
  const tools = obj(policy.tools);
  if (tools) {
    const contracts: Record<string, ToolContract> = {};
    for (const name of Object.keys(tools)) {
      const c = readContract(tools[name]);
      if (c) Object.defineProperty(contracts, name, { value: c, enumerable: true, writable: true, configurable: true });
    }
    out.tools = contracts;
  }
  if (Array.isArray(policy.invariants)) {
    const seen = new Set<string>();
    const invariants: Invariant[] = [];
    for (const v of policy.invariants) {
      const inv = readInvariant(v);
      if (inv && !seen.has(inv.id)) {
        seen.add(inv.id);
        invariants.push(inv);
      }
    }
    out.invariants = invariants;
  }
  return out;
}

/** The contract a policy declares for a tool (own members only: a tool named `__proto__` is data). */
export function contractOf(policy: RunPolicy | null, tool: string): ToolContract | undefined {
  const tools = policy?.tools;
  return tools !== undefined && Object.hasOwn(tools, tool) ? tools[tool] : undefined;
}

/**
 * The event as every reading of the run takes it: a `run.start` with the policy attached to
 * the run (`retrace import --policy`, `retrace policy attach`) in place of the recorded one.
 * Only what the run means changes: the stored event, its hash and the recorder's chain stay
 * as recorded, so a reader verifies hashes on the event it was given and folds this one.
 * `attached` undefined: the run is judged by the policy it recorded.
 */
export function judgedBy<E extends { type: string; data: { [k: string]: JsonValue } }>(event: E, attached: JsonValue | undefined): E {
  if (attached === undefined || event.type !== "run.start") return event;
  return { ...event, data: { ...event.data, policy: attached } };
}

/** A run's events as judged by `attached` (judgedBy on its run.start); the same array when nothing is attached. */
export function judgedEvents<E extends { type: string; data: { [k: string]: JsonValue } }>(
  events: readonly E[],
  attached: JsonValue | undefined,
): readonly E[] {
  return attached === undefined ? events : events.map((e) => judgedBy(e, attached));
}
