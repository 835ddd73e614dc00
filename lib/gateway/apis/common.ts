/** Helpers the wire formats share: the body's fields beside the ones a format names. */
import { isRecord, type UnknownRecord } from "../../importers/json-utils";
import type { ToolDefinition } from "../types";

export { isRecord, type UnknownRecord };

/** The body's fields other than `known`, as sent. */
export function otherFields(body: UnknownRecord, known: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body))
    if (!known.includes(k)) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

/** Tool definitions in the shapes the APIs use (`{name, description, input_schema|parameters}`, `{function: …}`). */
export function toolDefinitions(v: unknown): ToolDefinition[] {
  const out: ToolDefinition[] = [];
  for (const t of Array.isArray(v) ? v : []) {
    if (!isRecord(t)) continue;
    const fn = isRecord(t.function) ? t.function : t;
    const name = typeof fn.name === "string" ? fn.name : typeof t.type === "string" ? t.type : undefined;
    if (name === undefined) continue;
    const def: ToolDefinition = { name };
    if (typeof fn.description === "string") def.description = fn.description;
    const parameters = fn.input_schema ?? fn.parameters ?? fn.parametersJsonSchema;
    if (parameters !== undefined) def.parameters = parameters;
    out.push(def);
  }
  return out;
}

/** Text of a system prompt given as a string or as text blocks/parts. */
export function systemText(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === "string") return v;
  const parts = Array.isArray(v) ? v : isRecord(v) && Array.isArray(v.parts) ? v.parts : [v];
  return parts
    .map((p) => (typeof p === "string" ? p : isRecord(p) && typeof p.text === "string" ? p.text : ""))
    .filter((s) => s !== "")
    .join("\n");
}

/** A tool call's arguments as an object (a JSON string decoded; anything else `{input}`). */
export function argsObject(v: unknown): Record<string, unknown> {
  let d = v;
  if (typeof v === "string") {
    try {
      d = v.trim() === "" ? {} : JSON.parse(v);
    } catch {
      return { input: v };
    }
  }
  if (isRecord(d)) return d;
  return d === undefined || d === null ? {} : { input: d };
}

export function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/** The API's error message in a JSON error body (`{error: {message}}` or `{error: "…"}`). */
export function errorMessage(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const e = body.error;
  if (typeof e === "string") return e;
  if (isRecord(e) && typeof e.message === "string") return e.message;
  return undefined;
}
