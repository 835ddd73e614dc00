/**
 * Continue live against a model executor that validates requests as OpenAI's Chat
 * Completions does (tests/gateway/fakes, `strict`): the demo refund run's recorded contexts
 * drop the assistant turns' tool calls, and the request the real continue path sends must
 * still carry them (`tool_calls`, `content: null`) and each tool message's `tool_call_id`.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/access/roles";
import type { JournalEvent, JsonValue } from "@/lib/journal/types";
import { fromContext } from "@/lib/live/chat-wire";
import { pairRecordedCalls } from "@/lib/live/context";
import type { Db } from "@/lib/server/db";
import { runEvents } from "@/lib/server/live/branches";
import { continueFork, continuePreview } from "./through-edge";
import { addExecutor } from "@/lib/server/live/executors";
import { ingestBytes } from "@/lib/server/service";
import { addUser } from "@/lib/server/access/accounts";
import { runScenarios } from "@/scripts/demo-agent/scenarios";
import { startFake, type Fake } from "../gateway/fakes";
import { strictChatProblem } from "../gateway/fakes/openai-strict";
import { bytesOf, freshDb, type TestDb } from "../helpers/db";

const PASSWORD = "live password 0123";
const RUN = "demo-refund-approval";
const op: Principal = {
  kind: "user",
  id: "op-sandbox",
  name: "op-sandbox",
  memberships: { default: { role: "operator", environments: ["sandbox"] } },
};

describe("the strict fake refuses what OpenAI refuses", () => {
  it("an empty assistant message, a tool message with no tool_call_id, an unanswered call", () => {
    const user = { role: "user", content: "hi" };
    const call = { id: "c1", type: "function", function: { name: "f", arguments: "{}" } };
    expect(strictChatProblem({ messages: [user, { role: "assistant", content: "" }] })).toMatch(/content or tool_calls/);
    expect(
      strictChatProblem({ messages: [user, { role: "assistant", content: null, tool_calls: [call] }, { role: "tool", content: "1" }] }),
    ).toMatch(/tool_call_id/);
    expect(strictChatProblem({ messages: [user, { role: "assistant", content: null, tool_calls: [call] }, user] })).toMatch(/c1/);
    expect(
      strictChatProblem({
        messages: [user, { role: "assistant", content: null, tool_calls: [call] }, { role: "tool", tool_call_id: "c2", content: "1" }],
      }),
    ).toMatch(/preceeding message with 'tool_calls'/);
    expect(
      strictChatProblem({
        messages: [user, { role: "assistant", content: null, tool_calls: [call] }, { role: "tool", tool_call_id: "c1", content: "1" }],
      }),
    ).toBeNull();
  });
});

describe("pairRecordedCalls", () => {
  const ev = (seq: number, output: Record<string, unknown>) =>
    ({
      run: "r",
      seq,
      ts: "2026-12-01T10:00:00.000Z",
      type: "model.response",
      data: { call: `m${seq}`, output },
    }) as unknown as JournalEvent;
  it("keeps an imported context's toolCalls/toolCallId, pairs a bare turn by the tools answered after it, drops an empty turn", () => {
    const recorded = (
      [
        { role: "user", content: "go" },
        { role: "assistant", content: "", toolCalls: [{ id: "t1", name: "read", args: { p: "a" } }] },
        { role: "tool", content: "A", toolCallId: "t1" },
        { role: "assistant", content: "" },
        { role: "assistant", content: "" },
        { role: "tool", content: "B", source: "tool:grep" },
      ] as JsonValue[]
    ).map(fromContext);
    const out = pairRecordedCalls(recorded, [
      ev(2, { toolCalls: [{ id: "t1", name: "read", args: { p: "a" } }] }),
      ev(5, {
        toolCalls: [
          { id: "g1", name: "grep", args: { q: "x" } },
          { id: "g2", name: "grep", args: { q: "y" } },
        ],
      }),
      ev(7, { text: "" }),
    ]);
    expect(strictChatProblem({ messages: out })).toBeNull();
    expect(out.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "tool"]);
    expect(out[1]).toMatchObject({
      content: null,
      tool_calls: [{ id: "t1", type: "function", function: { name: "read", arguments: '{"p":"a"}' } }],
    });
    // the turn that asked grep twice: the one answered call is kept, the unanswered one left out
    expect(out[3].tool_calls?.map((c) => c.id)).toEqual(["g1"]);
    expect(out[4]).toMatchObject({ role: "tool", name: "grep", tool_call_id: "g1", content: "B" });
  });
  it("sends a tool result no recorded model response asked for as a user message that says so", () => {
    const out = pairRecordedCalls(
      [
        { role: "user", content: "go" },
        { role: "tool", name: "grep", content: "B" },
      ],
      [],
    );
    expect(out).toEqual([
      { role: "user", content: "go" },
      { role: "user", content: "[the result of grep, which the agent ran without a model's call]\nB" },
    ]);
    expect(strictChatProblem({ messages: out })).toBeNull();
  });
});

describe("continue a fork live against a strict OpenAI-compatible executor (sqlite)", () => {
  let t: TestDb;
  let db: Db;
  let fake: Fake;
  let dir: string;
  let model = "";
  let fork = 0;
  const override = { toolResult: { status: "ok", result: { id: "rf_0001", amountCents: 4999 } } };

  beforeAll(async () => {
    t = await freshDb("sqlite");
    db = t.open({
      RETRACE_EXECUTOR_KEY_FILE: path.join(os.tmpdir(), `continue-strict-${process.pid}.executor-key`),
      RETRACE_EXECUTOR_HOSTS: "127.0.0.1",
    });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "retrace-continue-strict-"));
    await runScenarios({ outDir: dir, dbDir: path.join(dir, "bank"), fixedClock: true, scenarios: ["refund-approval"] });
    await ingestBytes(db, bytesOf(fs.readFileSync(path.join(dir, "refund-approval.jsonl"))), { mode: "upload", source: "upload" });
    fake = await startFake("openai", [{ text: "Refunded 49.99 for order A-1001." }], { strict: true });
    model = (
      await addExecutor(db, {
        project: "default",
        kind: "model",
        name: "scripted-planner-1",
        environment: "sandbox",
        url: `${fake.url}/v1`,
        credential: "strict-token-0123456789",
        createdBy: "test",
      })
    ).id;
    await addUser(db, { name: "op-sandbox", password: PASSWORD, project: "default", role: "operator", environments: ["sandbox"] });
    fork = (await runEvents(db, RUN)).find((e) => e.type === "tool.result" && e.data.status === "timeout")!.seq;
  });
  afterAll(async () => {
    await fake?.close();
    await t?.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("sends every assistant turn with its tool_calls and every tool message with its tool_call_id; the endpoint answers", async () => {
    const preview = await continuePreview(db, op, { run: RUN, seq: fork, override, executor: model });
    const out = await continueFork(db, op, {
      run: RUN,
      seq: fork,
      override,
      executor: model,
      digest: preview.digest,
      reason: "what if the payment had answered ok",
      password: PASSWORD,
    });
    const sent = fake.requests.filter((r) => r.path === "/v1/chat/completions");
    expect(sent).toHaveLength(1);
    expect(strictChatProblem(sent[0].body)).toBeNull();
    expect(out).toMatchObject({ stop: "final-answer", modelCalls: 1, finalText: "Refunded 49.99 for order A-1001." });
    const messages = (sent[0].body as { messages: Record<string, unknown>[] }).messages;
    // the three recorded turns each called one tool and said nothing: lookup_order, kb_search, issue_refund
    const assistants = messages.filter((m) => m.role === "assistant");
    expect(assistants.map((m) => (m.tool_calls as { function: { name: string } }[]).map((c) => c.function.name))).toEqual([
      ["lookup_order"],
      ["kb_search"],
      ["issue_refund"],
    ]);
    expect(assistants.every((m) => m.content === null)).toBe(true);
    const refund = assistants[2].tool_calls as { id: string; function: { arguments: string } }[];
    expect(JSON.parse(refund[0].function.arguments)).toMatchObject({ orderId: "A-1001" });
    expect(messages[messages.length - 1]).toMatchObject({
      role: "tool",
      tool_call_id: refund[0].id,
      content: '{"id":"rf_0001","amountCents":4999}',
    });
  });
});
