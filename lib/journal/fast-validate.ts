/**
 * The ingest hot path's validator: one compiled function per event type, generated ahead
 * of time from zod's JSON Schema (validator-source.ts → generated/validators.ts), so zod
 * stays the single definition and no process compiles code at run time (that delayed every
 * CLI start and a server's first upload, and a page under a strict CSP could not do it at
 * all). Only a verdict comes from here; when it says no, zod runs to name the
 * field (and decides).
 */
import * as generated from "./generated/validators";
import { EVENT_TYPES } from "./types";

type Validator = (data: unknown) => boolean;

const byType = new Map<string, Validator>();
EVENT_TYPES.forEach((type, i) => {
  // the generated file lists the types it was made for: a stale file fails here, loudly
  if (generated.TYPES[i] !== type) throw new Error("lib/journal/generated/validators.ts is stale: run npm run schema:json");
  byType.set(type, (generated as unknown as Record<string, Validator>)[`type${i}`]);
});
const extension = generated.extension as Validator;

/** true: valid; false: invalid (ask zod why). */
export function fastValidate(value: Record<string, unknown>): boolean {
  const type = value.type;
  if (typeof type !== "string") return false;
  if (!(byType.get(type) ?? extension)(value)) return false;
  // zod's refine on state events is not expressible in JSON Schema
  if (type === "state") {
    const d = value.data as Record<string, unknown>;
    return "set" in d || "patch" in d;
  }
  return true;
}
