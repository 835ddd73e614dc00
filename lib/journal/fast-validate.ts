/**
 * The ingest hot path's validator: ajv code compiled from the JSON Schema that zod
 * generates, one validator per event type, so zod stays the single definition. Only a
 * verdict comes from here; when it says no, zod runs to name the field (and decides).
 * Where code generation is not allowed (a browser page under a strict CSP) this returns
 * null and zod alone validates.
 */
import Ajv2020 from "ajv/dist/2020.js";
import type { ValidateFunction } from "ajv";
import { z } from "zod";
import { dataSchemas, envelopeSchema } from "./schema";
import { EVENT_TYPES, type KnownEventType } from "./types";

let ajv: Ajv2020 | null | undefined;
const compiled = new Map<string, ValidateFunction | null>();

function instance(): Ajv2020 | null {
  if (ajv !== undefined) return ajv;
  try {
    // The schema's patterns are ASCII: without the u flag V8 runs them faster (three an
    // event). The schemas are zod's own output, so ajv need not check them against the
    // 2020-12 meta-schema, whose compilation was 65 ms of every cold start.
    ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false, unicodeRegExp: false, validateSchema: false });
    ajv.compile({ type: "object" });
  } catch {
    ajv = null;
  }
  return ajv;
}

function validatorFor(type: string): ValidateFunction | null {
  const key = (EVENT_TYPES as readonly string[]).includes(type) ? type : "x-";
  if (compiled.has(key)) return compiled.get(key)!;
  const a = instance();
  let fn: ValidateFunction | null = null;
  if (a) {
    const schema =
      key === "x-"
        ? envelopeSchema
        : envelopeSchema.extend({ type: z.literal(key), data: dataSchemas[key as KnownEventType] });
    try {
      fn = a.compile(z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as object);
    } catch {
      fn = null;
    }
  }
  compiled.set(key, fn);
  return fn;
}

/**
 * Compiles every event type's validator now (about 0.2 s) instead of on the first event
 * of each type, so a server's first upload does not pay for it.
 */
export function compileAllValidators(): void {
  for (const type of EVENT_TYPES) validatorFor(type);
  validatorFor("x-");
}

/** true: valid; false: invalid (ask zod why); null: no fast path here. */
export function fastValidate(value: Record<string, unknown>): boolean | null {
  const type = value.type;
  if (typeof type !== "string") return false;
  const fn = validatorFor(type);
  if (!fn) return null;
  if (!fn(value)) return false;
  // zod's refine on state events is not expressible in JSON Schema
  if (type === "state") {
    const d = value.data as Record<string, unknown>;
    return "set" in d || "patch" in d;
  }
  return true;
}
