/**
 * A bounded subset of JSON Schema (2020-12 keywords) for tool contracts' `args`
 * (docs/journal-format.md, "Tool contracts"). A schema arrives in a journal or an
 * attached policy, so it is data from whoever wrote the run: it is read, never compiled
 * to code (Ajv generates a function, which the pages' Content-Security-Policy forbids and
 * which would run what a journal wrote), it can name nothing outside itself (no `$ref`),
 * it holds no regular expression (`pattern` could take exponential time), and its size
 * and depth are capped. A keyword outside the subset is refused when the policy is read,
 * so nothing a policy asks for is silently left unchecked.
 */
import type { JsonValue } from "../journal/types";

/** The first way a value breaks a schema: the keyword and where, as JSON Pointers. */
export interface SchemaError {
  keyword: string;
  /** Pointer into the value checked ("" for the value itself). */
  path: string;
  /** Words for people; names types and counts, never the value. */
  message: string;
}

type Type = "null" | "boolean" | "object" | "array" | "number" | "integer" | "string";
const TYPES: readonly Type[] = ["null", "boolean", "object", "array", "number", "integer", "string"];

interface Node {
  always?: boolean;
  types?: Type[];
  enum?: JsonValue[];
  const?: { v: JsonValue };
  properties?: Map<string, Node>;
  required?: string[];
  additional?: Node;
  items?: Node;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  allOf?: Node[];
  anyOf?: Node[];
  oneOf?: Node[];
  not?: Node;
}

/** Keywords that only annotate: read and ignored. */
const ANNOTATIONS = new Set([
  "description",
  "title",
  "default",
  "examples",
  "$comment",
  "$schema",
  "$id",
  "format",
  "deprecated",
  "readOnly",
  "writeOnly",
]);
const COUNTS = ["minItems", "maxItems", "minLength", "maxLength"] as const;
const BOUNDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] as const;

export const SCHEMA_MAX_DEPTH = 32;
export const SCHEMA_MAX_NODES = 2000;

class SchemaRefused extends Error {}

function esc(seg: string): string {
  return seg.replace(/~/g, "~0").replace(/\//g, "~1");
}

function isObj(v: JsonValue | undefined): v is { [k: string]: JsonValue } {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function compileNode(s: JsonValue, at: string, depth: number, budget: { nodes: number }): Node {
  if (++budget.nodes > SCHEMA_MAX_NODES) throw new SchemaRefused(`the schema has more than ${SCHEMA_MAX_NODES} subschemas`);
  if (depth > SCHEMA_MAX_DEPTH) throw new SchemaRefused(`${at || "/"}: the schema nests deeper than ${SCHEMA_MAX_DEPTH}`);
  if (s === true) return { always: true };
  if (s === false) return { always: false };
  if (!isObj(s)) throw new SchemaRefused(`${at || "/"}: a schema is an object or a boolean`);
  const n: Node = {};
  const sub = (v: JsonValue, key: string) => compileNode(v, `${at}/${esc(key)}`, depth + 1, budget);
  const list = (v: JsonValue, key: string): Node[] => {
    if (!Array.isArray(v) || v.length === 0) throw new SchemaRefused(`${at}/${key}: expected a non-empty array of schemas`);
    return v.map((x, i) => compileNode(x, `${at}/${key}/${i}`, depth + 1, budget));
  };
  const count = (v: JsonValue, key: string): number => {
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0) throw new SchemaRefused(`${at}/${key}: expected a non-negative integer`);
    return v;
  };
  for (const key of Object.keys(s)) {
    const v = s[key];
    if (ANNOTATIONS.has(key)) continue;
    switch (key) {
      case "type": {
        const ts = Array.isArray(v) ? v : [v];
        if (ts.length === 0 || !ts.every((t): t is Type => typeof t === "string" && (TYPES as readonly string[]).includes(t)))
          throw new SchemaRefused(`${at}/type: expected one of ${TYPES.join(", ")} or an array of them`);
        n.types = ts;
        break;
      }
      case "enum":
        if (!Array.isArray(v)) throw new SchemaRefused(`${at}/enum: expected an array`);
        n.enum = v;
        break;
      case "const":
        n.const = { v };
        break;
      case "properties": {
        if (!isObj(v)) throw new SchemaRefused(`${at}/properties: expected an object`);
        n.properties = new Map(Object.keys(v).map((k) => [k, compileNode(v[k], `${at}/properties/${esc(k)}`, depth + 1, budget)]));
        break;
      }
      case "required":
        if (!Array.isArray(v) || !v.every((x): x is string => typeof x === "string"))
          throw new SchemaRefused(`${at}/required: expected an array of strings`);
        n.required = v;
        break;
      case "additionalProperties":
        n.additional = sub(v, key);
        break;
      case "items":
        n.items = sub(v, key);
        break;
      case "allOf":
      case "anyOf":
      case "oneOf":
        n[key] = list(v, key);
        break;
      case "not":
        n.not = sub(v, key);
        break;
      default:
        if ((COUNTS as readonly string[]).includes(key)) n[key as (typeof COUNTS)[number]] = count(v, key);
        else if ((BOUNDS as readonly string[]).includes(key)) {
          if (typeof v !== "number") throw new SchemaRefused(`${at}/${key}: expected a number`);
          n[key as (typeof BOUNDS)[number]] = v;
        } else if (key === "$ref" || key === "$dynamicRef")
          throw new SchemaRefused(`${at}/${key}: references are not allowed (a contract's schema must be self-contained)`);
        else if (key === "pattern" || key === "patternProperties")
          throw new SchemaRefused(`${at}/${esc(key)}: regular expressions are not allowed (one from a journal could run for ever)`);
        else throw new SchemaRefused(`${at}/${esc(key)}: the keyword is not in the supported subset`);
    }
  }
  return n;
}

/** A compiled schema, or why it was refused. */
export type CompiledSchema = { ok: true; node: Node } | { ok: false; error: string };

const cache = new WeakMap<object, CompiledSchema>();

/** Reads a schema once (cached per schema object): `ok: false` names the keyword and place it refuses. */
export function compileSchema(schema: unknown): CompiledSchema {
  const cached = typeof schema === "object" && schema !== null ? cache.get(schema) : undefined;
  if (cached) return cached;
  let out: CompiledSchema;
  try {
    out = { ok: true, node: compileNode(schema as JsonValue, "", 0, { nodes: 0 }) };
  } catch (e) {
    if (!(e instanceof SchemaRefused)) throw e;
    out = { ok: false, error: e.message };
  }
  if (typeof schema === "object" && schema !== null) cache.set(schema, out);
  return out;
}

function typeOf(v: JsonValue): Type {
  if (v === null) return "null";
  if (typeof v === "boolean") return "boolean";
  if (typeof v === "string") return "string";
  if (typeof v === "number" || typeof v === "bigint") return "number";
  return Array.isArray(v) ? "array" : "object";
}

function hasType(v: JsonValue, t: Type): boolean {
  if (t === "integer") return typeof v === "bigint" || (typeof v === "number" && Number.isInteger(v));
  return typeOf(v) === t;
}

/** JSON equality (numbers by value, objects by members). */
function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if ((typeof a === "number" || typeof a === "bigint") && (typeof b === "number" || typeof b === "bigint")) return Number(a) === Number(b);
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff || i + 1 >= s.length) n++;
    else {
      const d = s.charCodeAt(i + 1);
      n++;
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return n;
}

function fail(keyword: string, path: string, message: string): SchemaError {
  return { keyword, path, message };
}

function check(n: Node, v: JsonValue, path: string): SchemaError | null {
  if (n.always === true) return null;
  if (n.always === false) return fail("false", path, "no value is allowed here");
  if (n.types && !n.types.some((t) => hasType(v, t))) return fail("type", path, `expected ${n.types.join(" or ")}, got ${typeOf(v)}`);
  if (n.enum && !n.enum.some((x) => jsonEqual(x, v))) return fail("enum", path, `not one of the ${n.enum.length} allowed values`);
  if (n.const && !jsonEqual(n.const.v, v)) return fail("const", path, "not the required constant");
  if (typeof v === "string") {
    const len = n.minLength !== undefined || n.maxLength !== undefined ? codePoints(v) : 0;
    if (n.minLength !== undefined && len < n.minLength) return fail("minLength", path, `shorter than ${n.minLength} characters`);
    if (n.maxLength !== undefined && len > n.maxLength) return fail("maxLength", path, `longer than ${n.maxLength} characters`);
  }
  if (typeof v === "number" || typeof v === "bigint") {
    const x = Number(v);
    if (n.minimum !== undefined && x < n.minimum) return fail("minimum", path, `less than ${n.minimum}`);
    if (n.maximum !== undefined && x > n.maximum) return fail("maximum", path, `greater than ${n.maximum}`);
    if (n.exclusiveMinimum !== undefined && x <= n.exclusiveMinimum)
      return fail("exclusiveMinimum", path, `not greater than ${n.exclusiveMinimum}`);
    if (n.exclusiveMaximum !== undefined && x >= n.exclusiveMaximum)
      return fail("exclusiveMaximum", path, `not less than ${n.exclusiveMaximum}`);
  }
  if (Array.isArray(v)) {
    if (n.minItems !== undefined && v.length < n.minItems) return fail("minItems", path, `fewer than ${n.minItems} items`);
    if (n.maxItems !== undefined && v.length > n.maxItems) return fail("maxItems", path, `more than ${n.maxItems} items`);
    if (n.items)
      for (let i = 0; i < v.length; i++) {
        const e = check(n.items, v[i], `${path}/${i}`);
        if (e) return e;
      }
  }
  if (isObj(v)) {
    for (const k of n.required ?? []) if (!Object.hasOwn(v, k)) return fail("required", `${path}/${esc(k)}`, "required property missing");
    for (const k of Object.keys(v)) {
      const p = n.properties?.get(k);
      const e = p ? check(p, v[k], `${path}/${esc(k)}`) : n.additional ? check(n.additional, v[k], `${path}/${esc(k)}`) : null;
      if (e) return e.keyword === "false" && !p ? fail("additionalProperties", e.path, "property not allowed") : e;
    }
  }
  if (n.allOf)
    for (const s of n.allOf) {
      const e = check(s, v, path);
      if (e) return e;
    }
  if (n.anyOf && !n.anyOf.some((s) => check(s, v, path) === null)) return fail("anyOf", path, "matches none of the alternatives");
  if (n.oneOf) {
    const matches = n.oneOf.filter((s) => check(s, v, path) === null).length;
    if (matches !== 1)
      return fail("oneOf", path, matches === 0 ? "matches none of the alternatives" : `matches ${matches} alternatives, not exactly one`);
  }
  if (n.not && check(n.not, v, path) === null) return fail("not", path, "matches a schema it must not");
  return null;
}

/** The first error of `value` against a compiled schema, null when it conforms. */
export function validateSchema(compiled: { node: Node }, value: JsonValue): SchemaError | null {
  return check(compiled.node, value, "");
}
