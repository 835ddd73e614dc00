/**
 * A tool call's effect when the source does not record one. Trace formats rarely say
 * whether a tool changes the world, and marking every imported tool `read` hid writes from
 * the effect rules. In order (all but the first flagged `effectInferred: true`):
 *
 * 1. what the source says (`declared`: an OpenHands `edit` action, a tool's read-only
 *    hint), `effectInferred: false`;
 * 1b. `read` for the agent's own bookkeeping tools (BOOKKEEPING: todo lists, plans, notes
 *    to self, plan mode), which change nothing outside the agent: no idempotency key is
 *    owed and nothing can be re-executed;
 * 2. (after 3) `write` when a word of the tool's name is a verb of WRITE_VERBS (`write_file`,
 *    `book_reservation`, `apply_patch`), unless the name starts with a reading
 *    verb (`get_order_updates`);
 * 3. an editor tool with a `command` argument: `write` when it edits (`str_replace_editor
 *    create`), `read` when it views (this comes before the verb rule: `replace`);
 * 4. `write` when a shell tool's command writes (redirections, rm, mv, sed -i, git commit,
 *    package installs, HTTP methods that change things…);
 * 5. `read` otherwise.
 */
import { isRecord } from "./json-utils";

/** Verbs in a tool's name that make it a write (documented in lib/importers/README.md). */
export const WRITE_VERBS: ReadonlySet<string> = new Set([
  "write",
  "edit",
  "create",
  "delete",
  "remove",
  "update",
  "insert",
  "send",
  "post",
  "put",
  "patch",
  "pay",
  "charge",
  "refund",
  "book",
  "cancel",
  "submit",
  "apply",
  "deploy",
  "modify",
  "set",
  "save",
  "upload",
  "move",
  "rename",
  "transfer",
  "exchange",
  "purchase",
  "return",
  "approve",
  "publish",
  "merge",
  "commit",
  "push",
  "install",
  "kill",
  "replace",
  "append",
  "add",
  "drop",
  "grant",
  "revoke",
  "reset",
  "mkdir",
  "rm",
]);

/** A name that starts with one of these only reads, whatever nouns follow (`get_order`, `list_updates`). */
const READ_FIRST = new Set([
  "get",
  "list",
  "search",
  "find",
  "read",
  "fetch",
  "view",
  "show",
  "query",
  "lookup",
  "describe",
  "check",
  "calculate",
  "count",
  "think",
  "look",
  "is",
  "has",
  "can",
  "preview",
  "dry",
]);

/**
 * Coding agents' bookkeeping tools, by exact name (case and separators ignored): Claude
 * Code's `TodoWrite`/`TodoRead`/`ExitPlanMode`, Codex's `update_plan`, Gemini CLI's
 * `write_todos`, Roo Code's `update_todo_list`, `think` tools.
 */
const BOOKKEEPING = new Set([
  "todowrite",
  "todoread",
  "exitplanmode",
  "enterplanmode",
  "updateplan",
  "writetodos",
  "updatetodolist",
  "think",
  "sequentialthinking",
]);

/** Whether a tool only keeps the agent's own notes (todo list, plan): no external effect. */
export const isBookkeeping = (tool: string) => BOOKKEEPING.has(tool.toLowerCase().replace(/[^a-z]/g, ""));

/** Editor tools' `command` values that change a file (SWE-agent, OpenHands, Anthropic's text editor). */
const EDIT_COMMANDS = new Set(["create", "str_replace", "insert", "undo_edit", "write", "append", "edit", "delete"]);

/** Tool names that run a shell command given in their arguments. */
const SHELL_TOOLS =
  /^(bash|shell|sh|zsh|exec_command|execute_bash|execute_command|run|run_command|run_shell_command|terminal|cmd|local_shell|container\.exec)$/i;

/** Shell commands that write: redirections to a file, and commands that change files, repositories, packages or services. */
const SHELL_WRITES: RegExp[] = [
  /(^|[^0-9&>])>>?\s*(?!&|\/dev\/null)[^\s|&;]/, // > file, >> file, not 2>&1 or >/dev/null
  /(^|[\s;&|(])(rm|rmdir|mv|cp|mkdir|touch|tee|truncate|dd|ln|chmod|chown|install|patch|unzip|tar\s+-?x)\s/,
  /(^|[\s;&|(])sed\s+(-[a-zA-Z]*i|--in-place)/,
  /(^|[\s;&|(])perl\s+-[a-zA-Z]*i/,
  /(^|[\s;&|(])git\s+(commit|push|apply|am|checkout|switch|reset|restore|rebase|merge|add|rm|mv|stash|clean|tag|branch\s+-[dDmM])\b/,
  /(^|[\s;&|(])(npm|pnpm|yarn|pip3?|uv|poetry|cargo|go|gem|apt(-get)?|brew|conda)\s+(install|add|remove|uninstall|i|update|upgrade|publish)\b/,
  /(^|[\s;&|(])curl\s[^|;&]*(-X\s*(POST|PUT|PATCH|DELETE)|--data|-d\s|-F\s|--upload-file|-T\s)/i,
  /(^|[\s;&|(])kubectl\s+(apply|create|delete|patch|replace|scale|rollout|edit|set|label|annotate)\b/,
  /(^|[\s;&|(])(helm\s+(install|upgrade|uninstall|rollback)|terraform\s+(apply|destroy)|docker\s+(rm|rmi|run|build|push|kill|stop))\b/,
  /(^|[\s;&|(])(python3?|node)\s+[^|;&]*\b(open\([^)]*['"][wa]['"]|writeFile)/,
  /cat\s*<<-?\s*['"]?\w+['"]?\s*>/,
];

/** Words of a tool name: `write_file`, `TodoWrite`, `book-reservation`, `files.create` → lower-case words. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

function commandText(args: unknown): string | undefined {
  if (typeof args === "string") return args;
  if (!isRecord(args)) return undefined;
  for (const k of ["command", "cmd", "script", "code", "input"]) {
    const v = args[k];
    if (typeof v === "string") return v;
    if (Array.isArray(v) && v.every((x) => typeof x === "string")) return (v as string[]).join(" ");
  }
  return undefined;
}

/** Whether a shell command line writes (see SHELL_WRITES). */
export function shellWrites(command: string): boolean {
  return SHELL_WRITES.some((re) => re.test(command));
}

export interface InferredEffect {
  effect: "read" | "write";
  /** false only when the source itself says what the call does. */
  effectInferred: boolean;
  /** Why, for people: the verb, the command or the source's own word. */
  effectReason?: string;
}

/**
 * The effect of a call of `tool` with `args`. `declared` is what the source says, when it
 * says anything (`"write"`, `"read"`, or a read-only / destructive hint as a boolean pair).
 */
export function inferEffect(tool: string, args: unknown, declared?: "read" | "write"): InferredEffect {
  if (declared) return { effect: declared, effectInferred: false, effectReason: "declared by the source" };
  if (isBookkeeping(tool)) return { effect: "read", effectInferred: true, effectReason: "the agent's own bookkeeping (todo list, plan)" };
  // an editor tool (`str_replace_editor view|create…`) does what its command says
  if (
    isRecord(args) &&
    typeof args.command === "string" &&
    /^\w+$/.test(args.command) &&
    /edit|str_replace/i.test(tool) &&
    !SHELL_TOOLS.test(tool)
  ) {
    return EDIT_COMMANDS.has(args.command)
      ? { effect: "write", effectInferred: true, effectReason: `the command "${args.command}" edits` }
      : { effect: "read", effectInferred: true };
  }
  const words = nameWords(tool);
  const verb = READ_FIRST.has(words[0] ?? "") ? undefined : words.find((w) => WRITE_VERBS.has(w));
  if (verb) return { effect: "write", effectInferred: true, effectReason: `the name has the verb "${verb}"` };
  const cmd = SHELL_TOOLS.test(tool) ? commandText(args) : undefined;
  if (cmd !== undefined && shellWrites(cmd)) return { effect: "write", effectInferred: true, effectReason: "the shell command writes" };
  return { effect: "read", effectInferred: true };
}
