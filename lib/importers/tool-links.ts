/**
 * Tool steps that name no call id, linked to the model response that requested them (by
 * tool name and arguments): shared by the span formats (OTLP, Tempo, SDK dumps) and Langfuse
 * exports, whose TOOL observations often carry no call id.
 */
import { canonicalJson, sha256Hex } from "../canonical";
import { isRecord } from "./json-utils";
import { causalCompare, type StepNode } from "./nodes";

/**
 * A tool call a model response requested that no tool span has answered yet: what the
 * `/v1/traces` receiver keeps of a trace between requests, so that a tool span arriving in
 * a later request than its model call (batching exporters) is still linked to it.
 */
export interface OpenToolCall {
  id: string;
  name: string;
  /** SHA-256 (hex) of the canonical JSON of the requested arguments. */
  args: string;
  /** When the requesting response ended, ns since the epoch (decimal). */
  end: string;
}

/** How many open tool calls a trace remembers between requests (the latest by response end). */
const OPEN_TOOL_CALLS = 32;

/**
 * A tool span that names no call id (OpenInference LangChain.js when the tool failed, so no
 * ToolMessage says which call it answered) takes the id of the call the model requested: the
 * earliest request for this tool with equal arguments that no other tool span answers, from
 * a response ending before the tool started. Earliest, not latest: span starts are whole
 * milliseconds, so in a fast run the retry's response "ends before" the failed attempt
 * started too, and the latest would swap the two (seen with the Langfuse SDK). Without it the tool call cannot be
 * ordered after, or linked to, the response that asked for it. `earlier`: the calls left
 * open by the spans of earlier requests (they ended before these). Returns the calls still
 * open after these spans, for the next request.
 */
/**
 * LangChain.js (OpenInference) writes a one-argument tool's input as the bare value
 * (`"Oslo"`, read as `{input: "Oslo"}`) where the model asked for `{city: "Oslo"}`, and some
 * instrumentations wrap the whole object (`{input: {city: "Oslo"}}`): the span's arguments
 * are the request's when they are that one value or that object.
 */
function bareArgument(requested: unknown, spanArgs: unknown): boolean {
  if (!isRecord(requested) || !isRecord(spanArgs)) return false;
  // the Claude Agent SDK's instrumentation (seen in a Langfuse export) wraps the whole
  // requested object: `{input: {city: "Berlin"}}` for `{city: "Berlin"}`
  const keys = Object.keys(spanArgs);
  if (keys.length === 1 && keys[0] === "input" && isRecord(spanArgs.input) && !("input" in requested))
    return canonicalJson(spanArgs.input) === canonicalJson(requested);
  const [rk, ...rRest] = Object.keys(requested);
  const [sk, ...sRest] = Object.keys(spanArgs);
  if (rk === undefined || rRest.length > 0 || sk !== "input" || sRest.length > 0 || rk === "input") return false;
  const v = requested[rk];
  return (
    typeof spanArgs.input === "string" &&
    (typeof v === "string" || typeof v === "number" || typeof v === "boolean") &&
    String(v) === spanArgs.input
  );
}

export interface LinkOptions {
  /**
   * The requesting response need only have started before the tool did. The Claude Agent
   * SDK's instrumentation (in Langfuse exports) ends an assistant turn that asked for a tool
   * after that tool ran, so "ended before" would leave the call unlinked.
   */
  startedBefore?: boolean;
}

export function linkToolCallsToRequests(nodes: StepNode[], earlier: readonly OpenToolCall[] = [], opts: LinkOptions = {}): OpenToolCall[] {
  const SLACK = 1_000_000n; // span starts are stamped in whole milliseconds
  const claimed = new Set(nodes.flatMap((n) => (n.tool && n.tool.call !== n.id ? [n.tool.call] : [])));
  // every requested call in order of its response's end, the earlier requests' first
  const requested: Array<{ id: string; name: string; start: bigint; end: bigint; args: () => string; value?: unknown }> = earlier.map(
    (c) => ({
      id: c.id,
      name: c.name,
      start: BigInt(c.end),
      end: BigInt(c.end),
      args: () => c.args,
    }),
  );
  const responses = nodes
    .filter((n) => (n.model?.output?.toolCalls?.length ?? 0) > 0)
    .sort((a, b) => (a.end < b.end ? -1 : a.end > b.end ? 1 : 0));
  for (const r of responses) {
    for (const c of r.model!.output!.toolCalls!) {
      let hash: string | undefined;
      // each requested call's arguments hashed once, and only when a tool span looks
      requested.push({
        id: c.id,
        name: c.name,
        start: r.start,
        end: r.end,
        args: () => (hash ??= sha256Hex(canonicalJson(c.args ?? {}))),
        value: c.args,
      });
    }
  }
  if (requested.length === 0) return [];
  requested.sort((a, b) => (a.end < b.end ? -1 : a.end > b.end ? 1 : 0));
  // in the order they ran: starts in one millisecond are ties decided by the end (causalCompare),
  // never by the span ids, which are random (a failed attempt and its retry could swap)
  const orphans = nodes.filter((n) => n.tool && n.tool.call === n.id).sort(causalCompare);
  for (const node of orphans) {
    const tool = node.tool!;
    let args: string | undefined;
    for (const c of requested) {
      if ((opts.startedBefore ? c.start : c.end) > node.start + SLACK) continue;
      if (claimed.has(c.id) || c.name !== tool.tool) continue;
      const bare = bareArgument(c.value, tool.args);
      if (!bare && c.args() !== (args ??= sha256Hex(canonicalJson(tool.args ?? {})))) continue;
      if (bare) tool.args = c.value;
      tool.call = c.id;
      claimed.add(c.id);
      break;
    }
  }
  // a tool span naming a call id answers it too (and takes its named arguments, see bareArgument)
  const byId = new Map(requested.map((c) => [c.id, c]));
  for (const n of nodes) {
    if (!n.tool) continue;
    claimed.add(n.tool.call);
    const c = byId.get(n.tool.call);
    if (c && bareArgument(c.value, n.tool.args)) n.tool.args = c.value;
  }
  return requested
    .filter((c) => !claimed.has(c.id))
    .slice(-OPEN_TOOL_CALLS)
    .map((c) => ({ id: c.id, name: c.name, args: c.args(), end: c.end.toString() }));
}
