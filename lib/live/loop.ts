/**
 * The continuation engine's loop (pure): from a point of a recorded run, with a what-if edit
 * applied or none, go on as the agent would have, a model turn at a time. It decides what
 * to ask and records what came back; every outside call goes through the ports it is given
 * (the server passes HTTP to the project's executors, tests pass fakes), so nothing here
 * does I/O and a simulated replay (lib/replay) never reaches this file.
 *
 * Contract (used by "continue a fork live" and by "resume from a checkpoint"):
 *
 *   const start = continuationStart(events, { seq, override? })   // throws PlanError
 *   const out = await runContinuation({ start, recording: events, policy, ports, mark })
 *   const journal = continuationJournal({ branchRun, original, start, outcome: out, ts })
 *
 * - `continuationStart` keeps the original's events up to the fork (the edited one
 *   replaced and marked `data.whatIf`), and assembles the context the agent would send
 *   next: the last recorded model.request's messages (its `messages`, else its `context`
 *   event's), the assistant turn that answered it, and the tool results of that turn up to
 *   the fork, the edited one substituted. Tool calls of that turn with no result yet are
 *   `pending`: they are answered before the model is called again.
 * - `runContinuation` loops: answer the pending tool calls, then call the model (at most
 *   `policy.maxTurns` times), until the model answers with no tool call or a stop:
 *   * each tool call is played against the recording (lib/playback `playToolCall`: its
 *     effect, and the answer of a canonically equal call the call ledger confirms);
 *   * a read the recording does not answer goes to `ports.readTool` (the read executor);
 *     no read executor: stop `read-needs-executor`;
 *   * a write (or a tool never recorded, or a gated one) is never sent: with
 *     `policy.reuseConfirmedWrites` (resume) a confirmed equal write is answered from the
 *     recording; else with `policy.writes = "block"` (sandbox-only) the agent gets an
 *     error result and goes on;
 *     with `"stop"` the call is recorded as pending and the continuation stops
 *     (`write-needs-confirmation`) for a separate, confirmed live action;
 *   * the stop reason is one of STOP_REASONS and is recorded (a `decision` and `run.end`).
 * - Every event it adds carries `data.live` (`mark` plus where an answer came from), so the
 *   branch's frames read as recorded (copied), simulated (`data.whatIf`) or live.
 *
 * `branchReconciles` (LiveBranch reconciles of the recording's calls) count as its own
 * reconciles for `reuseConfirmedWrites`. `ports` may throw; a model port that throws stops with `model-error`, a read port that
 * throws gives the agent an `unknown` result (as a failed executor request is recorded).
 */
import type { JournalEvent, JsonObject, JsonValue } from "../journal/types";
import { indexRecording, playToolCall, type ToolAnswer } from "../playback";
import type { BranchReconcile } from "../semantics";
import { assistantOf, toolMessageContent, type ModelAnswer, type ModelRequest } from "./chat-wire";
import {
  clampTurns,
  type AddedEvent,
  type ContinueMark,
  type ContinueOutcome,
  type ContinuePolicy,
  type ContinuePorts,
  type ContinueStart,
  type StopReason,
} from "./continue-contract";

/** `ask`'s id, or one made unique among the call ids the branch already has. */
function uniqueCall(id: string, taken: Set<string>, seq: number): string {
  const out = taken.has(id) ? `${id}.live-${seq}` : id;
  taken.add(out);
  return out;
}

/** Runs the loop (see the contract at the top of the file). */
export async function runContinuation(opts: {
  start: ContinueStart;
  /** what counts as "the recording" for read answers and confirmed writes (the original's events; a resume passes the run's) */
  recording: readonly JournalEvent[];
  policy: ContinuePolicy;
  ports: ContinuePorts;
  mark: ContinueMark;
  /** the model name to send (the executor's), default the recorded one */
  model?: string;
  /** reconciles of the recording's calls made on branch runs (they confirm writes like the journal's own) */
  branchReconciles?: readonly BranchReconcile[];
}): Promise<ContinueOutcome> {
  const { start, policy, ports } = opts;
  const maxTurns = clampTurns(policy.maxTurns);
  const recording = indexRecording(opts.recording, opts.branchReconciles ?? []);
  const gated = new Set(start.policy?.requireApproval ?? []);
  const taken = new Set(start.kept.filter((e) => typeof e.data.call === "string").map((e) => e.data.call as string));
  const added: AddedEvent[] = [];
  let seq = start.kept[start.kept.length - 1].seq;
  const add = (type: string, data: JsonObject, parent?: number): number => {
    seq++;
    added.push({ seq, type, data, ...(parent !== undefined ? { parent } : {}) });
    return seq;
  };
  const live = (extra: JsonObject = {}): JsonObject => ({ ...opts.mark, ...extra });
  const messages = [...start.messages];
  let pending = [...start.pending];
  const out: ContinueOutcome = {
    added,
    stop: "final-answer",
    stopDetail: "",
    modelCalls: 0,
    readsFromRecording: 0,
    readsFromExecutor: 0,
    writesReused: 0,
    writesBlocked: 0,
    pendingWrite: null,
    finalText: null,
  };
  const stop = (reason: StopReason, detail: string): ContinueOutcome => {
    out.stop = reason;
    out.stopDetail = detail;
    add("decision", { action: "stop", reason: detail, live: live({ stop: reason }) });
    const status = reason === "final-answer" ? "succeeded" : reason === "model-error" ? "failed" : "cancelled";
    add("run.end", {
      status,
      ...(out.finalText !== null ? { output: out.finalText } : {}),
      ...(status !== "succeeded" ? { error: { message: detail } } : {}),
      live: live({ stop: reason }),
    });
    return out;
  };

  for (;;) {
    for (const ask of pending) {
      const played = playToolCall(
        recording,
        { tool: ask.name, args: ask.args },
        { reuseReads: policy.reuseReads, reuseConfirmedWrites: policy.reuseConfirmedWrites, gated },
      );
      const effect = played.effect;
      const callSeq = seq + 1;
      const callId = uniqueCall(ask.id, taken, callSeq);
      const callData = (source: JsonObject): JsonObject => ({
        call: callId,
        tool: ask.name,
        args: ask.args,
        effect,
        live: live({ source }),
      });
      const answer = (a: ToolAnswer, source: JsonObject, callAt: number) => {
        const data: JsonObject = {
          call: callId,
          status: a.status,
          ...(a.result !== undefined ? { result: a.result } : {}),
          ...(a.error !== undefined ? { error: a.error } : {}),
          ...(a.externalId !== undefined ? { externalId: a.externalId } : {}),
          live: live({ source }),
        };
        add("tool.result", data, callAt);
        messages.push({ role: "tool", name: ask.name, tool_call_id: ask.id, content: toolMessageContent(data) });
      };
      if (played.kind === "recorded") {
        const hit = played.recorded;
        if (effect === "read") {
          const at = add("tool.call", callData({ kind: "recording", seq: hit.seq }));
          answer(played.answer, { kind: "recording", seq: hit.seq }, at);
          out.readsFromRecording++;
          continue;
        }
        // the recorded operation, confirmed: its idempotency key is the branch call's too
        const at = add("tool.call", {
          ...callData({ kind: "recording", seq: hit.seq, confirmed: true }),
          ...(hit.key !== null ? { idempotencyKey: hit.key } : {}),
        });
        answer(played.answer, { kind: "recording", seq: hit.seq, confirmed: true }, at);
        out.writesReused++;
        continue;
      }
      if (effect === "read") {
        if (!ports.readTool) {
          add("tool.call", { ...callData({ kind: "none" }), ...{ live: live({ source: { kind: "none" }, pending: true }) } });
          return stop(
            "read-needs-executor",
            `${ask.name} was asked with arguments the recording does not answer, and no read executor was given`,
          );
        }
        const at = add("tool.call", callData({ kind: "executor" }));
        let a: ToolAnswer;
        try {
          a = await ports.readTool({ tool: ask.name, args: ask.args, call: callId, seq: at });
        } catch (e) {
          a = { status: "unknown", error: { message: e instanceof Error ? e.message : "the read executor failed" } };
        }
        answer(a, { kind: "executor" }, at);
        out.readsFromExecutor++;
        continue;
      }
      const why =
        played.divergence.kind === "unrecorded-tool"
          ? "a tool the recording never called"
          : played.gated
            ? "gated by the policy"
            : "a write";
      if (policy.writes === "block") {
        const at = add("tool.call", callData({ kind: "blocked" }));
        answer(
          {
            status: "error",
            error: { message: `blocked: ${ask.name} is ${why}, and this continuation is sandbox-only; nothing was sent` },
          },
          { kind: "blocked" },
          at,
        );
        out.writesBlocked++;
        continue;
      }
      const at = add("tool.call", { ...callData({ kind: "none" }), live: live({ source: { kind: "none" }, pending: true }) });
      out.pendingWrite = { seq: at, call: callId, tool: ask.name, args: ask.args };
      return stop(
        "write-needs-confirmation",
        `${ask.name} is ${why}: it was not sent; re-execute #${at} on this branch to send it, with its own confirmation`,
      );
    }
    pending = [];
    if (out.modelCalls >= maxTurns)
      return stop("max-turns", `stopped after ${maxTurns} model turn${maxTurns === 1 ? "" : "s"} (the bound)`);

    const req: ModelRequest = {
      model: opts.model ?? start.setup.model,
      messages: [...messages],
      params: start.setup.params,
      tools: start.setup.tools,
    };
    const ctxSeq = add("context", {
      messages: req.messages.map((m) => ({
        role: m.role,
        content: m.content ?? "",
        ...(m.role === "tool" && m.name ? { source: `tool:${m.name}` } : {}),
      })),
      ...(start.setup.instructions ? { instructions: start.setup.instructions } : {}),
      live: live(),
    });
    const callId = uniqueCall(`live-m-${seq + 1}`, taken, seq + 1);
    const reqSeq = add("model.request", {
      call: callId,
      model: req.model,
      params: req.params,
      context: ctxSeq,
      messages: req.messages as unknown as JsonValue,
      tools: req.tools,
      live: live(),
    });
    out.modelCalls++;
    let a: ModelAnswer;
    try {
      a = await ports.model(req);
    } catch (e) {
      const message = e instanceof Error ? e.message : "the model executor failed";
      add("model.response", { call: callId, error: { message }, live: live() }, reqSeq);
      return stop("model-error", `the model executor gave no answer: ${message}`);
    }
    // a call id the branch already has (a model numbering its calls from 1 again) is renamed
    // everywhere at once: journal, assistant message and tool messages stay consistent
    const respSeq = seq + 1;
    const inAnswer = new Set<string>();
    const asked = a.toolCalls.map((c, i) => {
      const id = taken.has(c.id) || inAnswer.has(c.id) ? `${c.id}.live-${respSeq}-${i}` : c.id;
      inAnswer.add(id);
      return { ...c, id };
    });
    add(
      "model.response",
      {
        call: callId,
        output: {
          ...(a.text !== null ? { text: a.text } : {}),
          ...(asked.length > 0 ? { toolCalls: asked.map((c) => ({ id: c.id, name: c.name, args: c.args })) } : {}),
        },
        ...(a.finishReason ? { finishReason: a.finishReason } : {}),
        ...(a.usage ? { usage: a.usage } : {}),
        ...(a.latencyMs !== undefined ? { latencyMs: a.latencyMs } : {}),
        live: live(),
      },
      reqSeq,
    );
    messages.push(assistantOf(a.text, asked));
    if (asked.length === 0) {
      out.finalText = a.text ?? "";
      return stop("final-answer", "the model answered with no tool call");
    }
    pending = asked;
  }
}
