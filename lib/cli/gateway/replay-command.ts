/**
 * `retrace replay JOURNAL … -- CMD`: the agent run again against its recording through the
 * gateway in replay mode (replay-session.ts); the result as a line or one JSON object.
 */
import os from "node:os";
import { ExchangeRecorder, parseUpstreams } from "../../gateway";
import type { JournalEvent } from "../../journal/types";
import { placeMap, readRecording, RequestMatcher, type Divergence } from "../../playback";
import { redactMessage } from "../../redact";
import { groupByRun } from "../../analyze";
import { readJournalFile } from "../commands/analyze";
import { startGatewayServer } from "./http-edge";
import { currentPlaces } from "./places";
import { journalTarget, newRunId } from "./journal-target";
import { replaySession, type OnDivergence } from "./replay-session";
import { gatewayEnv, runCommand } from "./run-command";

export interface GatewayReplayArgs {
  file: string;
  command: string[];
  run?: string;
  port: number;
  onDivergence: OnDivergence;
  upstream: string[];
  out?: string;
  url?: string;
  json: boolean;
  ignore: string[];
  mask: string[];
}

export class UsageError extends Error {}

function compileMasks(masks: string[]): RegExp[] {
  return masks.map((m) => {
    try {
      return new RegExp(m, "g");
    } catch (e) {
      throw new UsageError(`--mask "${m}" is not a regular expression (${(e as Error).message})`);
    }
  });
}

function pickRun(events: JournalEvent[], file: string, run: string | undefined): JournalEvent[] {
  const runs = groupByRun(events);
  if (run !== undefined) {
    const found = runs.get(run);
    if (!found) throw new UsageError(`${file} has no run ${run}`);
    return found;
  }
  const recorded = [...runs.values()].filter((evs) => readRecording(evs) !== null);
  if (recorded.length === 0) throw new UsageError(`${file} holds no run recorded through the gateway (retrace record)`);
  if (recorded.length > 1) throw new UsageError(`${file} holds ${recorded.length} gateway recordings; pick one with --run`);
  return recorded[0];
}

/** Exit 0: every request matched and none is missing; 1: a divergence; 2: bad usage. */
export async function runGatewayReplay(args: GatewayReplayArgs): Promise<number> {
  const masks = compileMasks(args.mask);
  for (const p of args.ignore)
    if (p !== "" && !p.startsWith("/")) throw new UsageError(`--ignore needs a JSON Pointer (starting with /), not "${p}"`);
  const origins = parseUpstreams(args.upstream);
  if (typeof origins === "string") throw new UsageError(origins);
  const read = await readJournalFile(args.file);
  for (const err of read.lineErrors) console.error(`${args.file}:${err.line}: ${err.message} (line skipped)`);
  const events = pickRun(read.events, args.file, args.run);
  const recording = readRecording(events);
  if (!recording) throw new UsageError(`run ${args.run} of ${args.file} was not recorded through the gateway (retrace record)`);

  const here = currentPlaces();
  const there = recording.places;
  const matcher = new RequestMatcher(recording, { places: placeMap(here, there), ignore: args.ignore, masks });
  const runId = newRunId(`${recording.run.slice(0, 80)}.replay`);
  const target = journalTarget(runId, args.out, args.url);
  const journal = target.writer;
  const recorder = new ExchangeRecorder(journal);
  const session = replaySession({
    recording,
    matcher,
    journal,
    recorder,
    onDivergence: args.onDivergence,
    origins,
    toReplay: placeMap(there, here),
  });
  const server = await startGatewayServer(args.port, session.handle, (e) => console.error(`retrace gateway: ${redactMessage(e.message)}`));
  const start = events.find((e) => e.type === "run.start")?.data ?? {};
  const mode = args.onDivergence === "live" ? "recorded-then-live" : "recorded";
  journal.append("run.start", {
    workflow: start.workflow ?? { name: "replay" },
    agent: start.agent ?? { name: args.command[0] },
    input: args.command.join(" "),
    environment: "replay",
    initiator: { kind: "user", id: os.userInfo().username },
    replayOf: { run: recording.run, head: recording.head },
    mode,
    components: { model: mode, tools: "agent" },
    gateway: { command: args.command, cwd: here.cwd, home: here.home, places: here, url: server.url },
  });
  console.error(
    `retrace replay: run ${recording.run} (${recording.exchanges.length} model calls) on ${server.url}; the model is the recording` +
      `${args.onDivergence === "live" ? " until a divergence, then live" : ""}; the agent's own tools run for real in ${here.cwd} (replay a coding agent in a scratch copy)`,
  );
  const exitCode = await runCommand(args.command, gatewayEnv(server.url), { stdoutToStderr: args.json });
  await server.close();
  const divergence: Divergence | null = session.divergence ?? matcher.missing();
  const match = divergence === null;
  journal.append(
    "run.end",
    match ? { status: "succeeded", output: { exitCode, match } } : { status: "failed", output: { exitCode, match, divergence } },
  );
  await journal.close(30_000);
  const result = {
    run: recording.run,
    mode,
    match,
    requests: { recorded: recording.exchanges.length, replayed: matcher.replayed },
    divergence,
    branch: target.name,
    exitCode,
    live: session.liveRequests,
  };
  if (args.json) process.stdout.write(JSON.stringify(result) + "\n");
  else if (match)
    console.log(
      `match: ${matcher.replayed} of ${recording.exchanges.length} requests as recorded${target.name ? `; branch ${target.name}` : ""}`,
    );
  else
    console.log(
      `diverged at recorded seq ${divergence.seq}: ${divergence.kind}${divergence.path ? ` at ${divergence.path}` : ""}\n  recorded: ${redactMessage(JSON.stringify(divergence.recorded) ?? "null").slice(0, 300)}\n  replayed: ${redactMessage(JSON.stringify(divergence.replayed) ?? "null").slice(0, 300)}${target.name ? `\n  branch ${target.name}` : ""}`,
    );
  return match ? 0 : 1;
}
