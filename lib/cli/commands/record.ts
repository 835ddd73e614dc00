/**
 * `retrace record [--out FILE | --url URL] [--port PORT] [--upstream API=ORIGIN …]
 * [--workflow NAME] [--run ID] -- CMD [ARGS…]`: runs an agent with the model-API gateway
 * as its base URL and records every model call (lib/gateway).
 */
import os from "node:os";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { ExchangeRecorder, parseUpstreams } from "../../gateway";
import { redactMessage } from "../../redact";
import type { CommandArgs } from "../args";
import { startGatewayServer } from "../gateway/http-edge";
import { journalTarget, newRunId } from "../gateway/journal-target";
import { currentPlaces } from "../gateway/places";
import { recordSession } from "../gateway/record-session";
import { gatewayEnv, runCommand } from "../gateway/run-command";

export const summary = "Run an agent through the model-API gateway and record its model calls";

export const usage = `Usage: npm run -s retrace -- record (--out FILE | --url URL) [--port PORT]
         [--upstream API=ORIGIN …] [--workflow NAME] [--run ID] -- CMD [ARGS…]

Starts the gateway on 127.0.0.1 and runs CMD with
  ANTHROPIC_BASE_URL=http://127.0.0.1:PORT       OPENAI_BASE_URL=http://127.0.0.1:PORT/v1
  GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:PORT   RETRACE_GATEWAY_URL=http://127.0.0.1:PORT
The gateway forwards each request (path and query unchanged) to its API's origin:
/v1/messages to anthropic, /v1/chat/completions and /v1/responses to openai,
/v1beta/models/… to gemini. Streams pass through as they arrive. Each model call is
recorded (context, model.request, model.response, tool.call, tool.result), redacted;
provider keys (authorization, x-api-key, x-goog-api-key, ?key=) are forwarded, never kept.

Options:
  --out FILE              append the journal to FILE
  --url URL               send it live to a Retrace server (key from RETRACE_KEY;
                          spooled in RETRACE_SPOOL_DIR while the server is down)
  --port PORT             the gateway's port (default: a free one); for agents configured
                          by a file (Codex's config.toml) that must name it
  --upstream API=ORIGIN   where an API goes (anthropic, openai, gemini; default the
                          providers' hosts); repeat for each
  --workflow NAME         the run's workflow name (default: CMD's name)
  --run ID                the run id (default: a new one)

Prints the run id (alone, the last line on stdout) when CMD ends. Exit status: CMD's; 2 on bad usage.`;

export const options = {
  out: { type: "string" },
  url: { type: "string" },
  port: { type: "string" },
  upstream: { type: "string", multiple: true },
  workflow: { type: "string" },
  run: { type: "string" },
} as const;

export function parsePort(v: string | undefined): number | string {
  if (v === undefined) return 0;
  if (!/^\d+$/.test(v) || Number(v) > 65535) return `--port needs a port number (0–65535), not "${v}"`;
  return Number(v);
}

export async function run({ values, positionals }: CommandArgs<typeof options>): Promise<number> {
  const fail = (message: string) => {
    console.error(`record: ${message}\n\n${usage}`);
    return 2;
  };
  if (positionals.length === 0) return fail("no command given (put it after --)");
  if ((values.out === undefined) === (values.url === undefined)) return fail("give one of --out FILE or --url URL");
  const port = parsePort(values.port);
  if (typeof port === "string") return fail(port);
  const origins = parseUpstreams(values.upstream ?? []);
  if (typeof origins === "string") return fail(origins);
  if (values.run !== undefined && !/^[A-Za-z0-9._:-]{1,128}$/.test(values.run))
    return fail("--run must be 1 to 128 characters of A-Za-z0-9._:-");

  const command = positionals;
  const name = path.basename(command[0]);
  const runId = values.run ?? newRunId("rec");
  const target = journalTarget(runId, values.out, values.url);
  const journal = target.writer;
  const recorder = new ExchangeRecorder(journal);
  // MCP proxies the agent starts append their events to this run with this token
  const token = randomBytes(16).toString("hex");
  const session = recordSession({ journal, recorder, origins, mcpToken: token });
  const server = await startGatewayServer(port, session.handle, (e) => console.error(`retrace gateway: ${redactMessage(e.message)}`));
  journal.append("run.start", {
    workflow: { name: values.workflow ?? name },
    agent: { name },
    input: command.join(" "),
    environment: "local",
    initiator: { kind: "user", id: os.userInfo().username },
    gateway: { command, cwd: process.cwd(), home: os.homedir(), places: currentPlaces(), url: server.url, upstreams: origins },
  });
  console.error(`retrace record: gateway on ${server.url}, run ${runId}`);
  const code = await runCommand(command, gatewayEnv(server.url, { mode: "record", token }));
  await server.close();
  journal.append(
    "run.end",
    code === 0 ? { status: "succeeded", output: { exitCode: code } } : { status: "failed", output: { exitCode: code } },
  );
  const delivered = await journal.close(5_000);
  if (!delivered) console.error("retrace record: not every event was delivered (see the spool)");
  console.error(
    `retrace record: ${session.modelCalls} model call${session.modelCalls === 1 ? "" : "s"} recorded${target.name && target.name !== runId ? ` to ${target.name}` : ""}, run:`,
  );
  console.log(runId);
  return code;
}
