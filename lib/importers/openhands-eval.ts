/**
 * OpenHands evaluation output (`output.jsonl`: one benchmark instance per line) → one run
 * per instance, `openhands-<instance_id>-<8 hex of the line's SHA-256>`, so two runs of one
 * instance (another model, another attempt) never share an id and importing the same file
 * again gives the same ids.
 *
 * - V0 histories (`action` / `observation` events with `cause`) go through the event-stream
 *   importer (openhands.ts).
 * - V1 histories (agent SDK: `ActionEvent` / `ObservationEvent` joined by `tool_call_id`):
 *   each action is a step with the model call that chose it (`llm_response_id`, recorded
 *   once) and its tool call; the observation is the result (an error when the command
 *   exited non-zero or the observation says `error`). `FinishAction` gives the output.
 * - `instruction` is the input; `test_result`, `metrics`, `error` land on `run.end`, the
 *   model and agent on `run.start`. LLM configuration (keys, endpoints) is not kept.
 */
import { JournalBuilder } from "./builder";
import { inferEffect } from "./effects";
import { asArray, compact, contentId, firstStr, isRecord, isoToNanos, makeRunId, str, toNumber, type UnknownRecord } from "./json-utils";
import { JsonLineReader } from "./lines";
import { contentText, normalizeArgs } from "./messages";
import { latencyMs } from "./nodes";
import { importOpenHands } from "./openhands";
import type { ImportedRun, ImportOptions, ImportResult } from "./types";

function modelOf(meta: UnknownRecord): string | undefined {
  const llm = isRecord(meta.llm) ? meta.llm : isRecord(meta.llm_config) ? meta.llm_config : {};
  return firstStr(llm.model);
}

function v1Run(
  line: UnknownRecord,
  runId: string,
  start: Record<string, unknown>,
  end: Record<string, unknown>,
  warnings: string[],
): ImportedRun {
  const history = asArray(line.history).filter(isRecord);
  const model = str(start.model) ?? "unknown";
  const b = new JournalBuilder();
  const times = history.map((e) => isoToNanos(e.timestamp));
  let last = times.find((t) => t !== undefined) ?? 0n;
  const tOf = times.map((t) => (last = t ?? last));
  const observations = new Map<string, { e: UnknownRecord; t: bigint }>();
  history.forEach((e, i) => {
    if (e.kind === "ObservationEvent" && typeof e.tool_call_id === "string") observations.set(e.tool_call_id, { e, t: tOf[i] });
  });
  const seenResponses = new Set<string>();
  let output: unknown;
  if (typeof line.instruction === "string") b.add({ t: tOf[0] ?? 0n, type: "input", data: { source: "user", content: line.instruction } });
  history.forEach((e, i) => {
    const t = tOf[i];
    const id = String(e.id ?? i);
    if (e.kind === "MessageEvent") {
      const msg = isRecord(e.llm_message) ? e.llm_message : {};
      b.add({
        t,
        type: e.source === "user" ? "input" : "note",
        data: e.source === "user" ? { source: "user", content: contentText(msg.content) } : { text: contentText(msg.content) },
      });
      return;
    }
    if (e.kind !== "ActionEvent") return;
    const action = isRecord(e.action) ? e.action : {};
    const tc = isRecord(e.tool_call) ? e.tool_call : {};
    const tool = firstStr(e.tool_name, tc.name) ?? String(action.kind ?? "action");
    const call = firstStr(e.tool_call_id, tc.id) ?? `call-${id}`;
    const args = normalizeArgs(tc.arguments ?? {});
    const sid = `ev-${id}`;
    const thought = asArray(e.thought)
      .map((x) => (isRecord(x) ? String(x.text ?? "") : String(x)))
      .join("\n");
    b.add({ t, type: "step.start", step: sid, key: `s${id}`, data: { name: tool, kind: "agent", eventId: id } });
    const resp = firstStr(e.llm_response_id) ?? `resp-${id}`;
    if (!seenResponses.has(resp)) {
      seenResponses.add(resp);
      b.add({
        t,
        type: "model.request",
        step: sid,
        key: `m${id}`,
        parentKey: `s${id}`,
        after: `s${id}`,
        data: { call: resp, model, promptRecorded: false },
      });
      b.add({
        t,
        type: "model.response",
        step: sid,
        key: `r${id}`,
        parentKey: `m${id}`,
        after: `m${id}`,
        data: compact({
          call: resp,
          output: compact({ text: thought || undefined, reasoning: str(e.reasoning_content), toolCalls: [{ id: call, name: tool, args }] }),
        }),
      });
    }
    const obs = observations.get(call);
    if (action.kind === "FinishAction") {
      output = action.message ?? args.message ?? thought;
    } else {
      b.add({
        t,
        type: "tool.call",
        step: sid,
        key: `t${id}`,
        parentKey: `s${id}`,
        after: `r${id}`,
        data: compact({ call, tool, args, ...inferEffect(tool, args), securityRisk: str(e.security_risk) }),
      });
      if (obs) {
        const o = isRecord(obs.e.observation) ? obs.e.observation : {};
        const meta = isRecord(o.metadata) ? o.metadata : {};
        const exit = toNumber(o.exit_code) ?? toNumber(meta.exit_code);
        const status =
          o.timeout === true || exit === -1 ? "timeout" : o.error === true || (exit !== undefined && exit !== 0) ? "error" : "ok";
        b.add({
          t: obs.t,
          type: "tool.result",
          step: sid,
          parentKey: `t${id}`,
          after: `t${id}`,
          data: compact({
            call,
            status,
            result: contentText(o.output ?? o.content),
            error: status === "ok" ? undefined : `exit code ${exit ?? "?"}`,
            exitCode: exit,
            latencyMs: latencyMs(t, obs.t),
          }),
        });
      } else warnings.push(`${runId}: action ${id} (${tool}) has no observation`);
    }
    const endT = obs && obs.t > t ? obs.t : t;
    b.add({ t: endT, type: "step.end", step: sid, parentKey: `s${id}`, after: `s${id}`, data: { status: "ok" } });
  });
  const { min, max } = b.span();
  return { runId, events: b.build({ runId, start: { data: start, t: min }, end: { data: compact({ ...end, output }), t: max } }) };
}

/**
 * Reads `output.jsonl` one line at a time: each line is an instance, converted alone, so a
 * file of any size needs the memory of one line (the whole-text path and the streaming one,
 * stream/index.ts, both go through it). Lines that are not JSON objects are skipped and counted.
 */
export class OpenHandsEvalReader {
  private readonly lines = new JsonLineReader();

  constructor(
    private readonly opts: ImportOptions,
    readonly warnings: string[],
  ) {}

  /** The runs of one line (none for a blank or broken line). */
  line(raw: string): ImportedRun[] {
    const line = this.lines.next(raw);
    return line ? instanceRuns(line, raw, this.opts, this.warnings) : [];
  }

  /** Says how many lines were skipped; call once, after the last line. */
  finish(): void {
    this.lines.finish(this.warnings);
  }
}

export function importOpenHandsEval(text: string, opts: ImportOptions = {}): ImportResult {
  const reader = new OpenHandsEvalReader(opts, []);
  const runs = text.split("\n").flatMap((raw) => reader.line(raw));
  reader.finish();
  return { format: "openhands-eval", runs, warnings: reader.warnings };
}

function instanceRuns(line: UnknownRecord, raw: string, opts: ImportOptions, warnings: string[]): ImportedRun[] {
  const runs: ImportedRun[] = [];
  const instance = firstStr(line.instance_id) ?? "instance";
  const runId = makeRunId("openhands", `${instance}-${contentId(raw.trim()).slice(0, 8)}`);
  const meta = isRecord(line.metadata) ? line.metadata : {};
  const model = modelOf(meta);
  const history = asArray(line.history).filter(isRecord);
  const v1 = history.some((e) => typeof e.kind === "string" && /Event$/.test(e.kind));
  const start = compact({
    workflow: { name: "openhands-eval" },
    agent: { name: firstStr(meta.agent_class) ?? "openhands" },
    task: instance,
    model,
    tags: ["openhands", "openhands-eval", v1 ? "v1" : "v0"],
    versions: model ? { models: { [model]: model } } : undefined,
    input: str(line.instruction),
    source: compact({
      format: "openhands-eval",
      file: opts.fileName,
      instanceId: instance,
      historyFormat: v1 ? "v1" : "v0",
      dataset: firstStr(meta.dataset),
      startTime: str(meta.start_time),
      gitCommit: str(meta.git_commit),
    }),
  });
  const failed = line.error !== null && line.error !== undefined && line.error !== "";
  const end = compact({
    status: failed ? "failed" : "succeeded",
    error: failed ? line.error : undefined,
    testResult: line.test_result ?? undefined,
    metrics: line.metrics ?? undefined,
  });
  if (v1) {
    runs.push(v1Run(line, runId, start, end, warnings));
  } else {
    // the models come from the responses in the history (the configured name is an alias)
    const { versions: _configured, ...v0start } = start;
    const r = importOpenHands(history, raw, {
      fileName: opts.fileName,
      runId,
      start: v0start,
      end: failed ? end : { testResult: end.testResult, metrics: end.metrics },
    });
    warnings.push(...r.warnings.map((w) => `${runId}: ${w}`));
    runs.push(...r.runs);
  }
  return runs;
}
