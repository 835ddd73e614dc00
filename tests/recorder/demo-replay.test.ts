/**
 * The demo agent replayed against its own recordings with the recorder SDK's replay mode
 * (lib/recorder `replayAgainst`, `expectAgentToMatchJournal`). The runs are recorded for real
 * (SQLite bank, file sink); then:
 * - `recorded` mode: every scenario matches, with every network entry point stubbed to fail
 *   (as tests/replay/hermetic.test.ts does) and the bank untouched (its payments and its
 *   transfer's check counter, which a real check_transfer call would move);
 * - three one-line changes to a copy of the agent's source each diverge at the recorded seq
 *   the test finds itself by reading the journal as plain JSON lines;
 * - `model-live` with a fake model: a matching read is answered from the recording, a write
 *   the recording does not have is blocked and never reaches the bank.
 */
import Database from "better-sqlite3";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { refuseNetwork } from "../helpers/no-network";
import { replayAgainst, type ReplayableAgent } from "@/lib/recorder";
import { AgentDivergedError, expectAgentToMatchJournal } from "@/lib/recorder/testing";
import { demoAgent, SCENARIOS, type DemoDeps, type ScenarioName } from "@/scripts/demo-agent/agent";
import { Bank } from "@/scripts/demo-agent/bank";
import { ScriptedModel } from "@/scripts/demo-agent/model";
import { runScenarios } from "@/scripts/demo-agent/scenarios";

const repo = resolve(__dirname, "../..");
const tmp = mkdtempSync(join(tmpdir(), "retrace-sdk-replay-"));
// the edited copies live inside the repository (.tmp is ignored) so they resolve its modules
const copies = join(repo, ".tmp", `sdk-replay-${process.pid}`);
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
  rmSync(copies, { recursive: true, force: true });
});
const out = join(tmp, "out");
const dbDir = join(tmp, "banks");
const journalOf = (name: ScenarioName) => join(out, `${name}.jsonl`);

/** The recorded journal read as plain JSON lines (not through Retrace's reader). */
function plainEvents(name: ScenarioName): Array<{ seq: number; type: string; hash?: string; data: Record<string, unknown> }> {
  return readFileSync(journalOf(name), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l));
}

/** What the bank holds, read with SQL: every payment and every transfer's check counter. */
function bankState(name: ScenarioName): unknown {
  const db = new Database(join(dbDir, `${name}.sqlite`), { readonly: true });
  try {
    return {
      payments: db.prepare("SELECT * FROM payments ORDER BY id").all(),
      transfers: db.prepare("SELECT * FROM transfers ORDER BY id").all(),
    };
  } finally {
    db.close();
  }
}

const opened: Bank[] = [];
/** The bank the recording left, opened as it is (no seeding: the world is already there). */
function deps(name: ScenarioName): DemoDeps {
  const bank = new Bank(join(dbDir, `${name}.sqlite`), Date.now, "open");
  opened.push(bank);
  return { bank, model: new ScriptedModel() };
}
afterEach(() => {
  for (const b of opened.splice(0)) b.close();
});

beforeAll(async () => {
  const results = await runScenarios({ outDir: out, dbDir, fixedClock: true });
  expect(results.map((r) => r.delivered)).toEqual(SCENARIOS.map(() => true));
});

describe("demo agent, replayed in recorded mode", () => {
  const network = refuseNetwork();

  it.each(SCENARIOS)("%s matches its recording, reaches no network and leaves the bank as it was", async (name) => {
    const before = bankState(name);
    const recorded = plainEvents(name);
    const result = await expectAgentToMatchJournal(demoAgent(name, deps(name)), journalOf(name));
    expect(network).toEqual([]);
    expect(bankState(name)).toEqual(before);
    expect(result.match).toBe(true);
    expect(result.divergence).toBeNull();
    const count = (type: string) => recorded.filter((e) => e.type === type).length;
    expect(result.requests).toEqual({ recorded: count("model.request"), replayed: count("model.request") });
    expect(result.tools).toEqual({ recorded: count("tool.call"), replayed: count("tool.call") });

    // the branch declares what it is, and answers every tool call as recorded, in order
    const branch = result.branch.events;
    const start = branch[0];
    expect(start.type).toBe("run.start");
    expect(start.data).toMatchObject({
      replayOf: { run: `demo-${name}`, head: recorded.at(-1)!.hash },
      mode: "recorded",
      components: { model: "recorded", tools: "recorded" },
      environment: "replay",
    });
    const outcomes = (evs: Array<{ type: string; data: Record<string, unknown> }>) =>
      evs.filter((e) => e.type === "tool.result").map((e) => [e.data.status, e.data.result ?? null]);
    expect(outcomes(branch)).toEqual(outcomes(recorded));
    expect(branch.map((e) => e.type)).toEqual(recorded.map((e) => e.type));
    expect(branch.at(-1)!.data).toMatchObject({ status: recorded.at(-1)!.data.status, replay: { match: true, divergence: null } });
  });

  it("answers a recorded timeout as a timeout again, flagged, never as success or failure", async () => {
    const recorded = plainEvents("refund-approval");
    const timedOut = recorded.find((e) => e.type === "tool.result" && e.data.status === "timeout")!;
    const result = await replayAgainst(journalOf("refund-approval"), demoAgent("refund-approval", deps("refund-approval")));
    const again = result.branch.events.find((e) => e.type === "tool.result" && e.data.call === timedOut.data.call)!;
    expect(again.data.status).toBe("timeout");
    expect(again.data.result).toBeUndefined();
    expect(again.data.replay).toMatchObject({ unresolved: true, outcome: "timeout", match: true });
    // the agent asked the executor and reconciled, as it did when recorded
    expect(result.branch.events.filter((e) => e.type === "reconcile").map((e) => e.data.outcome)).toEqual(["succeeded"]);
  });
});

/** A copy of the agent's module with one edit, importable (its imports point back into the repository). */
async function editedAgent(label: string, from: string, to: string): Promise<typeof import("@/scripts/demo-agent/agent")> {
  const source = readFileSync(join(repo, "scripts/demo-agent/agent.ts"), "utf8");
  expect(source.split(from).length - 1, `"${from}" must occur once in agent.ts`).toBe(1);
  const edited = source
    .replace(from, to)
    .replace(/from "\.\.\/\.\.\/lib\/recorder"/g, `from ${JSON.stringify(join(repo, "lib/recorder/index.ts"))}`)
    .replace(/from "\.\/(bank|model)"/g, (_m, f: string) => `from ${JSON.stringify(join(repo, `scripts/demo-agent/${f}.ts`))}`);
  mkdirSync(copies, { recursive: true });
  const file = join(copies, `${label}.ts`);
  writeFileSync(file, edited);
  return import(/* @vite-ignore */ pathToFileURL(file).href);
}

describe("a changed demo agent diverges at the recorded seq of what it changed", () => {
  const name = "refund-approval";

  it("a prompt edit: system, at the first context", async () => {
    const copy = await editedAgent("prompt", "Follow the refund policy.", "Follow the refund policy to the letter.");
    const firstContext = plainEvents(name).find((e) => e.type === "context")!;
    const error = await expectAgentToMatchJournal(copy.demoAgent(name, deps(name)), journalOf(name)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentDivergedError);
    const d = (error as AgentDivergedError).result.divergence!;
    expect(d).toMatchObject({ seq: firstContext.seq, kind: "system", path: "/context/messages/0/content" });
    expect(d.recorded).toContain("Follow the refund policy. Ask");
    expect(d.replayed).toContain("Follow the refund policy to the letter.");
    expect((error as Error).message).toContain(`recorded seq ${firstContext.seq}: system at /context/messages/0/content`);
  });

  it("another tool argument: tool-call, at that tool's recorded call", async () => {
    const copy = await editedAgent(
      "argument",
      "{ idempotencyKey: key },\n          async (a) => c.bank.findPaymentByKey",
      "{ idempotencyKey: orderId },\n          async (a) => c.bank.findPaymentByKey",
    );
    const call = plainEvents(name).find((e) => e.type === "tool.call" && e.data.tool === "find_payment")!;
    const result = await replayAgainst(journalOf(name), copy.demoAgent(name, deps(name)));
    expect(result.divergence).toEqual({
      seq: call.seq,
      kind: "tool-call",
      reason: "arguments-differ",
      path: "/args/idempotencyKey",
      recorded: (call.data.args as Record<string, unknown>).idempotencyKey,
      replayed: "A-1001",
    });
  });

  it("an extra tool call: tool-call, at the recorded call it stands in place of", async () => {
    const before = bankState(name);
    const copy = await editedAgent(
      "extra",
      "if (order) c.rec.state(",
      'await c.rec.tool("lookup_customer", { effect: "read" }, { orderId: args.orderId }, async () => null);\n    if (order) c.rec.state(',
    );
    const calls = plainEvents(name).filter((e) => e.type === "tool.call");
    // the extra call comes right after lookup_order: the recording's next call there is the one it displaces
    const displaced = calls[calls.findIndex((e) => e.data.tool === "lookup_order") + 1];
    const error = await expectAgentToMatchJournal(copy.demoAgent(name, deps(name)), journalOf(name)).catch((e: unknown) => e);
    const d = (error as AgentDivergedError).result.divergence!;
    expect(d).toMatchObject({ seq: displaced.seq, kind: "tool-call", path: "/tool" });
    expect(d.recorded).toMatchObject({ tool: displaced.data.tool });
    expect(d.replayed).toMatchObject({ tool: "lookup_customer", args: { orderId: "A-1001" } });
    // the extra read was not run: the agent got an error and the run failed, the bank untouched
    expect((error as AgentDivergedError).result.branch.events.at(-1)!.data.status).toBe("failed");
    expect(bankState(name)).toEqual(before);
  });
});

describe("demo agent, replayed with a live (fake) model", () => {
  it("answers tools from the recording and blocks a write the recording does not have", async () => {
    const name = "refund-approval";
    const before = bankState(name);
    const recorded = plainEvents(name);
    const asked: unknown[] = [];
    // the fake model: look the order up (as recorded), then refund another amount (never recorded)
    const answers = [
      { tool: "lookup_order", args: { orderId: "A-1001" } },
      { tool: "issue_refund", args: { orderId: "A-1001", amountCents: 1 } },
    ];
    const agent: ReplayableAgent = demoAgent(name, deps(name));
    const result = await replayAgainst(journalOf(name), agent, {
      mode: "model-live",
      model: async ({ request, context }) => {
        asked.push({ model: request.model, messages: (context?.messages as unknown[]).length });
        const a = answers[asked.length - 1];
        return {
          choices: [
            {
              message: {
                role: "assistant",
                content: null,
                tool_calls: [
                  { id: `live_${asked.length}`, type: "function", function: { name: a.tool, arguments: JSON.stringify(a.args) } },
                ],
              },
              finish_reason: "tool_calls",
            },
          ],
          usage: { prompt_tokens: 1, completion_tokens: 1 },
        };
      },
    });
    expect(asked).toEqual([
      { model: "scripted-planner-1", messages: 2 },
      { model: "scripted-planner-1", messages: 4 },
    ]);
    const branch = result.branch.events;
    expect(branch[0].data).toMatchObject({ mode: "model-live", components: { model: "live", tools: "recorded" } });
    expect(branch.filter((e) => e.type === "model.response").every((e) => e.data.live !== undefined)).toBe(true);
    const results = branch.filter((e) => e.type === "tool.result");
    const recordedLookup = recorded.find((e) => e.type === "tool.result" && e.data.call === "call_1")!;
    expect(results[0].data).toMatchObject({ status: "ok", result: recordedLookup.data.result, replay: { match: true } });
    expect(results[1].data).toMatchObject({ status: "error", replay: { blocked: true, match: false } });
    expect((results[1].data.error as { message: string }).message).toContain("never executed");
    expect(result.divergence).toMatchObject({ kind: "tool-call", path: "/tool" });
    expect(bankState(name)).toEqual(before);
  });
});
