/**
 * `--policy FILE` of `replay -- CMD` and `mcp-proxy --replay`: the declared policy a replay
 * judges the agent's tool calls by, in place of the recording's run.start policy. Read with
 * the check every policy file gets (lib/journal readPolicyFile: the journal schema's policy,
 * unknown fields refused), so a misspelt field is an error, not a rule silently off.
 */
import fs from "node:fs";
import type { JsonValue } from "../journal/types";
import { parseJsonExact } from "../journal/exact-json";
import { readPolicyFile } from "../journal/policy-file";

export type PolicyOption = { ok: true; policy: JsonValue } | { ok: false; message: string };

export function readPolicyOption(file: string): PolicyOption {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { ok: false, message: `--policy: cannot read ${file}${code === "ENOENT" ? " (no such file)" : code ? ` (${code})` : ""}` };
  }
  const checked = readPolicyFile(text);
  if (!checked.ok) return { ok: false, message: `--policy ${file}: ${checked.message}` };
  return { ok: true, policy: parseJsonExact(checked.policy) as JsonValue };
}
