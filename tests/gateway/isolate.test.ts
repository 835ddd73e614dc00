/**
 * `retrace replay --isolate` (issue 30, "Isolation for tools the proxy cannot see"): a
 * coding agent whose recorded shell command called a loopback service with curl, and wrote
 * into the directory it was recorded in, replayed under bubblewrap. Its shell reaches
 * neither the service nor that directory; the branch run says it was isolated.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFake } from "./fakes";
import { readJournal, retrace, type Line } from "./support/cli";

const AGENT = path.resolve("tests/gateway/agents/shell-agent.mjs");
const KEY = "sk-isolatetest0123456789abcdefXYZ";

/** A loopback "payment service" outside any sandbox: it logs every request it gets. */
async function startService(): Promise<{ port: number; log: string[]; close(): Promise<void> }> {
  const log: string[] = [];
  const server = http.createServer((req, res) => {
    log.push(`${req.method} ${req.url}`);
    res.end("charged order 7\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    log,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Every file under `dir` with its content: what "untouched" is checked against. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const file = path.join(dir, name);
    out[name] = fs.statSync(file).isDirectory() ? "<dir>" : fs.readFileSync(file, "utf8");
  }
  return out;
}

interface Result {
  match: boolean;
  exitCode: number;
  divergence: null | { seq: number; kind: string };
  isolation: null | { tool: string; network: string; cwd: string; copiedFrom: string };
}

describe("retrace replay --isolate", () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "retrace-iso-")));
  const rec = path.join(root, "recorded");
  const journal = path.join(root, "run.jsonl");
  let service: Awaited<ReturnType<typeof startService>>;
  let recorded: Line[];
  let curlResultSeq: number;

  beforeAll(async () => {
    fs.mkdirSync(rec);
    fs.writeFileSync(path.join(rec, "order.txt"), "order 7\n");
    service = await startService();
    const fake = await startFake("openai", [
      { toolCalls: [{ name: "run_command", arguments: { command: `curl -sS -m 5 -X POST http://127.0.0.1:${service.port}/charge` } }] },
      { toolCalls: [{ name: "run_command", arguments: { command: 'echo charged > done.txt && touch "$OUTSIDE_DIR/escaped.txt"' } }] },
      { text: "Done." },
    ]);
    const out = await retrace(["record", "--out", journal, "--upstream", `openai=${fake.url}`, "--", process.execPath, AGENT], {
      cwd: rec,
      env: { OPENAI_API_KEY: KEY, OUTSIDE_DIR: rec },
    });
    await fake.close();
    expect(out.code, out.stderr).toBe(0);
    recorded = readJournal(journal);
    const curl = recorded.find((e) => e.type === "tool.call" && JSON.stringify(e.data.args).includes("curl"))!;
    curlResultSeq = recorded.find((e) => e.type === "tool.result" && e.data.call === curl.data.call)!.seq;
  });

  afterAll(async () => {
    await service.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("when recorded, the agent's curl reached the service and its shell wrote in the recorded directory", () => {
    expect(service.log).toEqual(["POST /charge"]);
    expect(fs.existsSync(path.join(rec, "escaped.txt"))).toBe(true);
    expect(fs.readFileSync(path.join(rec, "done.txt"), "utf8")).toBe("charged\n");
  });

  it("isolated: the service's log stays empty, the recorded directory is untouched, the run says it was isolated", async () => {
    fs.rmSync(path.join(rec, "escaped.txt"));
    fs.writeFileSync(path.join(rec, "done.txt"), "before the replay\n");
    const before = snapshot(rec);
    service.log.length = 0;
    const branch = path.join(root, "branch.jsonl");
    const inside = service.port === 4100 ? 4101 : 4100;
    const r = await retrace(
      [
        "replay",
        journal,
        "--isolate",
        "--port",
        String(inside),
        "--json",
        "--on-divergence",
        "recorded",
        "--out",
        branch,
        "--",
        process.execPath,
        AGENT,
      ],
      { cwd: root, env: { OPENAI_API_KEY: KEY, OUTSIDE_DIR: rec } },
    );
    const result = JSON.parse(r.stdout.trim().split("\n").pop() ?? "null") as Result;

    expect(service.log).toEqual([]);
    expect(snapshot(rec)).toEqual(before);
    expect(fs.existsSync(path.join(rec, "escaped.txt"))).toBe(false);

    // the agent ran to its end, in a copy of the recorded directory, and wrote there
    expect(result.exitCode).toBe(0);
    expect(result.isolation).toMatchObject({ tool: "bubblewrap", network: "gateway-only", copiedFrom: rec });
    const scratch = result.isolation!.cwd;
    expect(scratch.startsWith(rec)).toBe(false);
    expect(fs.readFileSync(path.join(scratch, "order.txt"), "utf8")).toBe("order 7\n");
    expect(fs.readFileSync(path.join(scratch, "done.txt"), "utf8")).toBe("charged\n");

    // what curl answered in the sandbox differs from the recording: the replay says where
    expect(r.code).toBe(1);
    expect(result.divergence).toMatchObject({ seq: curlResultSeq, kind: "tool-result" });
    const events = readJournal(branch);
    expect(events[0]).toMatchObject({
      type: "run.start",
      data: { isolation: { tool: "bubblewrap", network: "gateway-only", cwd: scratch } },
    });
    const curlCall = events.find((e) => e.type === "tool.call" && JSON.stringify(e.data.args).includes("curl"))!;
    const curlResult = events.find((e) => e.type === "tool.result" && e.data.call === curlCall.data.call)!;
    // curl's exit status 7: it could not connect
    expect(String(curlResult.data.result)).toMatch(/^exit 7: curl: \(7\) Failed to connect to 127\.0\.0\.1/);
    fs.rmSync(path.dirname(scratch), { recursive: true, force: true });
  });

  it("without --isolate the same replay's curl does reach the service (what the sandbox stops)", async () => {
    const here = path.join(root, "plain");
    fs.mkdirSync(here);
    const elsewhere = path.join(root, "elsewhere");
    fs.mkdirSync(elsewhere);
    service.log.length = 0;
    const r = await retrace(["replay", journal, "--json", "--", process.execPath, AGENT], {
      cwd: here,
      env: { OPENAI_API_KEY: KEY, OUTSIDE_DIR: elsewhere },
    });
    expect(service.log).toEqual(["POST /charge"]);
    expect(JSON.parse(r.stdout.trim().split("\n").pop() ?? "null")).toMatchObject({ match: true, isolation: null });
  });

  it("without bubblewrap installed, --isolate stops with an error naming the package and runs nothing", async () => {
    const empty = path.join(root, "no-tools");
    fs.mkdirSync(empty);
    service.log.length = 0;
    const r = await retrace(["replay", journal, "--isolate", "--", process.execPath, AGENT], {
      cwd: root,
      env: { OPENAI_API_KEY: KEY, OUTSIDE_DIR: rec, PATH: empty },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("bubblewrap");
    expect(r.stderr).toContain("apt-get install bubblewrap");
    expect(service.log).toEqual([]);
  });
});
