/**
 * Run state as the format defines it: starts as {}, `state.set` replaces it, `state.patch`
 * applies RFC 6902 operations strictly, `checkpoint` replaces it with its snapshot.
 * States are treated as immutable values: every step returns a new object, so replay can
 * keep any step's state without copying.
 */
import jsonPatch from "fast-json-patch";
import type { Operation } from "fast-json-patch";
import { hashOf } from "../canonical";
import type { JournalEvent, JsonValue } from "../journal/types";

export type RunState = JsonValue;

export const EMPTY_STATE: RunState = Object.freeze({}) as RunState;
export const EMPTY_STATE_HASH = hashOf({});

export type StateStep =
  | { ok: true; state: RunState }
  | { ok: false; state: RunState; error: string };

/** Applies a JSON Patch strictly; on any failing operation the state is left unchanged. */
export function applyPatch(state: RunState, patch: unknown): StateStep {
  if (!Array.isArray(patch)) return { ok: false, state, error: "patch is not an array of operations" };
  try {
    const err = jsonPatch.validate(patch as Operation[], state);
    if (err) return { ok: false, state, error: `${err.name}: ${err.message.split("\n")[0]}` };
    // banPrototypeModifications: a payload must never reach Object.prototype
    const result = jsonPatch.applyPatch(state, patch as Operation[], true, false, true);
    return { ok: true, state: result.newDocument as RunState };
  } catch (e) {
    const message = e instanceof Error ? e.message.split("\n")[0] : String(e);
    return { ok: false, state, error: message };
  }
}

/** The state after a `state` or `checkpoint` event; other events leave it as it is. */
export function nextState(state: RunState, event: JournalEvent): StateStep {
  const data = event.data;
  if (event.type === "checkpoint") {
    return { ok: true, state: (data.state ?? {}) as RunState };
  }
  if (event.type !== "state") return { ok: true, state };
  if ("set" in data) return { ok: true, state: (data.set ?? null) as RunState };
  if ("patch" in data) return applyPatch(state, data.patch);
  return { ok: false, state, error: "state event has neither set nor patch" };
}

export { hashOf as stateHash };
