/**
 * `replayAgainst(journal, agent, {mode})`: run a TypeScript agent again with a recorder that
 * answers its model and tool calls from a recorded run (replay-recorder.ts), and say where
 * it departs from the recording. The result has the `retrace replay --json` shape (`run`,
 * `mode`, `match`, `requests`, `divergence` {seq, kind, path, recorded, replayed}, `branch`),
 * with the branch journal's events in `branch.events` (and in a file with `out`). A tool call
 * that breaks the declared policy (the recording's run.start policy, or `policy`) is refused
 * (replay-recorder.ts) and is the divergence, of kind `policy`.
 */
import { randomBytes } from "node:crypto";
import type { JournalEvent, JsonValue } from "../journal/types";
import { readInvariant } from "../semantics";
import { readRecorderRecording, type RequestDivergence } from "../playback";
import { fileSink } from "./file-sink";
import { readJournalEvents } from "./journal-file";
import { memorySink } from "./memory-sink";
import type { Recorder, RecorderOptions } from "./recorder";
import { replayRecorder, type LiveModel, type ReplayMode } from "./replay-recorder";
import type { ErrorReporter, Sink } from "./types";

/** An agent as replay runs it: everything it records goes through `rec`; it may call `rec.end` itself. */
export type ReplayableAgent = (rec: Recorder) => Promise<unknown>;

export interface ReplayOptions {
  /** `recorded` (default): every model and tool answer from the recording. `model-live`: the model is `model`, tools still from the recording, writes blocked. */
  mode?: ReplayMode;
  model?: LiveModel;
  /** `model-live` only: a read the recording cannot answer runs for real (marked live). */
  liveReads?: boolean;
  /**
   * The declared policy the agent's tool calls are judged by (the JSON of
   * run.start.data.policy: tool contracts, invariants), in place of the recording's
   * run.start policy, which it replaces whole (as a workflow's attached policy does).
   * The branch's run.start records it.
   */
  policy?: JsonValue;
  /** The run to replay when the journal holds several. */
  run?: string;
  /** Also write the branch journal (NDJSON) to this file, to import into Retrace. */
  out?: string;
  /** The branch's run id (default `<recorded run>.replay-<time>-<random>`). */
  runId?: string;
  /** Epoch milliseconds for the branch's timestamps. */
  clock?: () => number;
  onError?: ErrorReporter;
}

export interface ReplayResult {
  /** The recorded run. */
  run: string;
  mode: ReplayMode;
  match: boolean;
  requests: { recorded: number; replayed: number };
  tools: { recorded: number; replayed: number };
  /** The first divergence, with seq the recorded journal's; null when every call matched and none is missing. */
  divergence: RequestDivergence | null;
  branch: { run: string; file: string | null; events: JournalEvent[] };
  /** What the agent returned, or the error it threw (the branch records it too). */
  output?: unknown;
  error?: unknown;
}

function runsOf(events: readonly JournalEvent[]): Map<string, JournalEvent[]> {
  const runs = new Map<string, JournalEvent[]>();
  for (const e of events) {
    const list = runs.get(e.run) ?? [];
    list.push(e);
    runs.set(e.run, list);
  }
  return runs;
}

function pickRun(events: readonly JournalEvent[], run: string | undefined, where: string): JournalEvent[] {
  const runs = runsOf(events);
  if (run !== undefined) {
    const found = runs.get(run);
    if (!found) throw new Error(`${where} has no run ${run} (it has ${[...runs.keys()].slice(0, 5).join(", ") || "no events"})`);
    return found;
  }
  if (runs.size === 0) throw new Error(`${where} holds no events`);
  if (runs.size > 1) throw new Error(`${where} holds ${runs.size} runs; pick one with { run }`);
  return [...runs.values()][0];
}

function teeSink(sinks: Sink[]): Sink {
  return {
    write: (e) => sinks.forEach((s) => s.write(e)),
    flush: async (t) => (await Promise.all(sinks.map((s) => s.flush(t)))).every(Boolean),
    close: async (t) => (await Promise.all(sinks.map((s) => s.close(t)))).every(Boolean),
  };
}

function stamp(): string {
  return `${new Date()
    .toISOString()
    .replace(/[^0-9]/g, "")
    .slice(0, 14)}-${randomBytes(4).toString("hex")}`;
}

/**
 * A policy given in code, checked as far as the recorder can without the journal schema: an
 * object whose invariants the kernel can all read (one it cannot would be off without a word).
 */
function checkPolicy(policy: JsonValue): void {
  if (policy === null || typeof policy !== "object" || Array.isArray(policy))
    throw new TypeError("replayAgainst: policy must be an object (the JSON of run.start.data.policy)");
  const invariants = policy.invariants;
  if (invariants === undefined) return;
  if (!Array.isArray(invariants)) throw new TypeError("replayAgainst: policy.invariants must be an array");
  invariants.forEach((inv, i) => {
    if (readInvariant(inv) === null)
      throw new TypeError(`replayAgainst: policy.invariants[${i}] is not an invariant of a known kind and shape`);
  });
}

/** Replays `agent` against a recorded run (a journal file's path, or its events). */
export async function replayAgainst(
  journal: string | readonly JournalEvent[],
  agent: ReplayableAgent,
  opts: ReplayOptions = {},
): Promise<ReplayResult> {
  const mode = opts.mode ?? "recorded";
  if (mode !== "recorded" && mode !== "model-live")
    throw new TypeError(`replayAgainst: mode must be "recorded" or "model-live", not "${String(mode)}"`);
  if (opts.policy !== undefined) checkPolicy(opts.policy);
  const where = typeof journal === "string" ? journal : "the journal";
  const events = pickRun(typeof journal === "string" ? await readJournalEvents(journal) : journal, opts.run, where);
  const recording = readRecorderRecording(events);
  if (!recording) throw new Error(`${where} holds no events`);
  const start = recording.start;
  const memory = memorySink();
  const sink = opts.out ? teeSink([memory, fileSink(opts.out)]) : memory;
  const runId = opts.runId ?? `${recording.run.slice(0, 80)}.replay-${stamp()}`;
  const replay = replayRecorder({
    recording,
    mode,
    model: opts.model,
    liveReads: opts.liveReads,
    policy: opts.policy,
    header: {
      replayOf: { run: recording.run, head: recording.head },
      mode,
      components: { model: mode === "recorded" ? "recorded" : "live", tools: "recorded" },
    },
    recorder: {
      runId,
      workflow: (start.workflow as unknown as RecorderOptions["workflow"] | undefined) ?? { name: "replay" },
      agent: start.agent as unknown as RecorderOptions["agent"],
      versions: start.versions as RecorderOptions["versions"],
      environment: "replay",
      initiator: { kind: "replay" },
      policy: (opts.policy !== undefined ? opts.policy : start.policy) as RecorderOptions["policy"],
      input: start.input,
      tags: Array.isArray(start.tags) ? (start.tags as string[]) : undefined,
      sink,
      clock: opts.clock,
      onError: opts.onError,
    },
  });
  let output: unknown;
  let error: unknown;
  let threw = false;
  try {
    output = await agent(replay.recorder);
  } catch (e) {
    threw = true;
    error = e;
  }
  if (!replay.ended) await replay.recorder.end(threw ? "failed" : "succeeded", threw ? { error } : { output });
  await sink.close(10_000);
  const divergence = replay.divergence;
  return {
    run: recording.run,
    mode,
    match: divergence === null,
    requests: replay.requests,
    tools: replay.tools,
    divergence,
    branch: { run: runId, file: opts.out ?? null, events: memory.events },
    ...(threw ? { error } : { output }),
  };
}
