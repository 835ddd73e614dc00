/**
 * Reading fields of an event's `data` (or any parsed JSON) without casts: each returns
 * the value when it has the type asked for, otherwise undefined. One set for the whole
 * core, so every reader agrees on what "a string field" means.
 */
import type { JsonObject } from "./types";

export function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** A string with at least one character: foreign formats write "" where they mean "none". */
export function nonEmptyStr(v: unknown): string | undefined {
  return typeof v === "string" && v.length > 0 ? v : undefined;
}

/** A finite number (NaN, infinities and bigint are not). */
export function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/** A plain object: not null, not an array. */
export function obj(v: unknown): JsonObject | undefined {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as JsonObject) : undefined;
}
