/**
 * `retrace replay JOURNAL … -- CMD`: the agent run again against its recording through the
 * gateway in replay mode (replay-session.ts); the result as a line or one JSON object.
 */
import os from "node:os";
import { randomBytes } from "node:crypto";
import { ExchangeRecorder, parseUpstreams } from "../../gateway";
import type { JournalEvent, JsonValue } from "../../journal/types";
import { mcpServers, McpReplayer, readMcpRecording } from "../../mcp";
import { isPolicyDivergence, placeMap, PolicyGuard, readGatewayRecording, RequestMatcher, type RequestDivergence } from "../../playback";
import { redactMessage } from "../../redact";
import { groupByRun } from "../../semantics";
import { readJournalFile } from "../commands/analyze";
import { startGatewayServer } from "./http-edge";
import { DEFAULT_INSIDE_PORT, IsolationError, prepareIsolation, type Isolation } from "./isolate";
import { currentPlaces, PLACE_VARS } from "./places";
import { journalTarget, newRunId } from "./journal-target";
import { replaySession, type OnDivergence } from "./replay-session";
import { gatewayEnv, runCommand } from "./run-command";

export interface GatewayReplayArgs {
  file: string;
  /** The command to run; empty: the one the recording ran. */
  command: string[];
  /** Where to run it (default: here); with `isolate`, the directory copied (default: the recorded one). */
  cwd?: string;
  /** Run the command under bubblewrap: gateway-only network, a scratch copy of the directory (isolate.ts). */
  isolate?: boolean;
  run?: string;
  port: number;
  onDivergence: OnDivergence;
  upstream: string[];
  out?: string;
  url?: string;
  json: boolean;
  ignore: string[];
  mask: string[];
  /**
   * The declared policy the replay's MCP tool calls are judged by (`--policy FILE`, read by
   * lib/journal readPolicyFile), replacing the recording's run.start policy; absent: that one.
   */
  policy?: JsonValue;
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
  const recorded = [...runs.values()].filter((evs) => readGatewayRecording(evs) !== null);
  if (recorded.length === 0) throw new UsageError(`${file} holds no run recorded through the gateway (retrace record)`);
  if (recorded.length > 1) throw new UsageError(`${file} holds ${recorded.length} gateway recordings; pick one with --run`);
  return recorded[0];
}

export interface ReplayResult {
  run: string;
  mode: "recorded" | "recorded-then-live";
  match: boolean;
  requests: { recorded: number; replayed: number };
  divergence: RequestDivergence | null;
  branch: string | null;
  /** The command's exit status. */
  exitCode: number;
  /** Requests sent upstream after a divergence (`--on-divergence live`). */
  live: number;
  /** How the command was isolated (`--isolate`), else null. */
  isolation: Isolation["record"] | null;
  /** MCP tool calls through `retrace mcp-proxy`: recorded, replayed, sent live, answered with a recorded unknown or timeout */
  tools: { recorded: number; replayed: number; live: number; flagged: number };
}

/** One replay of a recorded run with a command; throws UsageError on bad input. */
export async function replayAgainst(args: GatewayReplayArgs): Promise<ReplayResult> {
  const masks = compileMasks(args.mask);
  for (const p of args.ignore)
    if (p !== "" && !p.startsWith("/")) throw new UsageError(`--ignore needs a JSON Pointer (starting with /), not "${p}"`);
  const origins = parseUpstreams(args.upstream);
  if (typeof origins === "string") throw new UsageError(origins);
  const read = await readJournalFile(args.file);
  for (const err of read.lineErrors) console.error(`${args.file}:${err.line}: ${err.message} (line skipped)`);
  const events = pickRun(read.events, args.file, args.run);
  const recording = readGatewayRecording(events);
  if (!recording) throw new UsageError(`run ${args.run} of ${args.file} was not recorded through the gateway (retrace record)`);
  const command = args.command.length > 0 ? args.command : (recording.command ?? []);
  if (command.length === 0) throw new UsageError(`${args.file}: the recording names no command; give one after --`);

  const there = recording.places;
  let isolation: Isolation | null = null;
  if (args.isolate) {
    const configDirs = PLACE_VARS.map((v) => process.env[v]).filter((v): v is string => typeof v === "string" && v !== "");
    try {
      isolation = prepareIsolation({
        source: args.cwd ?? there.cwd ?? process.cwd(),
        recordedCwd: there.cwd ?? args.cwd ?? process.cwd(),
        insidePort: args.port || DEFAULT_INSIDE_PORT,
        configDirs,
      });
    } catch (e) {
      if (e instanceof IsolationError) throw new UsageError(e.message);
      throw e;
    }
  }
  const here = isolation ? { ...currentPlaces(isolation.cwd), home: isolation.home } : currentPlaces(args.cwd);
  const matcher = new RequestMatcher(recording, { places: placeMap(here, there), ignore: args.ignore, masks });
  const runId = newRunId(`${recording.run.slice(0, 80)}.replay`);
  const start = events.find((e) => e.type === "run.start")?.data ?? {};
  // the MCP calls of the replay are judged on the replay's own journal (lib/playback PolicyGuard)
  const policy = args.policy !== undefined ? args.policy : start.policy;
  const guard = new PolicyGuard(policy);
  const target = journalTarget(runId, args.out, args.url, (e) => guard.observe(e));
  const journal = target.writer;
  const recorder = new ExchangeRecorder(journal);
  const token = randomBytes(16).toString("hex");
  const replayers = new Map<string, McpReplayer>();
  const append = (type: Parameters<typeof journal.append>[0], data: Record<string, unknown>, parent?: number) =>
    journal.append(type, data, parent);
  const replayerFor = (server: string, liveReads: boolean): McpReplayer | null => {
    const known = replayers.get(server);
    if (known) return known;
    const rec = readMcpRecording(events, server);
    if (!rec) return null;
    const r = new McpReplayer(rec, { liveReads, append, guard });
    replayers.set(server, r);
    return r;
  };
  const session = replaySession({
    mcp: { token, replayerFor },
    recording,
    matcher,
    journal,
    recorder,
    onDivergence: args.onDivergence,
    origins,
    toReplay: placeMap(there, here),
  });
  const server = await startGatewayServer(isolation ? { socket: isolation.socket } : args.port, session.handle, (e) =>
    console.error(`retrace gateway: ${redactMessage(e.message)}`),
  );
  const mode = args.onDivergence === "live" ? "recorded-then-live" : "recorded";
  journal.append("run.start", {
    workflow: start.workflow ?? { name: "replay" },
    agent: start.agent ?? { name: command[0] },
    input: command.join(" "),
    environment: "replay",
    initiator: { kind: "user", id: os.userInfo().username },
    replayOf: { run: recording.run, head: recording.head },
    mode,
    components: { model: mode, tools: "agent", mcp: "recorded" },
    // the policy the replay was judged by, so the branch's findings say what its refusals said
    ...(policy !== undefined && policy !== null ? { policy } : {}),
    gateway: { command, cwd: here.cwd, home: here.home, places: here, url: isolation?.url ?? server.url },
    ...(isolation ? { isolation: isolation.record } : {}),
  });
  const where = isolation
    ? `isolated by bubblewrap in ${here.cwd} (a copy of ${isolation.record.copiedFrom}), no network but the gateway`
    : `for real in ${here.cwd} (replay a coding agent in a scratch copy, or with --isolate)`;
  console.error(
    `retrace replay: run ${recording.run} (${recording.exchanges.length} model calls) on ${isolation?.url ?? server.url}; the model is the recording` +
      `${args.onDivergence === "live" ? " until a divergence, then live" : ""}; the agent's own tools run ${where}`,
  );
  // MCP proxies the agent starts reach the gateway where the agent does (inside the sandbox: the bridge)
  const env = gatewayEnv(isolation?.url ?? server.url, { mode: "replay", token });
  const exitCode = isolation
    ? await runCommand(isolation.argv(command), env, { stdoutToStderr: args.json, cwd: here.cwd })
    : await runCommand(command, env, { stdoutToStderr: args.json, cwd: here.cwd });
  await server.close();
  // a recorded MCP server the replay never started still owes its calls
  for (const name of mcpServers(events)) replayerFor(name, false);
  const missingCall = [...replayers.values()].map((r) => r.missing()).find((d) => d !== null) ?? null;
  const divergence: RequestDivergence | null = session.divergence ?? matcher.missing() ?? missingCall;
  const tools = { recorded: 0, replayed: 0, live: 0, flagged: 0 };
  for (const r of replayers.values()) for (const k of Object.keys(tools) as Array<keyof typeof tools>) tools[k] += r.counts[k];
  const match = divergence === null;
  journal.append(
    "run.end",
    match ? { status: "succeeded", output: { exitCode, match } } : { status: "failed", output: { exitCode, match, divergence } },
  );
  await journal.close(5_000);
  return {
    run: recording.run,
    mode,
    match,
    requests: { recorded: recording.exchanges.length, replayed: matcher.replayed },
    divergence,
    branch: target.name,
    exitCode,
    live: session.liveRequests,
    isolation: isolation?.record ?? null,
    tools,
  };
}

/** The result for people: a line when it matched, the divergence with both values when not. */
export function describeResult(result: ReplayResult): string {
  const d = result.divergence;
  if (d === null)
    return `match: ${result.requests.replayed} of ${result.requests.recorded} requests as recorded${result.branch ? `; branch ${result.branch}` : ""}`;
  const value = (v: unknown) => redactMessage(JSON.stringify(v) ?? "null").slice(0, 300);
  const refused = isPolicyDivergence(d) ? `\n  refused: ${redactMessage(d.message)}` : "";
  return `diverged at recorded seq ${d.seq}: ${d.kind}${d.path ? ` at ${d.path}` : ""}${refused}\n  recorded: ${value(d.recorded)}\n  replayed: ${value(d.replayed)}${result.branch ? `\n  branch ${result.branch}` : ""}`;
}

/** Exit 0: every request matched and none is missing; 1: a divergence; 2: bad usage. */
export async function runGatewayReplay(args: GatewayReplayArgs): Promise<number> {
  const result = await replayAgainst(args);
  if (args.json) process.stdout.write(JSON.stringify(result) + "\n");
  else console.log(describeResult(result));
  return result.match ? 0 : 1;
}
