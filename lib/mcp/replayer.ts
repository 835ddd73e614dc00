/**
 * Answering an MCP client from a recording, with no server (the replay's half of the proxy):
 * every answer is the recorded JSON text of the server's result (`raw`), key order kept;
 *
 * - `initialize`, `tools/list` (by cursor) and other requests: as recorded; `ping`: `{}`;
 * - `tools/call`: matched by tool and canonical arguments through lib/playback's one tool
 *   matcher (`ToolCallSequence`, order `first-equal`: an MCP client may send calls
 *   concurrently): each recorded call answers once, with its recorded outcome. A recorded error stays an error; a recorded `unknown` or
 *   `timeout` is answered with the request-timeout error (-32001) and flagged, never turned
 *   into a success or a failure. Nothing here can reach a server: a write is never sent;
 * - a call the recording does not hold: a JSON-RPC error naming the difference, and the
 *   replay's divergence at the recorded seq it departs from (the matcher's tool-call
 *   divergence, the shape of `retrace replay --json`, with `server`); with `liveReads`, a call the server's own annotations declare
 *   read-only (`readOnlyHint: true`) is handed back to the caller to send to the server;
 * - with a policy guard (lib/playback `PolicyGuard`, folding the replay's own journal), a
 *   call that breaks the declared policy is refused before it is matched: the JSON-RPC error
 *   -32011 naming the rule, neither answered from the recording nor sent to a server (not
 *   even with `liveReads`), and the replay's divergence (kind `policy`, with `server`).
 *
 * The replay's own calls and answers go to its journal (`append`, a journal writer's
 * synchronous append) before the answer is returned, so the next call is judged on them.
 */
import { canonicallyEqual } from "../canonical";
import type { EventType, JsonValue } from "../journal/types";
import {
  recordedAnswer,
  ToolCallSequence,
  type PolicyDivergence,
  type PolicyGuard,
  type RecordedTool,
  type ToolCallDivergence,
} from "../playback";
import { RPC, type JsonRpcError } from "./jsonrpc";
import { parseRaw, type McpServerRecording } from "./recording";

/** A tools/call divergence: lib/playback's tool-call divergence or policy refusal, with the server it concerns. */
export type McpDivergence = (ToolCallDivergence | PolicyDivergence) & { server: string };

/** Appends one event to the replay's journal now (a journal writer's append); returns its seq. */
export type AppendNow = (type: EventType, data: Record<string, unknown>, parent?: number) => number;

export type McpAnswer =
  | { kind: "result"; result: Record<string, unknown>; recordedSeq?: number }
  | { kind: "error"; error: JsonRpcError; recordedSeq?: number; flag?: "unknown" | "timeout"; divergence?: McpDivergence }
  /** send it to the server (`liveReads`, a declared read the recording does not hold) */
  | { kind: "live"; tool: string; reason: string };

export interface McpReplayerOptions {
  liveReads?: boolean;
  /** where the replay's own tools/call events go (a branch journal), marked with the recorded call */
  append?: AppendNow;
  /** refuses a call that breaks the declared policy; it must observe the journal `append` writes to */
  guard?: PolicyGuard;
}

/** The MCP result a recorded call answers with: its content and the rest of the result as recorded. */
function resultOf(r: RecordedTool): Record<string, unknown> {
  const d = r.result ?? {};
  const raw = d.mcp !== null && typeof d.mcp === "object" && !Array.isArray(d.mcp) ? parseRaw(d.mcp.raw) : undefined;
  if (raw !== null && typeof raw === "object" && !Array.isArray(raw)) return raw as Record<string, unknown>;
  return { content: d.result ?? [], ...(d.status === "error" ? { isError: true } : {}) };
}

export class McpReplayer {
  private readonly calls: ToolCallSequence;
  private readonly sidesUsed = new Set<number>();
  private first: McpDivergence | null = null;
  private callCount = 0;
  private liveCount = 0;
  private flaggedCount = 0;

  constructor(
    readonly recording: McpServerRecording,
    private readonly opts: McpReplayerOptions = {},
  ) {
    // an MCP client may send calls concurrently: each is answered by the earliest equal recorded call not yet answered
    const calls = [...recording.recording.byTool.values()].flat();
    this.calls = new ToolCallSequence(calls, recording.endSeq, { order: "first-equal" });
  }

  /** The first divergence, in the order calls came. */
  get divergence(): McpDivergence | null {
    return this.first;
  }

  get counts(): { recorded: number; replayed: number; live: number; flagged: number } {
    return { recorded: this.recording.callSeqs.length, replayed: this.callCount, live: this.liveCount, flagged: this.flaggedCount };
  }

  /** The first recorded call no replayed call stood for, as a divergence (null: none). */
  missing(): McpDivergence | null {
    const d = this.calls.missing();
    return d === null ? null : { ...d, server: this.recording.server };
  }

  /** The answer to a request (null for a notification, which needs none). */
  answer(method: string, params: Record<string, unknown> | undefined): McpAnswer {
    const rec = this.recording;
    if (method === "ping") return { kind: "result", result: {} };
    if (method === "initialize") return this.asRecorded(rec.initialize, "initialize");
    if (method === "tools/list") {
      const cursor = params?.cursor ?? null;
      return this.asRecorded(rec.toolLists.find((l) => canonicallyEqual(l.params, cursor)) ?? null, "tools/list");
    }
    if (method === "tools/call") return this.call(params ?? {});
    const wanted = params ?? {};
    const i = rec.sides.findIndex((s, n) => !this.sidesUsed.has(n) && s.method === method && canonicallyEqual(s.params, wanted));
    const j = i >= 0 ? i : rec.sides.findIndex((s) => s.method === method && canonicallyEqual(s.params, wanted));
    if (j >= 0) this.sidesUsed.add(j);
    return this.asRecorded(j >= 0 ? rec.sides[j] : null, method);
  }

  private asRecorded(a: McpServerRecording["initialize"], method: string): McpAnswer {
    if (!a)
      return {
        kind: "error",
        error: {
          code: RPC.methodNotFound,
          message: `retrace replay: ${method} with these params was not recorded for server ${this.recording.server}`,
        },
      };
    if (a.error) return { kind: "error", error: a.error, recordedSeq: a.seq };
    return { kind: "result", result: a.result ?? {}, recordedSeq: a.seq };
  }

  private call(params: Record<string, unknown>): McpAnswer {
    this.callCount++;
    const tool = typeof params.name === "string" ? params.name : "";
    const args = (params.arguments ?? {}) as JsonValue;
    const refused = this.opts.guard?.judge(tool, args, this.calls, { effect: this.effectOf(tool) }) ?? null;
    if (refused !== null) return this.refuse(tool, args, refused);
    const step = this.calls.ask(tool, args);
    if (step.divergence === null && step.recorded !== null) {
      const r = step.recorded;
      const status = recordedAnswer(r).status;
      let out: McpAnswer;
      if (status === "unknown" || status === "timeout") {
        this.flaggedCount++;
        out = {
          kind: "error",
          flag: status,
          recordedSeq: r.seq,
          error: {
            code: RPC.requestTimeout,
            message: `retrace replay: the recorded call at seq ${r.seq} has an ${status} outcome; it is answered as recorded, neither success nor failure`,
          },
        };
      } else if (status === "error" && r.result?.mcp && (r.result.mcp as Record<string, unknown>).rpcError === true) {
        const e = (r.result.error ?? {}) as Record<string, unknown>;
        out = {
          kind: "error",
          recordedSeq: r.seq,
          error: { code: typeof e.code === "number" ? e.code : RPC.internalError, message: String(e.message ?? "error"), data: e.data },
        };
      } else out = { kind: "result", result: resultOf(r), recordedSeq: r.seq };
      this.record(tool, args, r.seq, true, out);
      return out;
    }
    const d = step.divergence!;
    const annotations = this.recording.annotations.get(tool);
    if (this.opts.liveReads && annotations?.readOnlyHint === true) {
      this.liveCount++;
      return { kind: "live", tool, reason: `not in the recording (${d.reason}); the server declares ${tool} read-only` };
    }
    const divergence: McpDivergence = { ...d, server: this.recording.server };
    this.first ??= divergence;
    const why =
      d.reason === "unrecorded-tool"
        ? `the recording never called ${tool} on ${this.recording.server}`
        : d.reason === "repeated"
          ? `every recorded ${tool} call with these arguments was already answered`
          : `no recorded ${tool} call has these arguments (they differ at ${d.path} from the call at seq ${d.seq})`;
    const out: McpAnswer = {
      kind: "error",
      divergence,
      error: {
        code: RPC.notRecorded,
        message: `retrace replay: tools/call not in the recording: ${why}; it was not sent to the server`,
        data: { divergence },
      },
    };
    this.record(tool, args, d.seq, false, out);
    return out;
  }

  /** A call the policy guard refuses: never matched, answered or sent; the replay's divergence. */
  private refuse(tool: string, args: JsonValue, refused: PolicyDivergence): McpAnswer {
    const divergence: McpDivergence = { ...refused, server: this.recording.server };
    this.first ??= divergence;
    const out: McpAnswer = {
      kind: "error",
      divergence,
      error: {
        code: RPC.policyRefused,
        message: `retrace replay: tools/call refused by the declared policy: ${refused.message}; it was not sent to the server nor answered from the recording`,
        data: { divergence },
      },
    };
    this.record(tool, args, refused.seq, false, out, refused.rule);
    return out;
  }

  /** How a tool's effect is recorded: as its recorded calls were, else a write. */
  private effectOf(tool: string): "read" | "write" {
    return this.recording.recording.byTool.get(tool)?.at(0)?.effect ?? "write";
  }

  /** The replay's own call and answer, in its branch journal (`refused`: the rule a refused call breaks). */
  private record(tool: string, args: JsonValue, recordedSeq: number, match: boolean, out: McpAnswer, refused?: string): void {
    const append = this.opts.append;
    if (!append) return;
    const replay = {
      recordedSeq,
      match,
      ...(out.kind === "error" && out.flag ? { outcome: out.flag } : {}),
      ...(refused ? { refused } : {}),
    };
    const call = `mcp:${this.recording.server}:replay:${this.callCount}`;
    const seq = append("tool.call", { call, tool, args, effect: this.effectOf(tool), mcp: { server: this.recording.server }, replay });
    const result =
      out.kind === "result"
        ? { call, status: out.result.isError === true ? "error" : "ok", result: (out.result.content ?? []) as JsonValue, replay }
        : {
            call,
            status: out.kind === "error" && out.flag ? out.flag : "error",
            error: out.kind === "error" ? { ...out.error, data: undefined } : {},
            replay,
          };
    append("tool.result", result, seq);
  }
}
