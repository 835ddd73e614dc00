/**
 * `retrace replay [--json] FILE [--run RUN] [--fork SEQ --override JSON]`: a hermetic
 * replay of one run (reconstruct), or a what-if fork of it, for scripts and CI. With
 * `-- CMD`, the agent itself run again against a gateway recording (gateway/replay-command.ts).
 */
import { canonicalJson } from "../../canonical";
import type { Fidelity } from "../../journal/types";
import { parseJsonExact } from "../../journal/parse-line";
import { createReplay, parseForkOverride, ReplayError, type ForkOverride, type ForkSpec, type ReplaySummary } from "../../replay";
import { groupByRun } from "../../semantics";
import type { CommandArgs } from "../args";
import { redactMessage } from "../../redact";
import { readJournalFile, useNativeSha256 } from "./analyze";
import { parsePort } from "./record";
import { readPolicyOption } from "../policy-option";

export const summary = "Replay a run hermetically (reconstruct, or a what-if fork) and report divergences";

export const usage = `Usage: npm run -s retrace -- replay [--json] FILE [--run RUN] [--fork SEQ --override JSON]
       npm run -s retrace -- replay JOURNAL [--run RUN] [--port PORT]
         [--on-divergence stop|recorded|live] [--upstream API=ORIGIN …] [--out FILE | --url URL]
         [--ignore POINTER …] [--mask REGEX …] [--isolate [--cwd DIR]] [--policy FILE] [--json]
         -- CMD [ARGS…]

Replays one run of a journal without calling any tool or model: rebuilds the state at
every event, verifies state hashes and the hash chain, re-evaluates the deterministic
policy decisions (approval required, stop condition, max steps) and reports where the
recording and the reconstruction diverge. Every write tool call is blocked and its
recorded result substituted.

Options:
  --json            print the result as one JSON object (divergences, provenance counts,
                    fork changes)
  --run RUN         the run to replay (needed when the file holds several)
  --fork SEQ        fork the run at this seq (what-if); needs --override
  --override JSON   what the fork changes, a JSON object with one or more of:
                      {"policy":{"maxSteps":2}}                 policy fields from SEQ on
                      {"policy":{"requireApproval":["send_email"]}}
                      {"toolResult":{"status":"error"}}         fields of the tool.result at
                                                                SEQ (or of the result of the
                                                                tool.call at SEQ)
                      {"modelOutput":{"text":"…"}}              output of the model.response
                                                                at SEQ (or of the request's)
                      {"state":{…}}                             the run state right after SEQ
                      {"statePatch":[{"op":"add",…}]}           RFC 6902 ops on that state
                      {"approval":"denied"}                     the decision at SEQ (an
                                                                approval.decision, its
                                                                request, or the gated call)
  --fidelity F      replayable | trace | partial, when known from where the run came from
  --frames          include every frame (seq, type, provenance, stale, note) in the JSON

Exit status: 0 when the replay ran (whatever it found), 2 when the file cannot be read,
the run is not found, or an argument or the override is wrong.

With -- CMD: runs the agent again with the model answered from a run recorded by
\`retrace record\` (the gateway in replay mode, environment as for record). Each model
request is matched against the recorded one it stands for, after normalisation (session
ids, dates, cache keys; the recorded working directory and home mapped to these). The
agent's own tools run for real, here: replay a coding agent in a scratch copy.
  --on-divergence stop      refuse the first request that departs (default)
  --on-divergence recorded  keep answering in recorded order, marking what departs
  --on-divergence live      from the divergence on, forward to the upstream (marked live)
  --upstream API=ORIGIN     the upstream for live (as for record)
  --out FILE | --url URL    where the replay's own journal (the branch) goes
  --ignore POINTER          leave this JSON Pointer of every request out of matching
  --mask REGEX              mask text matching REGEX in every request before matching
  --isolate                 run CMD under bubblewrap (Debian package bubblewrap): no network
                            but the gateway (127.0.0.1:PORT inside, default 4100), in a
                            scratch copy of the recorded working directory (or of --cwd DIR),
                            HOME an empty scratch folder, the rest of the file system
                            read-only; the branch's run.start records {isolation}
  --cwd DIR                 with --isolate: the directory to copy (default: the recorded one)
  --port PORT               the gateway's port (default: a free one; with --isolate, the port
                            the agent sees inside the sandbox)
  --policy FILE             judge the agent's MCP tool calls (through retrace mcp-proxy) by this
                            declared policy (the JSON of run.start.data.policy: tool contracts,
                            invariants; docs/declared-policy.md, e.g. a workflow's attached
                            one) instead of the recording's run.start policy. A call that
                            breaks it, judged on the replay's own calls, results and inputs so
                            far, is refused (neither answered from the recording nor run) and is
                            the divergence: kind policy, its rule (tool.args-invalid with the
                            keyword, policy.<kind> with the invariant id and the evidence seq
                            of the replay's journal)
  --json                    one object on stdout (the command's stdout goes to stderr):
                            {run, mode, match, requests {recorded, replayed},
                             divergence null | {seq, kind, path, recorded, replayed}, branch,
                             isolation null | {tool, network, cwd, copiedFrom}}
Exit status: 0 every request matched and none is missing, 1 a divergence, 2 bad usage.`;

export const options = {
  json: { type: "boolean" },
  frames: { type: "boolean" },
  run: { type: "string" },
  fork: { type: "string" },
  override: { type: "string" },
  fidelity: { type: "string" },
  port: { type: "string" },
  "on-divergence": { type: "string" },
  upstream: { type: "string", multiple: true },
  out: { type: "string" },
  url: { type: "string" },
  ignore: { type: "string", multiple: true },
  mask: { type: "string", multiple: true },
  isolate: { type: "boolean" },
  cwd: { type: "string" },
  policy: { type: "string" },
} as const;

const GATEWAY_ONLY = ["port", "on-divergence", "upstream", "out", "url", "ignore", "mask", "isolate", "cwd", "policy"] as const;

interface Args {
  json: boolean;
  frames: boolean;
  file: string;
  run?: string;
  fork?: number;
  override?: string;
  fidelity?: Fidelity;
}

/** What parseArgs cannot check: the values, one file, --fork with --override. */
function checkArgs({ values, positionals }: CommandArgs<typeof options>): Args | string {
  const { fork, fidelity } = values;
  if (fork !== undefined && !/^\d+$/.test(fork)) return `--fork needs a seq (a non-negative integer), not "${fork}"`;
  if (fidelity !== undefined && fidelity !== "replayable" && fidelity !== "trace" && fidelity !== "partial")
    return `--fidelity must be replayable, trace or partial`;
  if (positionals.length === 0) return "no journal file given";
  if (positionals.length > 1) return `one journal file at a time (got ${positionals[0]} and ${positionals[1]})`;
  if ((fork === undefined) !== (values.override === undefined)) return "--fork and --override go together";
  return {
    json: values.json ?? false,
    frames: values.frames ?? false,
    file: positionals[0],
    run: values.run,
    fork: fork === undefined ? undefined : Number(fork),
    override: values.override,
    fidelity,
  };
}

/** `--override JSON`: big integers kept exact, checked by lib/replay's one override schema. */
export function readOverrideArgument(text: string): ForkOverride {
  let raw: unknown;
  try {
    raw = parseJsonExact(text);
  } catch {
    throw new ReplayError("--override is not valid JSON");
  }
  return parseForkOverride(raw);
}

function human(file: string, s: ReplaySummary): string {
  const lines = [`${file}: run ${redactMessage(s.run)} (${s.fidelity}${s.bestEffort ? `, best-effort: ${s.bestEffortReason}` : ""})`];
  lines.push(
    `  ${s.events} events, ${s.frames} frames: ${Object.entries(s.provenance)
      .map(([k, v]) => `${v} ${k}`)
      .join(", ")}`,
  );
  if (s.divergences.length === 0) lines.push("  no divergences: the recording and the reconstruction agree");
  else {
    lines.push(
      `  ${s.divergences.length} divergence${s.divergences.length === 1 ? "" : "s"}${s.firstMeaningful ? `, first meaningful at seq ${s.firstMeaningful.seq}` : ""}:`,
    );
    for (const d of s.divergences)
      lines.push(
        `    seq ${String(d.seq).padEnd(6)} ${d.kind.padEnd(15)} ${d.meaningful ? "" : `(follows from seq ${d.causedBy}) `}${d.reason}`,
      );
  }
  if (s.fork) {
    lines.push(`  fork at seq ${s.fork.seq} with ${JSON.stringify(s.fork.override)}:`);
    if (s.fork.changes.length === 0) lines.push("    nothing changes");
    for (const c of s.fork.changes)
      lines.push(`    seq ${String(c.seq).padEnd(6)} ${c.kind.padEnd(15)} ${c.hypothetical ? "(hypothetical) " : ""}${c.reason}`);
    if (s.fork.firstStale !== null) lines.push(`    recorded events from seq ${s.fork.firstStale} on are stale`);
    if (s.fork.stoppedAt !== null) lines.push(`    the fork's run stops at seq ${s.fork.stoppedAt}`);
  }
  return lines.join("\n");
}

/** `replay JOURNAL … -- CMD`: the gateway replay of the agent itself. */
async function runAgent({ values, positionals }: CommandArgs<typeof options>): Promise<number> {
  const fail = (message: string) => {
    console.error(`replay: ${message}\n\n${usage}`);
    return 2;
  };
  if (values.fork !== undefined || values.override !== undefined || values.frames || values.fidelity !== undefined)
    return fail("--fork, --override, --frames and --fidelity are for the journal-only replay (without -- CMD)");
  const onDivergence = values["on-divergence"] ?? "stop";
  if (onDivergence !== "stop" && onDivergence !== "recorded" && onDivergence !== "live")
    return fail("--on-divergence must be stop, recorded or live");
  if (values.out !== undefined && values.url !== undefined) return fail("give --out or --url, not both");
  const port = parsePort(values.port);
  if (typeof port === "string") return fail(port);
  if (values.cwd !== undefined && !values.isolate) return fail("--cwd goes with --isolate (without it the agent runs here)");
  const policy = values.policy === undefined ? undefined : readPolicyOption(values.policy);
  if (policy !== undefined && !policy.ok) return fail(policy.message);
  const { runGatewayReplay, UsageError } = await import("../gateway/replay-command");
  try {
    return await runGatewayReplay({
      file: positionals[0],
      command: positionals.slice(1),
      run: values.run,
      port,
      onDivergence,
      upstream: values.upstream ?? [],
      out: values.out,
      url: values.url,
      json: values.json ?? false,
      ignore: values.ignore ?? [],
      mask: values.mask ?? [],
      isolate: values.isolate ?? false,
      cwd: values.cwd,
      policy: policy?.policy,
    });
  } catch (e) {
    if (e instanceof UsageError) return fail(e.message);
    console.error(`replay: ${redactMessage(e instanceof Error ? e.message : String(e))}`);
    return 2;
  }
}

export async function run(parsed: CommandArgs<typeof options>): Promise<number> {
  if (parsed.positionals.length > 1) return runAgent(parsed);
  const gatewayOnly = GATEWAY_ONLY.find((o) => parsed.values[o] !== undefined);
  if (gatewayOnly !== undefined) {
    console.error(`replay: --${gatewayOnly} needs a command to run (JOURNAL -- CMD)\n\n${usage}`);
    return 2;
  }
  const args = checkArgs(parsed);
  if (typeof args === "string") {
    console.error(`replay: ${args}\n\n${usage}`);
    return 2;
  }
  useNativeSha256();
  try {
    const read = await readJournalFile(args.file);
    for (const err of read.lineErrors) console.error(`${args.file}:${err.line}: ${err.message} (line skipped)`);
    const runs = [...groupByRun(read.events).keys()];
    if (args.run === undefined && runs.length > 1) {
      throw new ReplayError(
        `${args.file} holds ${runs.length} runs; pick one with --run (${runs.slice(0, 5).join(", ")}${runs.length > 5 ? ", …" : ""})`,
      );
    }
    let fork: ForkSpec | undefined;
    if (args.fork !== undefined && args.override !== undefined) {
      fork = { seq: args.fork, override: readOverrideArgument(args.override) };
    }
    const replay = createReplay(read.events, { run: args.run, fork, fidelity: args.fidelity });
    const s = replay.summary();
    if (args.json) {
      const out: Record<string, unknown> = { file: args.file, ...s, run: redactMessage(s.run) };
      if (args.frames) {
        out.frames = replay.frames.map((f) => ({
          index: f.index,
          seq: f.seq,
          type: f.event.type,
          provenance: f.provenance,
          stale: f.stale,
          substituted: f.substituted,
          note: f.note,
          stateHash: f.stateHash,
        }));
      }
      process.stdout.write(canonicalJson(out) + "\n");
    } else {
      console.log(human(args.file, s));
    }
    return 0;
  } catch (e) {
    console.error(`replay: ${redactMessage(e instanceof Error ? e.message : String(e))}`);
    return 2;
  }
}
