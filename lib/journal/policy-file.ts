/**
 * A declared policy given as a file (docs/declared-policy.md, "Attaching a policy", "In a
 * replay"): its text checked as `run.start.data.policy` is, with unknown fields refused too.
 * The server stores what it accepts (lib/server/workflow-policy.ts), the CLI's `import
 * --policy`, `replay --policy` and `mcp-proxy --policy` read the same way.
 */
import { canonicalJson } from "../canonical";
import { jsonErrorOffset } from "./json-error-offset";
import { formatIssues } from "./parse-line";
import { policySchema } from "./schema";

/** A policy file as read: its canonical JSON, or why it is refused (with the JSON path, or line and column). */
export type PolicyFile = { ok: true; policy: string } | { ok: false; message: string };

function lineColumn(text: string, at: number): string {
  const before = text.slice(0, at);
  const line = before.split("\n").length;
  return `line ${line}, column ${at - before.lastIndexOf("\n")}`;
}

/**
 * A policy file's text checked as `run.start.data.policy` is (schema.ts policySchema), and
 * unknown fields refused too: a misspelt `invariant` would otherwise switch every rule off
 * without a word.
 */
export function readPolicyFile(text: string): PolicyFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    // V8 names a position for some mistakes only; the scanner finds it for every one
    const m = /position (\d+)/.exec(e instanceof Error ? e.message : "");
    const at = jsonErrorOffset(text) ?? (m ? Number(m[1]) : null);
    return { ok: false, message: `not JSON${at !== null ? ` (${lineColumn(text, at)})` : ""}` };
  }
  const checked = policySchema.strict().safeParse(value);
  if (!checked.success) return { ok: false, message: formatIssues(checked.error.issues, "policy") };
  return { ok: true, policy: canonicalJson(value) };
}
