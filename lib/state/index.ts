/**
 * Run state as the format defines it: starts as {}, `state.set` replaces it, `state.patch`
 * applies RFC 6902 operations strictly, `checkpoint` replaces it with its snapshot.
 *
 * States are immutable values, so replay can keep any step's state without copying.
 * Patches are applied copy-on-write: the containers along each operation's path are
 * copied and everything else is shared. Keys are own properties only, whatever their
 * name: `__proto__`, `constructor` and `prototype` are data like any other key (a payload
 * is attacker-controlled), read with hasOwn and written with defineProperty, so no path
 * ever reaches a prototype. fast-json-patch, the reference the tests compare with, bans
 * such paths instead, and deep-clones through JSON (which throws on integers beyond 2^53).
 */
import { hashOf } from "../canonical";
import type { JournalEvent, JsonValue } from "../journal/types";
import { setOwn } from "../journal/own-keys";

export type RunState = JsonValue;

export const EMPTY_STATE: RunState = Object.freeze({}) as RunState;
export const EMPTY_STATE_HASH = hashOf({});

export type StateStep = { ok: true; state: RunState } | { ok: false; state: RunState; error: string };

type Obj = Record<string, unknown>;

class PatchError extends Error {}

const hasOwn = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
const isObject = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

export { setOwn };

function tokensOf(pointer: unknown, what: string): string[] {
  if (typeof pointer !== "string") throw new PatchError(`\`${what}\` is not a string`);
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new PatchError(`\`${what}\` must start with "/"`);
  return pointer
    .slice(1)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** The index an array token names among `length` elements (`-`: one past the end when `append`). */
function indexOf(token: string, length: number, append: boolean): number {
  if (token === "-" && append) return length;
  if (!ARRAY_INDEX.test(token)) throw new PatchError(`"${token.slice(0, 40)}" is not an array index`);
  const i = Number(token);
  if (i > length || (!append && i === length)) throw new PatchError(`index ${i} is out of bounds`);
  return i;
}

/** The child at `token`, own properties only; throws when absent. */
function child(node: unknown, token: string): unknown {
  if (Array.isArray(node)) return node[indexOf(token, node.length, false)];
  if (isObject(node) && hasOwn(node, token)) return node[token];
  throw new PatchError("the path does not exist");
}

function valueAt(doc: unknown, tokens: string[]): unknown {
  let node = doc;
  for (const t of tokens) node = child(node, t);
  return node;
}

/** A copy of `node` with `leaf` applied to the container at the end of `tokens` (all but the last). */
function updateAt(node: unknown, tokens: string[], i: number, leaf: (parent: unknown, token: string) => unknown): unknown {
  const token = tokens[i];
  if (i === tokens.length - 1) return leaf(node, token);
  const next = updateAt(child(node, token), tokens, i + 1, leaf);
  if (Array.isArray(node)) {
    const copy = node.slice();
    copy[Number(token)] = next;
    return copy;
  }
  const copy = { ...(node as Obj) };
  setOwn(copy, token, next);
  return copy;
}

function add(doc: unknown, tokens: string[], value: unknown): unknown {
  if (tokens.length === 0) return value;
  return updateAt(doc, tokens, 0, (parent, token) => {
    if (Array.isArray(parent)) {
      const copy = parent.slice();
      copy.splice(indexOf(token, parent.length, true), 0, value);
      return copy;
    }
    if (!isObject(parent)) throw new PatchError("the path's parent is not a container");
    const copy = { ...parent };
    setOwn(copy, token, value);
    return copy;
  });
}

function remove(doc: unknown, tokens: string[]): unknown {
  if (tokens.length === 0) return null;
  return updateAt(doc, tokens, 0, (parent, token) => {
    if (Array.isArray(parent)) {
      const copy = parent.slice();
      copy.splice(indexOf(token, parent.length, false), 1);
      return copy;
    }
    if (!isObject(parent) || !hasOwn(parent, token)) throw new PatchError("the path does not exist");
    const copy = { ...parent };
    delete copy[token];
    return copy;
  });
}

function replace(doc: unknown, tokens: string[], value: unknown): unknown {
  if (tokens.length === 0) return value;
  return updateAt(doc, tokens, 0, (parent, token) => {
    if (Array.isArray(parent)) {
      const copy = parent.slice();
      copy[indexOf(token, parent.length, false)] = value;
      return copy;
    }
    if (!isObject(parent) || !hasOwn(parent, token)) throw new PatchError("the path does not exist");
    const copy = { ...parent };
    setOwn(copy, token, value);
    return copy;
  });
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return a !== a && b !== b;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => equal(x, b[i]));
  }
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => hasOwn(b, k) && equal((a as Obj)[k], (b as Obj)[k]));
}

function applyOne(doc: unknown, raw: unknown): unknown {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new PatchError("an operation is not an object");
  const op = raw as Obj;
  const path = tokensOf(op.path, "path");
  const needsValue = op.op === "add" || op.op === "replace" || op.op === "test";
  if (needsValue && !hasOwn(op, "value")) throw new PatchError(`a \`${String(op.op)}\` operation needs a \`value\``);
  switch (op.op) {
    case "add":
      return add(doc, path, op.value);
    case "remove":
      return remove(doc, path);
    case "replace":
      return replace(doc, path, op.value);
    case "move": {
      const from = tokensOf(op.from, "from");
      const value = valueAt(doc, from);
      if (from.length < path.length && from.every((t, i) => t === path[i])) throw new PatchError("a value cannot be moved into itself");
      return add(remove(doc, from), path, value);
    }
    case "copy":
      // states are immutable: the copy shares the value
      return add(doc, path, valueAt(doc, tokensOf(op.from, "from")));
    case "test":
      if (!equal(valueAt(doc, path), op.value)) throw new PatchError("test operation failed");
      return doc;
    default:
      throw new PatchError("`op` is not one of add, remove, replace, move, copy, test");
  }
}

/** Applies a JSON Patch strictly; on any failing operation the state is left unchanged. */
export function applyPatch(state: RunState, patch: unknown): StateStep {
  if (!Array.isArray(patch)) return { ok: false, state, error: "patch is not an array of operations" };
  let doc: unknown = state;
  for (let i = 0; i < patch.length; i++) {
    try {
      doc = applyOne(doc, patch[i]);
    } catch (e) {
      // a RangeError too: a path deeper than the stack fails like any other patch
      return { ok: false, state, error: `operation ${i}: ${e instanceof PatchError ? e.message : "the path cannot be followed"}` };
    }
  }
  return { ok: true, state: doc as RunState };
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
