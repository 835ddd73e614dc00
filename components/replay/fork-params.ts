/**
 * A what-if fork as URL parameters (`?fork=SEQ&override=JSON`, the same pair the CLI takes
 * as `--fork SEQ --override JSON`), and the fork form's fields turned into a fork spec
 * with an error that says which field is wrong and why. Both check the override with
 * lib/replay's one schema (checkForkOverride), as the CLI does. Pure: no React.
 */
import { z } from "zod";
import { checkForkOverride, type ForkSpec } from "@/lib/replay";

export type OverrideKind = "deny" | "approve" | "policy" | "toolResult" | "modelOutput" | "state";

export const OVERRIDE_KINDS: ReadonlyArray<{ kind: OverrideKind; label: string }> = [
  { kind: "deny", label: "Deny the approval" },
  { kind: "approve", label: "Approve the approval" },
  { kind: "policy", label: "Change the policy" },
  { kind: "toolResult", label: "Edit the tool result" },
  { kind: "modelOutput", label: "Edit the model output" },
  { kind: "state", label: "Replace the state" },
];

/** Which overrides make sense at an event of this type (the engine has the last word). */
export function applicableKinds(type: string | null): Set<OverrideKind> {
  const out = new Set<OverrideKind>(["policy", "state"]);
  if (type === "approval.decision" || type === "approval.request" || type === "tool.call") {
    out.add("deny");
    out.add("approve");
  }
  if (type === "tool.result" || type === "tool.call") out.add("toolResult");
  if (type === "model.response" || type === "model.request") out.add("modelOutput");
  return out;
}

type ForkFromUrl = { fork: ForkSpec | null; error: string | null };

/** The fork a URL asks for; a malformed one is an error to show, never a crash. */
export function readForkParams(params: URLSearchParams): ForkFromUrl {
  const seq = params.get("fork");
  const override = params.get("override");
  if (seq === null && override === null) return { fork: null, error: null };
  if (seq === null || override === null) return { fork: null, error: "a fork link needs both fork (a seq) and override (JSON)" };
  if (!/^\d{1,10}$/.test(seq)) return { fork: null, error: `fork must be a seq (a non-negative integer), not "${seq.slice(0, 20)}"` };
  let raw: unknown;
  try {
    raw = JSON.parse(override);
  } catch {
    // not the engine's message: the page renders this on the server and again in the
    // browser, and two JavaScript engines word a JSON error differently (a hydration error)
    return { fork: null, error: "override is not valid JSON" };
  }
  const checked = checkForkOverride(raw);
  return checked.ok ? { fork: { seq: Number(seq), override: checked.override }, error: null } : { fork: null, error: checked.error };
}

/** `params` with the fork set (or removed, for a reconstruct). */
export function writeForkParams(params: URLSearchParams, fork: ForkSpec | null): URLSearchParams {
  const out = new URLSearchParams(params);
  if (fork === null) {
    out.delete("fork");
    out.delete("override");
  } else {
    out.set("fork", String(fork.seq));
    out.set("override", JSON.stringify(fork.override));
  }
  return out;
}

/** The fork form as typed. */
export interface ForkDraft {
  seq: string;
  kind: OverrideKind;
  /** Tool names, separated by commas. */
  requireApproval: string;
  maxSteps: string;
  /** The JSON editor (tool result, model output, state). */
  json: string;
}

export type DraftResult =
  { ok: true; spec: ForkSpec } | { ok: false; field: "seq" | "requireApproval" | "maxSteps" | "json"; error: string };

const toolNames = z
  .string()
  .transform((s) =>
    s
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string()));

const maxSteps = z
  .string()
  .trim()
  .regex(/^\d{0,9}$/, "maxSteps must be a whole number (0 or more), or empty to keep the run's")
  .transform((s) => (s === "" ? undefined : Number(s)));

function zodMessage(e: z.ZodError): string {
  return e.issues.map((i) => `${i.path.length > 0 ? `${i.path.join(".")}: ` : ""}${i.message}`).join("; ");
}

/** Parses the JSON editor: an error names the position JSON.parse gives. */
function parseJsonField(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  if (text.trim() === "") return { ok: false, error: "the JSON editor is empty" };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, error: `not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** The run's own policy, as far as the form edits it. */
interface BasePolicy {
  requireApproval?: string[];
  maxSteps?: number;
}

const sameTools = (x: readonly string[], y: readonly string[]) =>
  x.length === y.length && [...x].sort().join("\n") === [...y].sort().join("\n");

/**
 * The form → a fork spec, or the first problem found. A policy field left as the run has
 * it is not part of the override, so the fork says only what it changes.
 */
export function draftToSpec(d: ForkDraft, base: BasePolicy = {}): DraftResult {
  if (!/^\d{1,10}$/.test(d.seq.trim())) return { ok: false, field: "seq", error: "the fork seq must be a whole number (0 or more)" };
  const seq = Number(d.seq.trim());
  let candidate: unknown;
  switch (d.kind) {
    case "deny":
      candidate = { approval: "denied" };
      break;
    case "approve":
      candidate = { approval: "approved" };
      break;
    case "policy": {
      const tools = toolNames.safeParse(d.requireApproval);
      if (!tools.success) return { ok: false, field: "requireApproval", error: zodMessage(tools.error) };
      const steps = maxSteps.safeParse(d.maxSteps);
      if (!steps.success) return { ok: false, field: "maxSteps", error: zodMessage(steps.error) };
      const policy: { requireApproval?: string[]; maxSteps?: number } = {};
      if (!sameTools(tools.data, base.requireApproval ?? [])) policy.requireApproval = tools.data;
      if (steps.data !== undefined && steps.data !== base.maxSteps) policy.maxSteps = steps.data;
      if (Object.keys(policy).length === 0)
        return { ok: false, field: "maxSteps", error: "this is the run's own policy: change requireApproval or maxSteps" };
      candidate = { policy };
      break;
    }
    case "toolResult":
    case "modelOutput":
    case "state": {
      const parsed = parseJsonField(d.json);
      if (!parsed.ok) return { ok: false, field: "json", error: parsed.error };
      candidate = { [d.kind]: parsed.value };
      break;
    }
  }
  // the form's fields are the override's own, so messages name them without "override."
  const checked = checkForkOverride(candidate, "");
  if (checked.ok) return { ok: true, spec: { seq, override: checked.override } };
  const field = d.kind !== "policy" ? "json" : checked.path[1] === "requireApproval" ? "requireApproval" : "maxSteps";
  return { ok: false, field, error: checked.error };
}

/** The CLI command that replays the same fork, for a journal exported to run.jsonl. */
export function cliCommand(run: string, fork: ForkSpec | null): string {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const base = `npm run -s retrace -- replay run.jsonl --run ${quote(run)}`;
  return fork === null ? base : `${base} --fork ${fork.seq} --override ${quote(JSON.stringify(fork.override))}`;
}
