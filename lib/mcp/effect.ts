/**
 * A tool's effect as an MCP server declares it (`annotations`, MCP 2025-03-26 and later):
 * `readOnlyHint: true` is a read; `readOnlyHint: false` or `destructiveHint: true` a write.
 * A tool that says neither is inferred from its name and arguments as the importers infer
 * it (lib/importers/effects.ts) and marked `effectInferred`.
 */
import { inferEffect } from "../importers/effects";

export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface McpToolEffect {
  effect: "read" | "write";
  effectInferred: boolean;
  effectReason?: string;
  /** the server says calling it again with the same arguments does nothing more */
  idempotent?: boolean;
  destructive?: boolean;
}

/** The annotations of a tool definition from `tools/list` (only the boolean hints kept). */
export function annotationsOf(tool: unknown): ToolAnnotations {
  const a = tool !== null && typeof tool === "object" ? (tool as { annotations?: unknown }).annotations : undefined;
  if (a === null || typeof a !== "object") return {};
  const out: ToolAnnotations = {};
  for (const k of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
    const v = (a as Record<string, unknown>)[k];
    if (typeof v === "boolean") out[k] = v;
  }
  return out;
}

/** The effect of calling `name` with `args`, given its annotations (undefined: the tool was never listed). */
export function toolEffect(name: string, args: unknown, annotations: ToolAnnotations | undefined): McpToolEffect {
  const a = annotations ?? {};
  const declared = a.readOnlyHint === true ? "read" : a.readOnlyHint === false || a.destructiveHint === true ? "write" : undefined;
  const base = inferEffect(name, args, declared);
  const out: McpToolEffect = { effect: base.effect, effectInferred: base.effectInferred };
  if (declared) out.effectReason = `the server's annotations (readOnlyHint: ${a.readOnlyHint ?? "unset"})`;
  else if (base.effectReason) out.effectReason = base.effectReason;
  if (a.idempotentHint !== undefined) out.idempotent = a.idempotentHint;
  if (a.destructiveHint !== undefined && out.effect === "write") out.destructive = a.destructiveHint;
  return out;
}
