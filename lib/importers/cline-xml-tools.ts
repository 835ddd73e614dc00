/**
 * Tool calls written as XML in an assistant message's text: how Cline and Roo Code asked for
 * tools before native tool calling (and still do with models or providers that lack it).
 *
 * ```
 * I'll read the file first.
 *
 * <read_file>
 * <path>src/app.ts</path>
 * </read_file>
 * ```
 *
 * The tag is one of the tools the extension offers; each child element is a parameter (its
 * text, trimmed; nested elements such as Roo's `<args><file>…</file></args>` stay as their
 * text). A block cut off by the extension (`[Response interrupted by a tool use result…]`)
 * runs to the end of the message. The prose before the first block is the message's text.
 */
import type { MessageToolCall } from "./messages";

/** The tools of Cline and Roo Code (only these tags are read as calls, never any XML in prose). */
const TOOLS = new Set([
  "execute_command",
  "read_file",
  "write_to_file",
  "replace_in_file",
  "apply_diff",
  "insert_content",
  "search_and_replace",
  "search_files",
  "list_files",
  "list_code_definition_names",
  "codebase_search",
  "browser_action",
  "use_mcp_tool",
  "access_mcp_resource",
  "load_mcp_documentation",
  "ask_followup_question",
  "attempt_completion",
  "plan_mode_respond",
  "act_mode_respond",
  "new_task",
  "switch_mode",
  "fetch_instructions",
  "update_todo_list",
  "web_fetch",
  "new_rule",
  "report_bug",
  "condense",
  "summarize_task",
  "run_slash_command",
  "generate_image",
]);

const INTERRUPTED = /\s*\[Response interrupted by [^\]]*\]\s*$/;

export interface XmlToolUse {
  /** The text without the tool blocks. */
  text: string;
  calls: MessageToolCall[];
}

function params(body: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /<([a-z_]+)>([\s\S]*?)(?:<\/\1>|$)/g;
  for (let m = re.exec(body); m; m = re.exec(body)) {
    if (!(m[1] in out)) out[m[1]] = m[2].replace(INTERRUPTED, "").trim();
  }
  return out;
}

/** The XML tool calls of an assistant text, in order; `idPrefix` names them (`<prefix>call-<k>`). */
export function xmlToolCalls(text: string, idPrefix: string): XmlToolUse {
  const calls: MessageToolCall[] = [];
  const re = /<([a-z_]+)>\s*\n?([\s\S]*?)(?:<\/\1>|$)/g;
  let prose: string | undefined;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (!TOOLS.has(m[1])) {
      re.lastIndex = m.index + m[1].length + 2;
      continue;
    }
    prose ??= text.slice(0, m.index);
    calls.push({ id: `${idPrefix}call-${calls.length}`, name: m[1], args: params(m[2].replace(INTERRUPTED, "")) });
  }
  return { text: (prose ?? text).trim(), calls };
}
