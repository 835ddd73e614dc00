/**
 * How a tool call's effect is read, by the fold, the effect rules and the call ledger alike:
 * as recorded, except where the run's policy declares the tool's effect and the recorded one
 * was inferred by an importer (docs/journal-format.md, "Tool contracts").
 */
import type { JsonObject, ToolContract } from "../journal/types";

/**
 * How a call's `effect` is read: `read` is a read; anything else (`write`, absent, another
 * word) is a write. The schema refuses a tool.call without `effect` wherever a journal
 * enters (ingest, analyze, import); events built without that check read it as a write,
 * the safe side: it may have acted.
 */
export function effectOf(effect: unknown): "read" | "write" {
  return effect === "read" ? "read" : "write";
}

/** How a call's effect is read under its contract: the declared one when the recorded one was inferred. */
export function contractEffect(data: Readonly<JsonObject>, contract: ToolContract | undefined): "read" | "write" {
  if (contract?.effect !== undefined && (data.effectInferred === true || data.effect === undefined)) return contract.effect;
  return effectOf(data.effect);
}
