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
import { createRecorder, memorySink, type Recorder, type Sink } from "@retrace/recorder";
const sink: Sink = memorySink();
const rec: Recorder = createRecorder({ workflow: { name: "typed" }, sink });
const delivered: Promise<boolean> = rec.end("succeeded");
void delivered;
`;

describe("@retrace/recorder package", () => {
  it("packs, installs offline into an empty project, records a run whose journal parses and verifies", async () => {
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

    writeFileSync(join(app, "consumer.ts"), consumer);
    const tsc = join(repo, "node_modules", ".bin", "tsc");
    // throws with the compiler's messages if the declarations do not resolve or do not fit
    run(tsc, ["--noEmit", "--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "consumer.ts"], app);
  });
});
