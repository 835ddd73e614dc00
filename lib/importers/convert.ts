/**
 * Whole-document conversion: `importTrace` detects the format of a text and converts it;
 * `convertDocument` converts a text whose format was already detected (the server's one
 * detection on the first bytes, lib/server/service.ts).
 */
import { parseJsonExact } from "../journal/parse-line";
import { importAg2GroupChat } from "./ag2-groupchat";
import { importAtif } from "./atif";
import { importAutogenTeamState } from "./autogen-agentchat";
import { importMagenticOne } from "./magentic-one";
import { importLangSmith } from "./langsmith";
import { importClaudeCode } from "./claude-code";
import { importCodex } from "./codex";
import { importOpenHandsEval } from "./openhands-eval";
import { detectFormat, unknownFormatMessage } from "./detect";
import { importInspect } from "./inspect-ai";
import { importJaeger } from "./jaeger";
import { importLangfuse } from "./langfuse";
import { importOpenHands } from "./openhands";
import { importPatronus } from "./patronus";
import { importPhoenix } from "./phoenix";
import { importGeminiCli } from "./gemini-cli";
import { importQwenCode } from "./qwen-code";
import { importOpenCode } from "./opencode";
import { ImportError } from "./import-error";
import { importSessionGroup } from "./session-import";
import { sessionPart } from "./session-files";
import { importAnyAgent, importJsSpans } from "./otel-dumps";
import { spansFromOtlpJson, spansToRuns } from "./otlp";
import { importJournal } from "./retrace-journal";
import { importMiniSweAgent } from "./mini-swe-agent";
import { importOpenAIAgents } from "./openai-agents";
import { importSpecStory } from "./specstory";
import { importSweAgent } from "./swe-agent";
import { importTauBench } from "./tau-bench";
import { describeText } from "./shape";
import { FORMAT_LABELS, type ImportOptions, type ImportResult, type SourceFormat } from "./types";

export { ImportError };

/** A legacy Gemini CLI `.json` recording parsed, or undefined for the `.jsonl` log. */
function geminiDocument(body: string): unknown {
  const s = body.trimStart();
  const nl = s.indexOf("\n");
  // one JSON document (pretty-printed or on one line), not a log of records
  if (!s.startsWith("{") || (nl >= 0 && s.slice(nl).trim() !== "" && s.slice(0, nl).trim() !== "{")) return undefined;
  try {
    return parseJsonExact(s);
  } catch {
    return undefined;
  }
}

/** Converts a whole trace file into journal runs. Throws `ImportError` when it cannot. */
export function importTrace(text: string, opts: ImportOptions = {}): ImportResult {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return convertDocument(detectFormat(body, opts.fileName).format, body, opts);
}

/** Converts a text (BOM already dropped) known to be in `format`. Throws `ImportError` when it cannot. */
export function convertDocument(format: SourceFormat, body: string, opts: ImportOptions = {}): ImportResult {
  const label = FORMAT_LABELS[format];
  if (format === "unknown") throw new ImportError(unknownFormatMessage(describeText(body)));
  if (format === "retrace-journal") return importJournal(body);
  // line formats: one JSON object per line, read line by line
  if (format === "claude-code") return importClaudeCode(body, opts);
  if (format === "codex") return importCodex(body, opts);
  if (format === "openhands-eval") return importOpenHandsEval(body, opts);
  if (format === "qwen-code") return importQwenCode(body, opts);
  if (format === "magentic-one") return importMagenticOne(body, opts);
  if (format === "gemini-cli") return importGeminiCli(body, geminiDocument(body), opts);
  if (format === "specstory") return importSpecStory(body, opts);
  // a file of a session that may span several (folder.ts): what it holds, and what is missing
  if (format === "cline" || format === "aider" || format === "copilot-cli") {
    const part = sessionPart(body.slice(0, 256 * 1024));
    if (part) return importSessionGroup({ [part]: { name: opts.fileName ?? "", text: body } }, opts, true);
  }
  if (format === "session-folder") throw new ImportError("a zip of session files is read from its bytes (importTraceStream), not as text");
  // binary: only the /v1/traces receiver takes it (decodeOtlp), never a text file
  if (format === "otlp-protobuf") throw new ImportError(`${label} is received at /v1/traces, not imported as a file`);
  let value: unknown;
  try {
    value = parseJsonExact(body);
  } catch (e) {
    throw new ImportError(
      `the file looks like ${label} but is not valid JSON${e instanceof Error && /end/i.test(e.message) ? " (truncated?)" : ""}`,
    );
  }
  switch (format) {
    case "otlp-json":
    case "otlp-json-array":
    case "tempo-otlp": {
      const warnings: string[] = [];
      const spans = spansFromOtlpJson(value, warnings);
      return { format, runs: spansToRuns(spans, { format, fileName: opts.fileName, warnings }), warnings };
    }
    case "otel-sdk-spans":
      return importAnyAgent(value, opts);
    case "otel-js-spans":
      return importJsSpans(value, body, opts);
    case "jaeger":
      return importJaeger(value, opts);
    case "langfuse":
      return importLangfuse(value, body, opts);
    case "swe-agent":
      return importSweAgent(value, body, opts);
    case "openhands":
      return importOpenHands(value, body, opts);
    case "inspect-ai":
      return importInspect(value, body, opts);
    case "tau-bench":
      return importTauBench(value, opts);
    case "atif":
      return importAtif(value, body, opts);
    case "langsmith":
      return importLangSmith(value, opts);
    case "phoenix-spans":
      return importPhoenix(value, opts);
    case "patronus-trace":
      return importPatronus(value, opts);
    case "opencode":
      return importOpenCode(value, opts);
    case "mini-swe-agent":
      return importMiniSweAgent(value, body, opts);
    case "openai-agents":
      return importOpenAIAgents(value, body, opts);
    case "ag2-groupchat":
      return importAg2GroupChat(value, body, opts);
    case "autogen-agentchat":
      return importAutogenTeamState(value, body, opts);
    default:
      throw new ImportError(`the file looks like ${label}, which this version cannot import yet`);
  }
}
