/**
 * Stop conditions, re-evaluated against the rebuilt state. The format leaves
 * `decision.stop.condition` free; the one shape checked here is a comparison of a state
 * field with a literal (`status == done`, `attempts >= 3`, `order.total < 100`). Anything
 * else, or a field the state does not have, is "not evaluable" (null): the replay then
 * trusts the recorded `met` rather than guessing.
 */
import { canonicallyEqual } from "../canonical";
import type { JsonValue } from "../journal/types";

const CONDITION = /^\s*([A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*|\[\d+\])*)\s*(===|!==|==|!=|>=|<=|>|<)\s*(.+?)\s*$/;
const SEGMENT = /[^.[\]]+|\[(\d+)\]/g;

function lookup(state: JsonValue, path: string): { found: boolean; value: JsonValue } {
  let cur: JsonValue = state;
  for (const m of path.matchAll(SEGMENT)) {
    const key = m[1] ?? m[0];
    if (Array.isArray(cur)) {
      const i = Number(key);
      if (!Number.isInteger(i) || i < 0 || i >= cur.length) return { found: false, value: null };
      cur = cur[i];
    } else if (cur !== null && typeof cur === "object" && Object.prototype.hasOwnProperty.call(cur, key)) {
      cur = cur[key];
    } else {
      return { found: false, value: null };
    }
  }
  return { found: true, value: cur };
}

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const QUOTED = /^"(?:[^"\\]|\\.)*"$/;

function literal(text: string): JsonValue {
  if (text === "true") return true;
  if (text === "false") return false;
  if (text === "null") return null;
  if (NUMBER.test(text)) return Number(text);
  if (QUOTED.test(text)) {
    try {
      return JSON.parse(text) as string;
    } catch {
      return text;
    }
  }
  if (/^'.*'$/.test(text)) return text.slice(1, -1);
  // A bare word (`done`) is a string.
  return text;
}

function equal(a: JsonValue, b: JsonValue): boolean {
  if (a === null || typeof a !== "object") return a === b;
  return canonicallyEqual(a, b);
}

/** Whether the condition holds in `state`; null when it cannot be evaluated. */
export function evaluateCondition(condition: JsonValue | undefined, state: JsonValue): boolean | null {
  if (typeof condition !== "string") return null;
  const m = CONDITION.exec(condition);
  if (!m) return null;
  const [, path, op, rhs] = m;
  const { found, value } = lookup(state, path);
  if (!found) return null;
  const lit = literal(rhs);
  switch (op) {
    case "==":
    case "===":
      return equal(value, lit);
    case "!=":
    case "!==":
      return !equal(value, lit);
    default: {
      if (typeof value !== "number" || typeof lit !== "number") return null;
      if (op === ">") return value > lit;
      if (op === ">=") return value >= lit;
      if (op === "<") return value < lit;
      return value <= lit;
    }
  }
}
