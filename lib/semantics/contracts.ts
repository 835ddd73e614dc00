/**
 * Tool contracts (docs/journal-format.md, "Tool contracts"): what a policy declares of a
 * tool, read at each `tool.call`. The declared effect overrides one an importer inferred
 * (`effectInferred: true`), never one the runtime recorded; `idempotency: not-applicable`
 * says a write to the tool needs no key; `args` is a JSON Schema the call's args must meet
 * (`tool.args-invalid`, with the failing keyword and path).
 */
import type { JsonObject, ToolContract } from "../journal/types";
import { compileSchema, validateSchema, type SchemaError } from "./json-schema";

/** Whether a write to the tool must carry an idempotency key (`effect.no-idempotency`). */
export function needsIdempotencyKey(contract: ToolContract | undefined): boolean {
  return contract?.idempotency !== "not-applicable";
}

/** Why a call's args break its contract: the schema's error, or the schema itself refused. */
export type ArgsVerdict = { kind: "invalid"; error: SchemaError } | { kind: "schema-refused"; error: string };

/** The args verdict of a call, null when its contract has no schema or the args conform. */
export function argsVerdict(contract: ToolContract | undefined, args: JsonObject[string] | undefined): ArgsVerdict | null {
  if (contract?.args === undefined) return null;
  const compiled = compileSchema(contract.args);
  if (!compiled.ok) return { kind: "schema-refused", error: compiled.error };
  const error = validateSchema(compiled, args ?? null);
  return error === null ? null : { kind: "invalid", error };
}
