/**
 * Agents on the official `openai` and `@anthropic-ai/sdk` SDKs and on the Vercel AI SDK,
 * each recorded through `retrace record` against a scripted upstream, then replayed with
 * `retrace replay` in another directory with no upstream running (issue 29, "Must show").
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFake, type Fake } from "./fakes";
import { readJournal, retrace, type Line } from "./support/cli";

const AGENT = path.resolve("tests/gateway/agents/openai-agent.mjs");
const KEY = "sk-gatewaytest0123456789abcdefXYZ";

interface Replay {
  run: string;
  mode: string;
  match: boolean;
  requests: { recorded: number; replayed: number };
  divergence: null | { seq: number; kind: string; path: string; recorded: unknown; replayed: unknown };
  branch: string | null;
}

function dirs() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "retrace-gw-"));
  const rec = path.join(root, "recorded");
  const rep = path.join(root, "replayed");
  fs.mkdirSync(rec);
  fs.mkdirSync(rep);
  return { root, rec, rep };
}

/** The agents, each on its SDK and the API it speaks. */
const AGENTS = [
  {
    sdk: "openai",
    file: "openai-agent.mjs",
    api: "openai",
    keyEnv: "OPENAI_API_KEY",
    model: "gpt-test",
    keyHeader: "authorization",
    keyValue: `Bearer ${KEY}`,
  },
  {
    sdk: "@anthropic-ai/sdk",
    file: "anthropic-agent.mjs",
    api: "anthropic",
    keyEnv: "ANTHROPIC_API_KEY",
    model: "claude-test",
    keyHeader: "x-api-key",
    keyValue: KEY,
  },
  {
    sdk: "Vercel AI SDK",
    file: "ai-sdk-agent.mjs",
    api: "openai",
    keyEnv: "OPENAI_API_KEY",
    model: "gpt-test",
    keyHeader: "authorization",
    keyValue: `Bearer ${KEY}`,
  },
] as const;

describe.each(
  AGENTS.flatMap((agent) => [
    { ...agent, mode: "streamed", stream: "1" },
    { ...agent, mode: "not streamed", stream: "0" },
  ]),
)("an agent on $sdk ($mode)", ({ file, api, keyEnv, model, stream }) => {
  const agent = path.resolve("tests/gateway/agents", file);
  const d = dirs();
  const journal = path.join(d.root, "run.jsonl");
  let fake: Fake;
  let recorded: Line[];
  let recordOut: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    fs.writeFileSync(path.join(d.rec, "input.txt"), "hello gateway\n");
    // the model writes by absolute path: the replay must write in its own directory
    fake = await startFake(api, [
      { toolCalls: [{ name: "read_file", arguments: { path: "input.txt" } }] },
      { toolCalls: [{ name: "write_file", arguments: { path: path.join(d.rec, "out.txt"), content: "HELLO GATEWAY\n" } }] },
      { text: "Copied." },
    ]);
    recordOut = await retrace(["record", "--out", journal, "--upstream", `${api}=${fake.url}`, "--", process.execPath, agent], {
      cwd: d.rec,
      env: { [keyEnv]: KEY, AGENT_STREAM: stream },
    });
    await fake.close();
    recorded = readJournal(journal);
  });

  afterAll(() => fs.rmSync(d.root, { recursive: true, force: true }));

  const replay = async (env: Record<string, string> = {}, extra: string[] = []) => {
    const r = await retrace(["replay", journal, "--json", ...extra, "--", process.execPath, agent], {
      cwd: d.rep,
      env: { [keyEnv]: "sk-replaykey0123456789abcdefghij", AGENT_STREAM: stream, ...env },
    });
    return { ...r, result: JSON.parse(r.stdout.trim().split("\n").pop() ?? "null") as Replay };
  };

  it("records: the agent's exit code, its run id, three model calls, the file written, the key forwarded", () => {
    expect(recordOut.code, recordOut.stderr).toBe(0);
    const runId = recordOut.stdout.trim().split("\n").pop();
    expect(recorded[0]).toMatchObject({ type: "run.start", run: runId, data: { gateway: { cwd: d.rec } } });
    expect(recorded.filter((e) => e.type === "model.request")).toHaveLength(3);
    expect(fs.readFileSync(path.join(d.rec, "out.txt"), "utf8")).toBe("HELLO GATEWAY\n");
    expect(fake.requests.filter((r) => r.method === "POST")).toHaveLength(3);
    // the provider key reached the upstream (in the header this SDK sends it in)
    const sent = fake.requests.find((r) => r.method === "POST")!.headers;
    expect(Object.values(sent).some((v) => String(v).includes(KEY))).toBe(true);
    const call = recorded.find((e) => e.type === "tool.call" && e.data.tool === "write_file");
    expect(call?.data).toMatchObject({ effect: "write", effectInferred: true, args: { content: "HELLO GATEWAY\n" } });
    const result = recorded.find((e) => e.type === "tool.result" && e.data.call === call?.data.call);
    expect(result?.data.status).toBe("ok");
  });
  it("replays in another directory with no upstream: match, exit 0, the same file there, none in the recorded one", async () => {
    fs.writeFileSync(path.join(d.rep, "input.txt"), "hello gateway\n");
    fs.rmSync(path.join(d.rec, "out.txt"));
    const branch = path.join(d.root, `branch-${stream}.jsonl`);
    const r = await replay({}, ["--out", branch]);
    expect(r.code).toBe(0);
    expect(r.result).toMatchObject({ match: true, mode: "recorded", requests: { recorded: 3, replayed: 3 }, divergence: null, branch });
    expect(fs.readFileSync(path.join(d.rep, "out.txt"), "utf8")).toBe("HELLO GATEWAY\n");
    expect(fs.existsSync(path.join(d.rec, "out.txt"))).toBe(false);
    expect(fake.requests.filter((x) => x.method === "POST")).toHaveLength(3);
    const events = readJournal(branch);
    expect(events[0].data).toMatchObject({
      replayOf: { run: recorded[0].run },
      mode: "recorded",
      components: { model: "recorded", tools: "agent" },
    });
    expect((events[0].data.replayOf as { head: string }).head).toBe((recorded[recorded.length - 1] as Line & { hash: string }).hash);
    // no provider key anywhere: recording, branch, what the CLI printed
    for (const text of [
      fs.readFileSync(journal, "utf8"),
      fs.readFileSync(branch, "utf8"),
      r.stdout,
      r.stderr,
      recordOut.stdout,
      recordOut.stderr,
    ]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain("sk-replaykey");
    }
  });

  it("a changed instruction diverges at the first context, kind system", async () => {
    fs.writeFileSync(path.join(d.rep, "input.txt"), "hello gateway\n");
    const expected = recorded.find((e) => e.type === "context")!.seq;
    const r = await replay({ AGENT_INSTRUCTIONS: "You are a reckless file assistant." });
    expect(r.code).toBe(1);
    expect(r.result.divergence).toMatchObject({ seq: expected, kind: "system" });
    expect(JSON.stringify(r.result.divergence?.replayed)).toContain("You are a reckless file assistant.");
  });

  it("a changed file the read tool returns diverges at that tool.result, kind tool-result", async () => {
    fs.writeFileSync(path.join(d.rep, "input.txt"), "goodbye gateway\n");
    const read = recorded.find((e) => e.type === "tool.call" && e.data.tool === "read_file")!;
    const expected = recorded.find((e) => e.type === "tool.result" && e.data.call === read.data.call)!.seq;
    const r = await replay();
    expect(r.code).toBe(1);
    expect(r.result.divergence).toMatchObject({ seq: expected, kind: "tool-result" });
    expect(JSON.stringify(r.result.divergence?.replayed)).toContain("goodbye gateway");
  });

  it("a changed model name diverges at the first model.request, kind model", async () => {
    fs.writeFileSync(path.join(d.rep, "input.txt"), "hello gateway\n");
    const expected = recorded.find((e) => e.type === "model.request")!.seq;
    const r = await replay({ AGENT_MODEL: `${model}-other` });
    expect(r.code).toBe(1);
    expect(r.result.divergence).toMatchObject({
      seq: expected,
      kind: "model",
      path: "/model",
      recorded: model,
      replayed: `${model}-other`,
    });
  });
});

describe("--on-divergence recorded and replay-test", () => {
  const d = dirs();
  const journal = path.join(d.root, "run.jsonl");
  let recorded: Line[];

  beforeAll(async () => {
    fs.writeFileSync(path.join(d.rec, "input.txt"), "abc\n");
    const fake = await startFake("openai", [
      { toolCalls: [{ name: "read_file", arguments: { path: "input.txt" } }] },
      { toolCalls: [{ name: "write_file", arguments: { path: "out.txt", content: "ABC\n" } }] },
      { text: "Done." },
    ]);
    const rec = await retrace(["record", "--out", journal, "--upstream", `openai=${fake.url}`, "--", process.execPath, AGENT], {
      cwd: d.rec,
      env: { OPENAI_API_KEY: KEY, AGENT_STREAM: "1" },
    });
    await fake.close();
    expect(rec.code).toBe(0);
    recorded = readJournal(journal);
  });

  afterAll(() => fs.rmSync(d.root, { recursive: true, force: true }));

  it("recorded keeps answering in recorded order after a changed model: the agent finishes, the divergence is still reported", async () => {
    fs.writeFileSync(path.join(d.rep, "input.txt"), "abc\n");
    const r = await retrace(["replay", journal, "--json", "--on-divergence", "recorded", "--", process.execPath, AGENT], {
      cwd: d.rep,
      env: { OPENAI_API_KEY: KEY, AGENT_STREAM: "1", AGENT_MODEL: "gpt-changed" },
    });
    const result = JSON.parse(r.stdout.trim()) as Replay & { exitCode: number };
    expect(r.code).toBe(1);
    expect(result).toMatchObject({ match: false, exitCode: 0, requests: { recorded: 3, replayed: 3 } });
    expect(result.divergence).toMatchObject({ kind: "model", seq: recorded.find((e) => e.type === "model.request")!.seq });
    expect(fs.readFileSync(path.join(d.rep, "out.txt"), "utf8")).toBe("ABC\n");
  });

  it("replay-test runs each journal's recorded command in --cwd, a line per run, JUnit with the failure", async () => {
    const junit = path.join(d.root, "junit.xml");
    fs.writeFileSync(path.join(d.rep, "input.txt"), "abc\n");
    const ok = await retrace(["replay-test", "--cwd", d.rep, "--junit", junit, journal], {
      cwd: d.root,
      env: { OPENAI_API_KEY: KEY, AGENT_STREAM: "1" },
    });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^PASS .*run\.jsonl: match: 3 of 3/m);
    expect(fs.readFileSync(junit, "utf8")).toMatch(/tests="1" failures="0"/);

    fs.writeFileSync(path.join(d.rep, "input.txt"), "xyz\n");
    const bad = await retrace(["replay-test", "--cwd", d.rep, "--junit", junit, journal], {
      cwd: d.root,
      env: { OPENAI_API_KEY: KEY, AGENT_STREAM: "1" },
    });
    const read = recorded.find((e) => e.type === "tool.call" && e.data.tool === "read_file")!;
    const seq = recorded.find((e) => e.type === "tool.result" && e.data.call === read.data.call)!.seq;
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(`FAIL ${journal}: diverged at recorded seq ${seq}: tool-result`);
    expect(fs.readFileSync(junit, "utf8")).toMatch(
      new RegExp(`failures="1"[\\s\\S]*<failure message="diverged at recorded seq ${seq}: tool-result"`),
    );
  });
});

describe("--on-divergence live", () => {
  it("after a changed prompt continues against the upstream, the branch's events from there marked live", async () => {
    const d = dirs();
    const journal = path.join(d.root, "run.jsonl");
    fs.writeFileSync(path.join(d.rec, "input.txt"), "x\n");
    fs.writeFileSync(path.join(d.rep, "input.txt"), "x\n");
    const script = [{ toolCalls: [{ name: "read_file", arguments: { path: "input.txt" } }] }, { text: "Read it." }];
    let fake = await startFake("openai", script);
    const rec = await retrace(["record", "--out", journal, "--upstream", `openai=${fake.url}`, "--", process.execPath, AGENT], {
      cwd: d.rec,
      env: { OPENAI_API_KEY: KEY, AGENT_STREAM: "1" },
    });
    expect(rec.code).toBe(0);
    await fake.close();
    fake = await startFake("openai", script);
    const branch = path.join(d.root, "branch.jsonl");
    const r = await retrace(
      [
        "replay",
        journal,
        "--json",
        "--on-divergence",
        "live",
        "--upstream",
        `openai=${fake.url}`,
        "--out",
        branch,
        "--",
        process.execPath,
        AGENT,
      ],
      { cwd: d.rep, env: { OPENAI_API_KEY: KEY, AGENT_STREAM: "1", AGENT_INSTRUCTIONS: "Changed." } },
    );
    await fake.close();
    const result = JSON.parse(r.stdout.trim()) as Replay & { exitCode: number };
    expect(r.code).toBe(1);
    expect(result).toMatchObject({ mode: "recorded-then-live", match: false, divergence: { kind: "system" }, exitCode: 0 });
    expect(fake.requests.filter((x) => x.method === "POST")).toHaveLength(2);
    const events = readJournal(branch);
    expect(events[0].data).toMatchObject({ mode: "recorded-then-live" });
    const requests = events.filter((e) => e.type === "model.request");
    expect(requests).toHaveLength(2);
    for (const e of requests) expect(e.data.live).toMatchObject({ action: "continue" });
    expect(fs.readFileSync(branch, "utf8")).not.toContain(KEY);
    fs.rmSync(d.root, { recursive: true, force: true });
  });
});

describe("record --url with the server down", () => {
  it("spools the run without the provider key, and the agent's answer says the upstream is unreachable", async () => {
    const d = dirs();
    const spool = path.join(d.root, "spool");
    const client = `fetch(process.env.OPENAI_BASE_URL + "/chat/completions", { method: "POST", headers: { authorization: "Bearer " + process.env.OPENAI_API_KEY, "content-type": "application/json" }, body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }) }).then((r) => r.text()).then(console.log)`;
    // port 9 (discard) is refused by fetch outright: no server, no upstream
    const r = await retrace(
      ["record", "--url", "http://127.0.0.1:9", "--upstream", "openai=http://127.0.0.1:9", "--", process.execPath, "-e", client],
      {
        cwd: d.rec,
        env: { OPENAI_API_KEY: KEY, RETRACE_SPOOL_DIR: spool, RETRACE_KEY: "retrace-ingest-key" },
      },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("cannot be reached");
    const runId = r.stdout.trim().split("\n").pop()!;
    const spooled = fs.readFileSync(path.join(spool, `${runId}.ndjson`), "utf8");
    expect(spooled).toContain('"type":"model.response"');
    expect(spooled).not.toContain(KEY);
    expect(r.stderr).not.toContain(KEY);
    fs.rmSync(d.root, { recursive: true, force: true });
  });
});
