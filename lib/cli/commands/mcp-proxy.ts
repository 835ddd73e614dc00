/**
 * `retrace mcp-proxy [options] (-- SERVER_CMD [ARGS…] | --upstream URL)`: an MCP server on
 * stdin/stdout that stands in front of a real one (lib/mcp, lib/cli/mcp). Inside a `retrace
 * record` session it records into the session's run; inside a `retrace replay` session it
 * answers from that session's recording; on its own it records to `--out`/`--url`, or
 * answers from `--replay JOURNAL` with no server started at all.
 */
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import type { EventType, JournalEvent } from "../../journal/types";
import { mcpServers, McpRecorder, McpReplayer, readMcpRecording, type AppendEvent, type JsonRpcMessage } from "../../mcp";
import { PolicyGuard } from "../../playback";
import { groupByRun } from "../../semantics";
import type { CommandArgs } from "../args";
import { journalTarget, newRunId } from "../gateway/journal-target";
import { listenHttp } from "../mcp/http-listen";
import { recordProxy, replayProxy, type Downstream } from "../mcp/proxy";
import { gatewayAnswer, gatewayAppend, sessionFromEnv } from "../mcp/session";
import { httpUpstream, stdioUpstream, type Upstream } from "../mcp/upstream";
import { readJournalFile } from "./analyze";
import { readPolicyOption } from "../policy-option";

export const summary = "Stand in front of an MCP server: record its tool calls, or answer them from a recording";

export const usage = `Usage: npm run -s retrace -- mcp-proxy [--name NAME] [--out FILE | --url URL]
         [--replay JOURNAL [--run RUN] [--policy FILE]] [--live-reads] [--listen PORT]
         (-- SERVER_CMD [ARGS…] | --upstream URL)

Speaks MCP (JSON-RPC, one message per line) on stdin/stdout: name it in the agent's MCP
configuration instead of the server. The real server is SERVER_CMD (stdio) or URL
(Streamable HTTP). With --listen PORT it speaks MCP's Streamable HTTP instead, at
http://127.0.0.1:PORT/mcp (0: a free port; the URL is printed on stderr), each client
session with a connection of its own to the server, until SIGINT or SIGTERM.

Modes:
  inside \`retrace record\`   forwards everything and records initialize, tools/list and each
                            tools/call (tool.call, tool.result) into the session's run, in
                            one seq order with the model calls (found through
                            RETRACE_GATEWAY_URL, RETRACE_SESSION, RETRACE_SESSION_TOKEN)
  inside \`retrace replay\`   answers from the session's recording; no server is started
  --out FILE | --url URL    records on its own (a run of its own)
  --replay JOURNAL          answers from JOURNAL with no server started at all

Options:
  --name NAME        the server's name in the journal (default: from SERVER_CMD or URL)
  --run RUN          the run of JOURNAL to answer from (when it holds several)
  --policy FILE      with --replay: judge the replayed calls by this declared policy (the
                     JSON of run.start.data.policy: tool contracts, invariants;
                     docs/declared-policy.md) instead of the recording's run.start policy
                     (inside \`retrace replay\`, give --policy to retrace replay)
  --live-reads       replay: a call not in the recording that the server's annotations
                     declare read-only (readOnlyHint) is sent to the real server, marked live
  --upstream URL     the real server over Streamable HTTP
  --listen PORT      serve clients over Streamable HTTP on 127.0.0.1 (records; not with
                     --replay)

In a replay a write is never sent to the server. A call not in the recording gets a
JSON-RPC error (code -32010) naming the difference, and is the replay's divergence
(kind tool-call). A call that breaks the declared policy (its args schema, an invariant,
judged on the replay's own calls and results so far) is refused with -32011 naming the
rule (tool.args-invalid, policy.<kind>), the invariant and the evidence: it is neither
answered from the recording nor sent to a server, and is the replay's divergence (kind
policy). A recorded unknown or timed-out call is answered with -32001, as recorded.
Exit status: 0; 1 when a standalone replay diverged or the server cannot be started;
2 on bad usage. A line from the client that is not JSON-RPC is answered with -32700 or
-32600 (id null) and never passed on.`;

export const options = {
  name: { type: "string" },
  out: { type: "string" },
  url: { type: "string" },
  replay: { type: "string" },
  run: { type: "string" },
  "live-reads": { type: "boolean" },
  policy: { type: "string" },
  upstream: { type: "string" },
  listen: { type: "string" },
} as const;

const RUNNERS = new Set([
  "node",
  "npx",
  "npm",
  "pnpm",
  "yarn",
  "bunx",
  "bun",
  "deno",
  "uvx",
  "uv",
  "python",
  "python3",
  "pipx",
  "tsx",
  "exec",
]);
const GENERIC = new Set(["index", "main", "server", "cli", "dist", "build", "lib", "src", "bin", "run"]);

/** A server's name from its command (`npx -y @modelcontextprotocol/server-memory` → `server-memory`) or URL. */
export function serverName(command: readonly string[], upstream: string | undefined): string {
  if (upstream !== undefined) {
    try {
      const u = new URL(upstream);
      return `${u.hostname}${u.port ? `-${u.port}` : ""}`;
    } catch {
      return "mcp";
    }
  }
  const args = command.filter((a) => !a.startsWith("-"));
  const target = args.find((a, i) => i > 0 || !RUNNERS.has(path.basename(a))) ?? args[0] ?? "mcp";
  const parts = target
    .split(/[\\/]/)
    .map((p) => p.replace(/\.(m?[jt]s|py|cjs)$/, ""))
    .filter((p) => p !== "" && !p.startsWith("@"));
  return [...parts].reverse().find((p) => !GENERIC.has(p)) ?? parts.at(-1) ?? "mcp";
}

function pickRun(events: JournalEvent[], file: string, run: string | undefined): JournalEvent[] | string {
  const runs = groupByRun(events);
  if (run !== undefined) return runs.get(run) ?? `${file} has no run ${run}`;
  const withMcp = [...runs.values()].filter((evs) => mcpServers(evs).length > 0);
  if (withMcp.length === 0) return `${file} holds no MCP recording`;
  if (withMcp.length > 1) return `${file} holds ${withMcp.length} runs with MCP calls; pick one with --run`;
  return withMcp[0];
}

/**
 * `--listen`: relays each HTTP client session with `relay` until SIGINT or SIGTERM; resolves
 * with the tools/call count over all sessions (the server's exit status is per session: null).
 */
async function serveHttp(
  port: number,
  relay: (down: Downstream, n: number) => Promise<{ calls: number }>,
): Promise<{ calls: number; serverExit: number | null }> {
  let calls = 0;
  let n = 0;
  const listener = await listenHttp(port, async (d) => {
    const r = await relay(d, ++n);
    calls += r.calls;
  });
  console.error(`retrace mcp-proxy: listening on ${listener.url}`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await listener.close();
  return { calls, serverExit: null };
}

export async function run({ values, positionals }: CommandArgs<typeof options>): Promise<number> {
  const fail = (message: string) => {
    console.error(`mcp-proxy: ${message}\n\n${usage}`);
    return 2;
  };
  const command = positionals;
  const upstreamUrl = values.upstream;
  if (command.length > 0 && upstreamUrl !== undefined) return fail("give either -- SERVER_CMD or --upstream URL, not both");
  if (upstreamUrl !== undefined && !/^https?:\/\//.test(upstreamUrl)) return fail(`--upstream needs an http(s) URL, not "${upstreamUrl}"`);
  if (values.out !== undefined && values.url !== undefined) return fail("give one of --out FILE or --url URL");
  if (values.replay !== undefined && (values.out !== undefined || values.url !== undefined))
    return fail("--replay answers from a recording; it records nothing (no --out or --url)");
  if (values.run !== undefined && values.replay === undefined) return fail("--run goes with --replay");
  if (values.policy !== undefined && values.replay === undefined)
    return fail("--policy goes with --replay (inside a retrace replay session, give --policy to retrace replay)");
  let listenPort: number | undefined;
  if (values.listen !== undefined) {
    if (!/^\d{1,5}$/.test(values.listen) || Number(values.listen) > 65535)
      return fail(`--listen needs a port number from 0 to 65535, not "${values.listen}"`);
    listenPort = Number(values.listen);
  }
  const hasServer = command.length > 0 || upstreamUrl !== undefined;
  const startUpstream = (onMessage: (m: JsonRpcMessage) => void, onExit: (code: number | null) => void = () => undefined): Upstream =>
    upstreamUrl !== undefined ? httpUpstream(upstreamUrl, onMessage) : stdioUpstream(command, onMessage, onExit);
  const down: Downstream = { input: process.stdin, output: process.stdout };
  const instance = randomBytes(3).toString("hex");
  const session = values.out !== undefined || values.url !== undefined || values.replay !== undefined ? null : sessionFromEnv(process.env);

  // replay: from a journal here, or from the replay session's gateway
  if (values.replay !== undefined || session?.mode === "replay") {
    if (listenPort !== undefined) return fail("--listen records; a replay answers on stdin/stdout");
    if (values["live-reads"] && !hasServer) return fail("--live-reads needs the real server (-- SERVER_CMD or --upstream URL)");
    if (session) {
      const server = values.name ?? serverName(command, upstreamUrl);
      await replayProxy(down, {
        server,
        answer: gatewayAnswer(session, server, values["live-reads"] === true),
        startUpstream: values["live-reads"] ? (m) => startUpstream(m) : undefined,
        liveAppend: gatewayAppend(session),
      });
      return 0;
    }
    const policy = values.policy === undefined ? undefined : readPolicyOption(values.policy);
    if (policy !== undefined && !policy.ok) return fail(policy.message);
    const read = await readJournalFile(values.replay!);
    for (const err of read.lineErrors) console.error(`${values.replay}:${err.line}: ${err.message} (line skipped)`);
    const events = pickRun(read.events, values.replay!, values.run);
    if (typeof events === "string") return fail(events);
    const servers = mcpServers(events);
    const server = values.name ?? (servers.length === 1 ? servers[0] : undefined);
    if (server === undefined) return fail(`the run has MCP servers ${servers.join(", ")}; pick one with --name`);
    const recording = readMcpRecording(events, server);
    if (!recording) return fail(`the run has no MCP server named ${server} (it has ${servers.join(", ") || "none"})`);
    // the replay's own journal (kept in memory): the policy guard judges each call on it
    const start = events.find((e) => e.type === "run.start")?.data ?? {};
    const guard = new PolicyGuard(policy !== undefined ? policy.policy : start.policy);
    const journal = journalTarget(newRunId("mcp-replay"), undefined, undefined, (e) => guard.observe(e)).writer;
    const append = (type: EventType, data: Record<string, unknown>, parent?: number) => journal.append(type, data, parent);
    const replayer = new McpReplayer(recording, { liveReads: values["live-reads"] === true, append, guard });
    await replayProxy(down, {
      server,
      answer: async (method, params) => replayer.answer(method, params),
      startUpstream: values["live-reads"] ? (m) => startUpstream(m) : undefined,
      liveAppend: async (type, data, parent) => append(type, data, parent),
    });
    const d = replayer.divergence ?? replayer.missing();
    const c = replayer.counts;
    if (d?.kind === "policy") console.error(`retrace mcp-proxy: diverged at recorded seq ${d.seq}: refused by the policy: ${d.message}`);
    else if (d) console.error(`retrace mcp-proxy: diverged at recorded seq ${d.seq}: ${d.kind} (${d.reason}) ${d.path}`);
    else
      console.error(
        `retrace mcp-proxy: match: ${c.replayed} of ${c.recorded} tool calls as recorded${c.flagged ? `, ${c.flagged} with an unknown outcome` : ""}`,
      );
    return d ? 1 : 0;
  }

  if (!hasServer) return fail("no server given (-- SERVER_CMD [ARGS…] or --upstream URL)");
  const server = values.name ?? serverName(command, upstreamUrl);
  if (session) {
    const append = gatewayAppend(session);
    if (listenPort !== undefined) {
      await serveHttp(listenPort, (d, n) => recordProxy(d, startUpstream, new McpRecorder(server, append, `${instance}-${n}`)));
      return 0;
    }
    const { serverExit } = await recordProxy(down, startUpstream, new McpRecorder(server, append, instance));
    return serverExit === 127 ? 1 : 0;
  }
  if (values.out === undefined && values.url === undefined)
    return fail("outside a retrace record or replay session, give --out FILE, --url URL or --replay JOURNAL");
  const runId = newRunId("mcp");
  const target = journalTarget(runId, values.out, values.url);
  const journal = target.writer;
  const append: AppendEvent = async (type, data, parent) => journal.append(type, data, parent);
  journal.append("run.start", {
    workflow: { name: `mcp:${server}` },
    agent: { name: "retrace mcp-proxy" },
    input: upstreamUrl ?? command.join(" "),
    environment: "local",
    initiator: { kind: "user", id: os.userInfo().username },
    mcp: { server, ...(upstreamUrl ? { upstream: upstreamUrl } : { command }) },
  });
  const { calls, serverExit } =
    listenPort === undefined
      ? await recordProxy(down, startUpstream, new McpRecorder(server, append, instance))
      : await serveHttp(listenPort, (d, n) => recordProxy(d, startUpstream, new McpRecorder(server, append, `${instance}-${n}`)));
  // 127: the server could not be started
  const failed = serverExit === 127;
  journal.append("run.end", { status: failed ? "failed" : "succeeded", output: { toolCalls: calls, serverExit } });
  const delivered = await journal.close(5_000);
  if (!delivered) console.error("retrace mcp-proxy: not every event was delivered (see the spool)");
  console.error(`retrace mcp-proxy: ${calls} tool call${calls === 1 ? "" : "s"} recorded, run ${runId}`);
  return failed ? 1 : 0;
}
