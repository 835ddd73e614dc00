/**
 * Real agent CLIs (Claude Code 2.1, Codex 0.171, from packages/test-clients) recorded
 * through `retrace record` against the fake upstreams, then replayed with `retrace replay
 * JOURNAL -- CMD` in another directory and HOME with no upstream running (issue 29, "Must
 * show"). Two recordings of the same command, each with its own session ids, installation
 * ids, directories and home, must each replay: what varies between runs is normalised,
 * not matched by luck.
 */
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import {
  FILE_TEXT,
  claudeCommand,
  claudeEnv,
  claudeScript,
  codexCommand,
  codexEnv,
  codexScript,
  freshDirs,
  run,
  snapshot,
  type Env,
  type Finished,
} from "./agents.ts";
import { type FakeApi, type Turn, startFake, withoutTools } from "./fakes/index.ts";

const RETRACE = [process.execPath, path.resolve(import.meta.dirname, "../../scripts/retrace.mjs")];

interface Agent {
  name: string;
  api: FakeApi;
  key: string;
  command: () => string[];
  script: (work: string) => Turn[];
  /** the CLI's environment and the gateway's port flag (Codex's config file must name it) */
  env: (home: string, port: number) => Env;
  needsPort: boolean;
}

const AGENTS: Agent[] = [
  {
    name: "Claude Code 2.1",
    api: "anthropic",
    key: "sk-ant-test-fake-key",
    command: claudeCommand,
    script: claudeScript,
    env: (home) => claudeEnv(home),
    needsPort: false,
  },
  {
    name: "Codex 0.171",
    api: "openai",
    key: "sk-test-fake-key",
    command: codexCommand,
    script: codexScript,
    env: codexEnv,
    needsPort: true,
  },
];

interface Replay {
  match: boolean;
  requests: { recorded: number; replayed: number };
  divergence: unknown;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Recording {
  work: string;
  home: string;
  journal: string;
  result: Finished;
  upstreamRequests: number;
}

async function record(agent: Agent, root: string, name: string): Promise<Recording> {
  const { work, home } = freshDirs(root, name);
  const journal = path.join(path.dirname(work), "run.jsonl");
  const fake = await startFake(agent.api, agent.script(work), { isSide: withoutTools });
  const port = await freePort();
  try {
    const result = await run(
      [...RETRACE, "record", "--out", journal, "--port", String(port), "--upstream", `${agent.api}=${fake.url}`, "--", ...agent.command()],
      { cwd: work, env: agent.env(home, port) },
    );
    return { work, home, journal, result, upstreamRequests: fake.requests.length };
  } finally {
    await fake.close();
  }
}

/** replays `journal` in a fresh directory and HOME; a sentinel upstream catches anything sent out */
async function replay(agent: Agent, root: string, journal: string) {
  const { work, home } = freshDirs(root, "replay");
  const sentinel = await startFake(agent.api, []);
  const port = await freePort();
  try {
    const result = await run(
      [
        ...RETRACE,
        "replay",
        journal,
        "--json",
        "--port",
        String(port),
        "--upstream",
        `${agent.api}=${sentinel.url}`,
        "--",
        ...agent.command(),
      ],
      { cwd: work, env: agent.env(home, port) },
    );
    const last = result.stdout.trim().split("\n").pop() ?? "";
    return { work, result, report: JSON.parse(last) as Replay, sentToUpstream: sentinel.requests.length };
  } finally {
    await sentinel.close();
  }
}

describe.each(AGENTS)("$name recorded by `retrace record`, replayed by `retrace replay`", (agent) => {
  let root: string;
  let first: Recording;
  let second: Recording;

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(inject("tmpDir"), "cli-agents-"));
    first = await record(agent, root, "first");
    second = await record(agent, root, "second");
  }, 300_000);

  it("records: the agent writes its file through the gateway, exits 0, and the journal keeps no key", () => {
    for (const rec of [first, second]) {
      expect(rec.result.status, rec.result.stderr).toBe(0);
      expect(fs.readFileSync(path.join(rec.work, "out.txt"), "utf8")).toBe(FILE_TEXT);
      expect(rec.upstreamRequests).toBeGreaterThanOrEqual(2);
      const text = fs.readFileSync(rec.journal, "utf8");
      const types = text
        .trim()
        .split("\n")
        .map((line) => (JSON.parse(line) as { type: string }).type);
      expect(types.filter((t) => t === "model.response")).toHaveLength(2);
      expect(types).toContain("tool.call");
      expect(types).toContain("tool.result");
      expect(text).not.toContain(agent.key);
    }
  });

  it("replays elsewhere with no upstream: match, exit 0, nothing sent out, the same files, the recorded directory untouched", async () => {
    const before = { work: snapshot(first.work), home: snapshot(first.home), journal: fs.readFileSync(first.journal, "utf8") };
    const { work, result, report, sentToUpstream } = await replay(agent, root, first.journal);
    expect(result.status, result.stderr).toBe(0);
    expect(report.match, JSON.stringify(report.divergence)).toBe(true);
    expect(report.requests.replayed).toBe(report.requests.recorded);
    expect(sentToUpstream).toBe(0);
    expect(snapshot(work)).toEqual(snapshot(first.work));
    expect(fs.readFileSync(path.join(work, "out.txt"), "utf8")).toBe(FILE_TEXT);
    expect({ work: snapshot(first.work), home: snapshot(first.home), journal: fs.readFileSync(first.journal, "utf8") }).toEqual(before);
  });

  it("two recordings of the same command, with different session ids and paths, each replay the other's run", async () => {
    // the recordings really differ: another session, another directory
    const firstText = fs.readFileSync(first.journal, "utf8");
    const secondText = fs.readFileSync(second.journal, "utf8");
    expect(firstText).toContain(first.work);
    expect(secondText).not.toContain(first.work);

    // the second run's agent (its directory, its home) replays against the first recording,
    // and the first's against the second
    for (const [journal, rec] of [
      [first.journal, second],
      [second.journal, first],
    ] as const) {
      fs.rmSync(path.join(rec.work, "out.txt"));
      const port = await freePort();
      const sentinel = await startFake(agent.api, []);
      try {
        const result = await run(
          [
            ...RETRACE,
            "replay",
            journal,
            "--json",
            "--port",
            String(port),
            "--upstream",
            `${agent.api}=${sentinel.url}`,
            "--",
            ...agent.command(),
          ],
          { cwd: rec.work, env: agent.env(rec.home, port) },
        );
        const report = JSON.parse(result.stdout.trim().split("\n").pop() ?? "") as Replay;
        expect(report.match, JSON.stringify(report.divergence)).toBe(true);
        expect(report.requests.replayed).toBe(report.requests.recorded);
        expect(result.status).toBe(0);
        expect(sentinel.requests).toHaveLength(0);
        expect(fs.readFileSync(path.join(rec.work, "out.txt"), "utf8")).toBe(FILE_TEXT);
      } finally {
        await sentinel.close();
      }
    }
  });
});
