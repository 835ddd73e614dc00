/**
 * Run state as the format defines it: starts as {}, `state.set` replaces it, `state.patch`
 * applies RFC 6902 operations strictly, `checkpoint` replaces it with its snapshot.
 *
 * States are immutable values, so replay can keep any step's state without copying.
 * Patches are applied copy-on-write: the containers along each operation's path are
 * copied and everything else is shared, then fast-json-patch applies the operation to
 * the copies (with its existence checks and prototype-pollution guard). The library's
 * own non-mutating mode deep-clones the whole state through JSON at every patch, which
 * is slow and throws on integers beyond 2^53.
 */
import jsonPatch from "fast-json-patch";
import type { Operation } from "fast-json-patch";
import { hashOf } from "../canonical";
import type { JournalEvent, JsonValue } from "../journal/types";

export type RunState = JsonValue;

export const EMPTY_STATE: RunState = Object.freeze({}) as RunState;
export const EMPTY_STATE_HASH = hashOf({});

export type StateStep = { ok: true; state: RunState } | { ok: false; state: RunState; error: string };

type Container = Record<string, unknown> | unknown[];

function pointerTokens(pointer: string): string[] | null {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) return null;
  return pointer
    .slice(1)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

const copyOf = (c: Container): Container => (Array.isArray(c) ? c.slice() : { ...c });
const isContainer = (v: unknown): v is Container => v !== null && typeof v === "object";

/**
 * A new root in which every container on the way to the pointer's parent is a fresh
 * shallow copy (so the operation can mutate them), sharing all other subtrees.
 */
function copyAlong(root: unknown, pointer: string): unknown {
  const tokens = pointerTokens(pointer);
  if (tokens === null || tokens.length === 0 || !isContainer(root)) return root;
  const newRoot = copyOf(root);
  let cur: Container = newRoot;
  for (let i = 0; i < tokens.length - 1; i++) {
    const key = tokens[i];
    const child = (cur as Record<string, unknown>)[key];
    if (!isContainer(child) || !Object.prototype.hasOwnProperty.call(cur, key)) break;
    const copy = copyOf(child);
    (cur as Record<string, unknown>)[key] = copy;
    cur = copy;
  }
  return newRoot;
}

/** Applies a JSON Patch strictly; on any failing operation the state is left unchanged. */
export function applyPatch(state: RunState, patch: unknown): StateStep {
  if (!Array.isArray(patch)) return { ok: false, state, error: "patch is not an array of operations" };
  let doc: unknown = state;
  try {
    for (const raw of patch as Operation[]) {
      if (raw === null || typeof raw !== "object") throw new Error("an operation is not an object");
      const op = raw as Operation & { from?: string };
      if (op.op !== "test") doc = copyAlong(doc, op.path);
      if (op.op === "move" && typeof op.from === "string") doc = copyAlong(doc, op.from);
      // validate: strict RFC 6902 (missing paths fail); mutate: only the copies above;
      // banPrototypeModifications: a payload must never reach Object.prototype
      doc = jsonPatch.applyOperation(doc, op, true, true, true).newDocument;
    }
    return { ok: true, state: doc as RunState };
  } catch (e) {
    const message = e instanceof Error ? e.message.split("\n")[0] : String(e);
    const name = e instanceof Error && e.name !== "Error" ? `${e.name}: ` : "";
    return { ok: false, state, error: `${name}${message}` };
  }
}

/**
 * A checkpoint or a `state` with `set`: the state after it does not depend on the one
 * before (what ends a stretch rebuilt from a redacted state, see lib/analyze/README.md).
 */
export function replacesState(event: JournalEvent): boolean {
  return event.type === "checkpoint" || (event.type === "state" && "set" in event.data);
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
