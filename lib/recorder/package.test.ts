/**
 * The recorder as another project uses it: `npm pack` in packages/recorder, the tarball installed
 * offline into an empty folder, imported by name from a plain Node script (and type-checked
 * from a TypeScript file), and the journal it writes read back with this repository's reader
 * and chain check.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { verifyChain } from "../journal/chain";
import { readJournalText } from "../journal/reader";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const pkg = join(repo, "packages", "recorder");
const tmp = mkdtempSync(join(tmpdir(), "retrace-recorder-pack-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function run(cmd: string, args: string[], cwd: string): string {
  try {
    return execFileSync(cmd, args, {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, npm_config_update_notifier: "false" },
    });
  } catch (e) {
    const { stdout, stderr } = e as { stdout?: string; stderr?: string };
    throw new Error(`${cmd} ${args.join(" ")} failed:\n${stdout ?? ""}${stderr ?? ""}`);
  }
}

// the agent as a module: recorded by record.mjs, replayed by replay.mjs
const agent = `
export const agent = (model) => async (rec) => {
  rec.input("refund order 7");
  await rec.step("plan", async () => {
    await rec.model({ model, messages: [{ role: "user", content: "refund order 7" }] }, async () => ({
      choices: [{ message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 3, completion_tokens: 1 },
    }));
  });
  await rec.tool("issue_refund", { effect: "write", idempotencyKey: "refund-7" }, { order: 7 }, async () => {
    throw new Error("a replay must never pay");
  });
  return "done";
};
`;

// replays the recorded run with the installed package: as recorded, then with another model
const replayScript = `
import { replayAgainst } from "@retrace/recorder";
import { expectAgentToMatchJournal } from "@retrace/recorder/testing";
import { agent } from "./agent.mjs";

const same = await expectAgentToMatchJournal(agent("fake-1"), process.argv[2]);
const other = await replayAgainst(process.argv[2], agent("fake-2"));
const failure = await expectAgentToMatchJournal(agent("fake-2"), process.argv[2]).catch((e) => e.message);
console.log(JSON.stringify({ same: same.match, other: other.divergence, failure }));
`;

const script = `
import { createRecorder, fileSink } from "@retrace/recorder";

const clock = (() => { let t = Date.UTC(2026, 11, 1, 9, 0, 0); return () => (t += 5); })();
const rec = createRecorder({
  runId: "packed-1",
  workflow: { name: "packed", version: "1" },
  agent: { name: "outside-agent" },
  sink: fileSink(process.argv[2]),
  clock,
});
rec.input("refund order 7");
await rec.step("plan", async () => {
  await rec.model({ model: "fake-1", messages: [{ role: "user", content: "refund order 7" }] }, async () => ({
    choices: [{ message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
    usage: { prompt_tokens: 3, completion_tokens: 1 },
  }));
});
await rec.tool("issue_refund", { effect: "write", idempotencyKey: "refund-7" }, { order: 7 }, async () => ({ refunded: true }));
rec.state([{ op: "add", path: "/order", value: 7 }]);
console.log(JSON.stringify({ delivered: await rec.end("succeeded", { output: "done" }) }));
`;

// What a TypeScript consumer writes: the declarations must resolve and type-check.
const consumer = `
import { createRecorder, memorySink, replayAgainst, type Recorder, type ReplayResult, type Sink } from "@retrace/recorder";
import { expectAgentToMatchJournal } from "@retrace/recorder/testing";
const sink: Sink = memorySink();
const rec: Recorder = createRecorder({ workflow: { name: "typed" }, sink });
const delivered: Promise<boolean> = rec.end("succeeded");
void delivered;
const replay: Promise<ReplayResult> = replayAgainst("run.jsonl", async (r: Recorder) => r.note("hi"), { mode: "recorded" });
void replay;
void expectAgentToMatchJournal(async (r: Recorder) => r.note("hi"), "run.jsonl");
`;

describe("@retrace/recorder package", () => {
  it("packs, installs offline into an empty project, records a run, replays it, and its journal parses and verifies", async () => {
    run("npm", ["pack", "--pack-destination", tmp, "--silent"], pkg);
    const tarballs = readdirSync(tmp).filter((f) => f.endsWith(".tgz"));
    expect(tarballs).toEqual(["retrace-recorder-0.1.0.tgz"]);

    const app = join(tmp, "app");
    run("mkdir", ["-p", app], tmp);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "outside-app", version: "1.0.0", private: true, type: "module" }));
    run("npm", ["install", "--offline", "--no-audit", "--no-fund", join(tmp, tarballs[0])], app);
    // no runtime dependencies: the recorder is the only package installed
    expect(readdirSync(join(app, "node_modules")).filter((d) => !d.startsWith("."))).toEqual(["@retrace"]);
    const installed = JSON.parse(readFileSync(join(app, "node_modules/@retrace/recorder/package.json"), "utf8")) as Record<string, unknown>;
    expect(installed.dependencies).toBeUndefined();

    writeFileSync(join(app, "record.mjs"), script);
    writeFileSync(join(app, "agent.mjs"), agent);
    writeFileSync(join(app, "replay.mjs"), replayScript);
    const journal = join(app, "run.jsonl");
    const out = run(process.execPath, ["record.mjs", journal], app);
    expect(JSON.parse(out.trim())).toEqual({ delivered: true });

    const { events, errors } = await readJournalText(readFileSync(journal, "utf8"));
    expect(errors).toEqual([]);
    expect(events.map((e) => e.type)).toEqual([
      "run.start",
      "input",
      "step.start",
      "model.request",
      "model.response",
      "step.end",
      "tool.call",
      "tool.result",
      "state",
      "run.end",
    ]);
    expect(events.map((e) => e.seq)).toEqual([...Array(10).keys()]);
    expect(events.every((e) => e.run === "packed-1")).toBe(true);
    expect(verifyChain(events).firstFailure).toBeNull();
    expect(events[6].data).toMatchObject({ tool: "issue_refund", effect: "write", idempotencyKey: "refund-7", args: { order: 7 } });

    // replayed from the package: the tool that would pay is never called, the model answers from the journal
    const modelRequest = events.find((e) => e.type === "model.request")!;
    const replayed = JSON.parse(run(process.execPath, ["replay.mjs", journal], app).trim()) as Record<string, unknown>;
    expect(replayed.same).toBe(true);
    expect(replayed.other).toEqual({ seq: modelRequest.seq, kind: "model", path: "/model", recorded: "fake-1", replayed: "fake-2" });
    expect(replayed.failure).toContain(`recorded seq ${modelRequest.seq}: model at /model`);

    writeFileSync(join(app, "consumer.ts"), consumer);
    const tsc = join(repo, "node_modules", ".bin", "tsc");
    // throws with the compiler's messages if the declarations do not resolve or do not fit
    run(tsc, ["--noEmit", "--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "consumer.ts"], app);
  }, 300_000);
});
