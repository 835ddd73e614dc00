/**
 * Names the format of a file from its first ~64 KB, which may end mid-value. Instead of
 * parsing, a tolerant scanner walks the JSON tokens and records which keys appear at which
 * depth (keys inside strings, such as JSON encoded in a string, are never counted), then
 * the key sets are matched against each format's signature.
 */
import { PART_FORMAT, sessionPart } from "./session-files";
import { describeBinary, describeText, isZip, ndjsonHead, zipMembers } from "./shape";
import { isSpecStory } from "./specstory";
import { FORMAT_LABELS, type SourceFormat } from "./types";

const DETECT_HEAD_BYTES = 64 * 1024;

/** What an import of a file in no known format says. */
export const UNKNOWN_FORMAT =
  "the file's format was not recognised (supported: OTLP JSON, Tempo, Jaeger, Langfuse, LangSmith, any-agent, OTel JS span dumps, SWE-agent, mini-swe-agent, OpenAI Agents SDK RunState, Cursor chats exported by SpecStory, OpenHands (event streams and evaluation output.jsonl), Inspect AI (.json and .eval), tau-bench, Claude Code sessions, Codex CLI rollouts, Gemini CLI chats, Qwen Code sessions, OpenCode exports, Cline and Roo Code tasks, Aider histories, Copilot CLI sessions, zips of session folders, ATIF trajectories, Phoenix span exports, Patronus / TRAIL span trees, AG2 group chat histories, AutoGen AgentChat team states, Magentic-One logs, Retrace journals)";

/** The one error of a file in no known format: that it is not supported, and what it looks like. */
export function unknownFormatMessage(looksLike: string): string {
  return UNKNOWN_FORMAT.replace("was not recognised", `was not recognised: it looks like ${looksLike}`);
}

/**
 * Bytes read ahead for detection. `detectFormat` looks at 64 K UTF-16 code units; a code unit
 * takes up to 3 UTF-8 bytes, so 4 × 64 KB always covers the head `importTrace` sees.
 */
export const STREAM_HEAD_BYTES = 4 * DETECT_HEAD_BYTES;
/**
 * The most of a file's start read to find the first complete lines of a line format (a
 * journal, a coding-agent session): a session that opens with a pasted log or a screenshot
 * has a first prompt far longer than the head, and a cut line tells nothing.
 */
export const LINE_HEAD_BYTES = 16 * 1024 * 1024;

interface Shape {
  /** `object`, `array` or `other` for the first JSON value of the text. */
  root: "object" | "array" | "other";
  /** keys[d] = keys seen at nesting depth d (1 = keys of the root object or of array items). */
  keys: Array<Set<string>>;
}

function unescapeKey(raw: string): string {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

/** Scans JSON tokens without building values; stops quietly where the text ends. */
function scan(text: string, maxChars = DETECT_HEAD_BYTES): Shape {
  const keys: Array<Set<string>> = [];
  const stack: Array<"{" | "["> = [];
  let root: Shape["root"] = "other";
  let expectKey = false;
  const n = Math.min(text.length, maxChars);
  let i = 0;
  while (i < n && /\s|\uFEFF/.test(text[i])) i++;
  if (text[i] === "{") root = "object";
  else if (text[i] === "[") root = "array";
  else return { root, keys };
  for (; i < n; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      if (expectKey && stack[stack.length - 1] === "{") {
        const s = unescapeKey(text.slice(i + 1, Math.min(j, i + 201)));
        // A string followed by ":" inside an object is a key.
        let k = j + 1;
        while (k < n && /\s/.test(text[k])) k++;
        if (text[k] === ":") {
          const depth = stack.length;
          // Items of a root array count as depth 1, like the root object's keys.
          const d = root === "array" ? depth - 1 : depth;
          (keys[d] ??= new Set()).add(s);
          expectKey = false;
        }
      }
      i = j;
      continue;
    }
    if (c === "{") {
      stack.push("{");
      expectKey = true;
    } else if (c === "[") {
      stack.push("[");
    } else if (c === "}" || c === "]") {
      stack.pop();
      if (stack.length === 0) break;
    } else if (c === ",") {
      expectKey = stack[stack.length - 1] === "{";
    }
  }
  return { root, keys };
}

function firstLine(text: string): string {
  const s = text.replace(/^\uFEFF/, "").trimStart();
  const nl = s.indexOf("\n");
  return nl < 0 ? s : s.slice(0, nl);
}

function looksLikeJournalLine(line: string): boolean {
  try {
    const v: unknown = JSON.parse(line);
    return v !== null && typeof v === "object" && !Array.isArray(v) && "run" in v && "seq" in v && "type" in v;
  } catch {
    return false;
  }
}

export interface Detection {
  format: SourceFormat;
  label: string;
  /** Format `unknown` only: the one error to give, naming what the file looks like. */
  message?: string;
}

const result = (format: SourceFormat): Detection => ({ format, label: FORMAT_LABELS[format] });

const CODEX_LINE_TYPES = new Set(["session_meta", "turn_context", "response_item", "event_msg", "compacted"]);
/**
 * Claude Code writes more line types with every release (2.1: `progress` hook lines,
 * `queue-operation`, `last-prompt`, `custom-title`, `attachment`…), so a session is told by
 * the shape of its lines, not by a closed list of types: every line names a `type`, and a
 * line of the conversation tree (`sessionId` with `uuid` or `parentUuid`) or a `summary`
 * with its `leafUuid` is among them. The importer reads the types it knows and skips the
 * rest by name (lib/importers/claude-code.ts).
 */
function isClaudeCode(lines: Array<Record<string, unknown>>): boolean {
  if (!lines.every((l) => typeof l.type === "string")) return false;
  if (lines.some(isQwenRecord)) return false;
  const tree = lines.some((l) => typeof l.sessionId === "string" && (typeof l.uuid === "string" || "parentUuid" in l));
  const summary = lines.some((l) => l.type === "summary" && "leafUuid" in l);
  const known = lines.some((l) => l.type === "user" || l.type === "assistant" || l.type === "summary" || l.type === "progress");
  return (tree || summary) && known;
}

/** A Qwen Code record: a conversation-tree line whose message is a Gemini `Content` (`parts`), or a `tool_result` line. */
function isQwenRecord(l: Record<string, unknown>): boolean {
  const m = l.message;
  return (
    typeof l.sessionId === "string" &&
    "uuid" in l &&
    (l.type === "tool_result" || (m !== null && typeof m === "object" && Array.isArray((m as Record<string, unknown>).parts)))
  );
}

/**
 * A Gemini CLI `.jsonl` recording: a metadata line (`sessionId`, `projectHash`), then
 * message records (`id`, `type`), `$set` patches and `$rewindTo` markers.
 */
function isGeminiLog(lines: Array<Record<string, unknown>>): boolean {
  const [head, ...rest] = lines;
  if (typeof head.sessionId !== "string" || typeof head.projectHash !== "string") return false;
  return rest.every((l) => (typeof l.id === "string" && typeof l.type === "string") || "$set" in l || "$rewindTo" in l);
}

/**
 * A Magentic-One `log.jsonl` (autogen-magentic-one): every line a typed, timestamped event,
 * at least one an `OrchestrationEvent` with its `source` and `message`.
 */
function isMagenticOneLog(lines: Array<Record<string, unknown>>): boolean {
  return (
    lines.every((l) => typeof l.type === "string" && typeof l.timestamp === "string" && !("payload" in l) && !("sessionId" in l)) &&
    lines.some((l) => l.type === "OrchestrationEvent" && typeof l.source === "string" && typeof l.message === "string")
  );
}

/** Line formats: Claude Code, Qwen Code and Gemini CLI sessions, Codex rollouts, Magentic-One logs, read off the first complete lines. */
function detectLines(lines: Array<Record<string, unknown>>): SourceFormat | undefined {
  if (lines.length === 0) return undefined;
  if (isGeminiLog(lines)) return "gemini-cli";
  if (lines.some(isQwenRecord) && lines.every((l) => typeof l.type === "string" && typeof l.sessionId === "string")) return "qwen-code";
  const codex = lines.filter((l) => typeof l.type === "string" && CODEX_LINE_TYPES.has(l.type) && "payload" in l && "timestamp" in l);
  if (codex.length === lines.length && lines.some((l) => l.type === "session_meta" || l.type === "response_item")) return "codex";
  if (isClaudeCode(lines)) return "claude-code";
  if (isMagenticOneLog(lines)) return "magentic-one";
  return undefined;
}

const CHAT_KEYS = new Set(["role", "content", "extra", "tool_calls", "tool_call_id", "timestamp", "name", "reasoning_content"]);
/** A bare list of chat messages written by mini-swe-agent: its action blocks or submit marker, or a `.traj.json` name. */
function isMiniMessageList(k1: Set<string>, text: string, fileName?: string): boolean {
  if (!k1.has("role") || !k1.has("content") || [...k1].some((k) => !CHAT_KEYS.has(k))) return false;
  return (
    /\.traj\.json$/i.test(fileName ?? "") ||
    /```(bash|mswea_bash_command)\\n|_SWE_AGENT_FINAL_OUTPUT|COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT/.test(text)
  );
}

/**
 * A span of a Patronus trace export: `span_name` and `span_attributes` (OpenInference keys),
 * a start `timestamp` and children nested in `child_spans`, or, when the head ends before that
 * key (a long first span), an ISO 8601 `duration` ("PT1.5S"): AgentOps-style exports with
 * `span_name` have `start_time` and a numeric duration instead.
 */
function isPatronusSpan(k3: Set<string>, text: string): boolean {
  if (!["span_id", "span_name", "span_attributes", "timestamp"].every((k) => k3.has(k))) return false;
  return k3.has("child_spans") || /"duration"\s*:\s*"P(?:\d|T)/.test(text) || !k3.has("duration");
}

export function detectFormat(head: string, fileName?: string): Detection {
  const text = head.length > DETECT_HEAD_BYTES ? head.slice(0, DETECT_HEAD_BYTES) : head;
  // the line formats are told by whole lines, read as far as the head given goes
  const lineText = head.length > LINE_HEAD_BYTES ? head.slice(0, LINE_HEAD_BYTES) : head;
  // the files of Cline / Roo Code tasks, Aider and Copilot CLI sessions (session-files.ts)
  const part = sessionPart(text);
  if (part) return result(PART_FORMAT[part]);
  const line = firstLine(lineText);
  // A journal's first line is a complete event; a pretty-printed JSON document's is "{".
  if (line.startsWith("{") && looksLikeJournalLine(line)) return result("retrace-journal");
  const lineFormat = line.startsWith("{") ? detectLines(ndjsonHead(lineText)) : undefined;
  if (lineFormat) return result(lineFormat);

  const { root, keys } = scan(text);
  if (root === "other" && isSpecStory(text)) return result("specstory");
  const k1 = keys[1] ?? new Set<string>();
  const deep = new Set<string>([...(keys[2] ?? []), ...(keys[3] ?? []), ...(keys[4] ?? [])]);
  const has = (set: Set<string>, ...names: string[]) => names.every((x) => set.has(x));
  const any = (set: Set<string>, ...names: string[]) => names.some((x) => set.has(x));

  if (root === "object") {
    if (any(k1, "resourceSpans", "resource_spans")) return result("otlp-json");
    if (k1.has("batches") || (k1.has("trace") && any(deep, "batches", "resourceSpans"))) return result("tempo-otlp");
    if (k1.has("data") && any(deep, "traceID", "spanID", "operationName", "processes")) return result("jaeger");
    if (has(k1, "traceID", "spans")) return result("jaeger");
    if (has(k1, "run", "seq", "type")) return result("retrace-journal");
    if (has(k1, "sessionId", "projectHash", "messages")) return result("gemini-cli");
    // mini-swe-agent: {info: {mini_version, exit_status, model_stats…}, messages, trajectory_format}
    if (has(k1, "info", "messages") && (k1.has("trajectory_format") || any(keys[2] ?? new Set(), "mini_version", "model_stats")))
      return result("mini-swe-agent");
    // `opencode export`: {info: {id, …}, messages: [{info, parts}]}
    if (has(k1, "info", "messages") && has(keys[3] ?? new Set(), "info", "parts")) return result("opencode");
    const k2 = keys[2] ?? new Set<string>();
    if (k1.has("trace") && k2.has("projectId") && any(k2, "userId", "sessionId", "observations", "scores")) return result("langfuse");
    if (k1.has("observations") || (k1.has("trace") && any(deep, "observations", "parentObservationId"))) return result("langfuse");
    // Phoenix's REST span list: {data: [{context: {trace_id, span_id}, span_kind, …}], next_cursor}
    if (k1.has("data") && has(keys[3] ?? new Set(), "context", "span_kind") && any(deep, "trace_id", "span_id"))
      return result("phoenix-spans");
    // …and its /spans/otlpv1 form: OTLP spans with snake_case fields in the same envelope
    if (k1.has("data") && has(keys[3] ?? new Set(), "span_id", "trace_id", "start_time_unix_nano")) return result("phoenix-spans");
    // Patronus trace export (TRAIL): {trace_id, spans: [{span_id, span_name, span_attributes, timestamp, duration, child_spans}]}
    if (k1.has("spans") && isPatronusSpan(keys[3] ?? new Set(), text)) return result("patronus-trace");
    if (k1.has("spans") && any(deep, "trace_id", "span_id", "start_time")) return result("otel-sdk-spans");
    if (k1.has("trajectory") || (has(k1, "history", "info") && k1.has("environment"))) return result("swe-agent");
    if (k1.has("eval") && any(k1, "version", "samples", "status", "plan")) return result("inspect-ai");
    if (has(k1, "task_id", "traj") || (k1.has("task_id") && any(k1, "reward", "trial"))) return result("tau-bench");
    if (k1.has("instance_id") && any(k1, "history", "instruction", "test_result")) return result("openhands-eval");
    if (has(k1, "schema_version", "steps") && /"schema_version"\s*:\s*"ATIF/i.test(text)) return result("atif");
    if (any(k1, "post", "patch") && any(deep, "dotted_order", "run_type")) return result("langsmith");
    if (has(k1, "run_type", "id") && any(k1, "dotted_order", "child_runs", "trace_id")) return result("langsmith");
    // OpenAI Agents SDK RunState ({$schemaVersion, modelResponses, generatedItems…}) or a RunResult {state: RunState}
    if (has(k1, "modelResponses", "currentTurn") || (k1.has("state") && has(keys[2] ?? new Set(), "modelResponses", "currentTurn")))
      return result("openai-agents");
    // AG2 group chat saved with its message list: {history: [{content, role, name}], …}
    if (k1.has("history") && has(keys[3] ?? new Set(), "content", "role", "name") && !k1.has("instance_id")) return result("ag2-groupchat");
    // AutoGen AgentChat `team.save_state()`: {type: "TeamState", agent_states: {name: {type, message_thread | agent_state…}}}
    if (
      has(k1, "type", "agent_states") &&
      any(keys[3] ?? new Set(), "message_thread", "agent_state") &&
      /(?:^|[^\\])"type"\s*:\s*"TeamState"/.test(text)
    )
      return result("autogen-agentchat");
  }
  if (root === "array") {
    if (any(k1, "resourceSpans", "resource_spans", "batches")) return result("otlp-json-array");
    if (k1.has("task_id") && any(k1, "traj", "reward", "trial")) return result("tau-bench");
    if (k1.has("source") && any(k1, "action", "observation") && any(k1, "timestamp", "id")) return result("openhands");
    if (k1.has("name") && (any(k1, "spanContext", "_spanContext", "parentSpanId", "parentSpanContext") || k1.has("startTime")))
      return result("otel-js-spans");
    if (has(k1, "traceID", "spans")) return result("jaeger");
    if (has(k1, "run_type", "id") && any(k1, "dotted_order", "trace_id", "child_runs")) return result("langsmith");
    if (has(k1, "context", "span_kind") && any(keys[2] ?? new Set(), "trace_id", "span_id")) return result("phoenix-spans");
    // early mini-swe-agent trajectories: the bare chat message list, actions in ```bash blocks
    if (isMiniMessageList(k1, text, fileName)) return result("mini-swe-agent");
  }
  const lower = (fileName ?? "").toLowerCase();
  if (lower.endsWith(".traj")) return result("swe-agent");
  if (/\.(jsonl|ndjson)(\.gz)?$/.test(lower) && line.startsWith("{") && /"run"\s*:/.test(line)) return result("retrace-journal");
  return { ...result("unknown"), message: unknownFormatMessage(describeText(text, keys[1])) };
}

/** Zip members that may be session files (their content decides); a zip of only other files is unknown. */
const SESSION_MEMBER = /(\.(jsonl?|ndjson|md|history|traj|gz)|\/events\.jsonl|(^|\/)\.aider[^/]*)$/i;

/**
 * `detectFormat` on a stream's first bytes (at least STREAM_HEAD_BYTES, or the whole
 * stream), decoded as a whole file is: replacement characters, a BOM dropped (and a
 * second one, as importTrace drops it).
 */
export function detectBytes(head: Uint8Array, fileName?: string): Detection {
  if (isZip(head)) {
    // Inspect's .eval: a zip whose members include header.json, samples/… or _journal/…
    const names = zipMembers(head);
    if (names.some((n) => n === "header.json" || n.startsWith("samples/") || n.startsWith("_journal/"))) return result("inspect-eval");
    // a zip of a folder whose files may hold sessions: each member is then told by its content (folder.ts)
    if (names.some((n) => SESSION_MEMBER.test(n))) return result("session-folder");
  }
  const binary = describeBinary(head);
  if (binary) return { ...result("unknown"), message: unknownFormatMessage(binary) };
  const text = new TextDecoder().decode(head.subarray(0, LINE_HEAD_BYTES), { stream: true });
  return detectFormat(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, fileName);
}

/**
 * A head worth reading further: it filled STREAM_HEAD_BYTES, opens with `{` and its first
 * lines named no format, so its first line may simply be longer than the head (the caller
 * then peeks up to LINE_HEAD_BYTES and detects again).
 */
export function mayBeLongLines(head: Uint8Array, detected: Detection): boolean {
  if (detected.format !== "unknown" || head.length < STREAM_HEAD_BYTES || head.length >= LINE_HEAD_BYTES) return false;
  let i = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (i < head.length && (head[i] === 0x20 || head[i] === 0x0a || head[i] === 0x0d || head[i] === 0x09)) i++;
  return head[i] === 0x7b; // "{"
}
