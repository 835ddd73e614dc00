/**
 * The OTLP receiver over many requests to one trace: requests that go after what the trace
 * holds are appended (earlier events stay as stored), a trace without its root is live,
 * the root's arrival (or a parent after its children) derives the trace again from every
 * span, and the result is then what spansToRuns gives for the whole span set.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spansFromOtlpJson, spansToRuns, type NormalizedSpan } from "@/lib/importers";
import { canonicalJson } from "@/lib/canonical";
import { parseJsonExact } from "@/lib/journal/parse-line";
import type { JournalEvent } from "@/lib/journal/types";
import type { Db } from "@/lib/server/db";
import { finishIdleTraces, receiveSpans } from "@/lib/server/otlp-receiver";
import { listEventBodies } from "@/lib/server/queries";
import { DIALECTS, freshDb, type TestDb } from "../helpers/db";

const T0 = 1777555053000000000n;
const attr = (key: string, value: string) => ({ key, value: { stringValue: value } });
let traceN = 0;

function makeTrace() {
  const trace = (0xab00 + ++traceN).toString(16).padStart(32, "0");
  const span = (id: number, parent: number | undefined, name: string, start: number, end: number, attributes: object[] = []) => ({
    traceId: trace,
    spanId: id.toString(16).padStart(16, "0"),
    ...(parent !== undefined ? { parentSpanId: parent.toString(16).padStart(16, "0") } : {}),
    name,
    kind: 1,
    startTimeUnixNano: String(T0 + BigInt(Math.round(start * 1000)) * 1000n),
    endTimeUnixNano: String(T0 + BigInt(Math.round(end * 1000)) * 1000n),
    attributes,
    status: { code: 1 },
  });
  const request = (spans: object[]) =>
    spansFromOtlpJson({ resourceSpans: [{ resource: { attributes: [attr("service.name", "inc-agent")] }, scopeSpans: [{ spans }] }] });
  /** Turn i (spans 10i+11…10i+13, under root 1): a model call asking for tool call c<i>, then that tool. */
  const id = (i: number, k: number) => 10 * (i + 1) + k;
  const turn = (i: number) => [
    span(id(i, 2), id(i, 1), "chat m", 100 * i + 1, 100 * i + 40, [
      attr("gen_ai.operation.name", "chat"),
      attr("gen_ai.request.model", "m"),
      attr("gen_ai.input.messages", JSON.stringify([{ role: "user", content: `question ${i}` }])),
      attr(
        "gen_ai.output.messages",
        JSON.stringify([{ role: "assistant", parts: [{ type: "tool_call", id: `c${i}`, name: "lookup", arguments: { n: i } }] }]),
      ),
    ]),
    // started in the model's last millisecond (a whole-ms start), after its response
    span(id(i, 3), id(i, 1), "execute_tool lookup", 100 * i + 39.6, 100 * i + 60, [
      attr("gen_ai.operation.name", "execute_tool"),
      attr("gen_ai.tool.name", "lookup"),
      attr("gen_ai.tool.call.id", `c${i}`),
    ]),
    span(id(i, 1), 1, `turn ${i}`, 100 * i, 100 * i + 99),
  ];
  const root = span(1, undefined, "invoke_agent inc-agent", 0, 1000, [attr("gen_ai.operation.name", "invoke_agent")]);
  return { trace, runId: `otel-${trace}`, id, request, turn, root, span };
}

describe.each(DIALECTS)("the OTLP receiver, request by request, on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open({ RETRACE_OTLP_IDLE_SECONDS: "60" });
  });
  afterAll(async () => t.cleanup());

  const stored = async (runId: string) => (await listEventBodies(db, runId, -1, 10_000)).map((r) => parseJsonExact(r.body) as JournalEvent);
  const runRow = async (runId: string) =>
    (await db.sql.all<{ live: unknown; status: string }>(`SELECT "live", "status" FROM "Run" WHERE "id" = ?`, [runId]))[0];

  it("appends turns without touching earlier events, stays live without the root, then equals the whole trace's derivation", async () => {
    const tr = makeTrace();
    const all: NormalizedSpan[] = [];
    let before: JournalEvent[] = [];
    for (let i = 0; i < 4; i++) {
      const spans = tr.request(tr.turn(i));
      all.push(...spans);
      expect((await receiveSpans(db, spans, "default")).runs).toEqual([tr.runId]);
      const now = await stored(tr.runId);
      // what was stored before is still there, seq for seq
      expect(now.slice(0, before.length).map((e) => canonicalJson(e))).toEqual(before.map((e) => canonicalJson(e)));
      expect(now.length).toBeGreaterThan(before.length);
      before = now;
    }
    expect(before.some((e) => e.type === "run.end")).toBe(false);
    expect(Boolean((await runRow(tr.runId)).live)).toBe(true);
    expect((await runRow(tr.runId)).status).toBe("running");
    // each tool call after the response that asked for it
    for (let i = 0; i < 4; i++) {
      const response = before.find((e) => e.type === "model.response" && e.step === tr.id(i, 2).toString(16).padStart(16, "0"));
      const call = before.find((e) => e.type === "tool.call" && e.data.call === `c${i}`);
      expect(response!.seq).toBeLessThan(call!.seq);
    }

    const rootSpans = tr.request([tr.root]);
    all.push(...rootSpans);
    await receiveSpans(db, rootSpans, "default");
    const final = await stored(tr.runId);
    const [expected] = spansToRuns(all, { format: "otlp-json", contentType: "application/json" });
    expect(final.map((e) => canonicalJson(e))).toEqual(expected.events.map((e) => canonicalJson(e)));
    expect(final.at(-1)?.type).toBe("run.end");
    expect(Boolean((await runRow(tr.runId)).live)).toBe(false);
    expect((await runRow(tr.runId)).status).toBe("succeeded");
  });

  it("a tool span without a call id, in a later request than its model call, takes the requested id (appended, not re-derived)", async () => {
    const tr = makeTrace();
    const [llm, , turn] = tr.turn(0);
    const chat = { ...llm, parentSpanId: turn.parentSpanId };
    // the tool ran the call the model asked for, but names no call id; a second one with other arguments answers nothing
    const tool = (id: number, n: number, start: number) =>
      tr.span(id, 1, "lookup", start, start + 10, [
        attr("openinference.span.kind", "TOOL"),
        attr("tool.name", "lookup"),
        attr("input.value", JSON.stringify({ n })),
      ]);
    await receiveSpans(db, tr.request([chat]), "default");
    const before = await stored(tr.runId);
    await receiveSpans(db, tr.request([tool(0x91, 0, 45), tool(0x92, 5, 60)]), "default");
    const evs = await stored(tr.runId);
    // appended: what was stored stays seq for seq
    expect(evs.slice(0, before.length).map((e) => canonicalJson(e))).toEqual(before.map((e) => canonicalJson(e)));
    const response = evs.find((e) => e.type === "model.response")!;
    const calls = evs.filter((e) => e.type === "tool.call");
    expect(calls.map((e) => e.data.call)).toEqual(["c0", "0000000000000092"]);
    expect(calls[0].seq).toBeGreaterThan(response.seq);
    // answered: a later tool span with the same arguments does not take it again
    await receiveSpans(db, tr.request([tool(0x93, 0, 80)]), "default");
    expect((await stored(tr.runId)).filter((e) => e.type === "tool.call").map((e) => e.data.call)).toEqual([
      "c0",
      "0000000000000092",
      "0000000000000093",
    ]);
  });

  it("a parent arriving after its children puts its step.start before theirs", async () => {
    const tr = makeTrace();
    const [llm, tool, turn] = tr.turn(0);
    await receiveSpans(db, tr.request([llm, tool]), "default");
    await receiveSpans(db, tr.request([turn]), "default");
    const evs = await stored(tr.runId);
    const startOf = (id: number) => evs.find((e) => e.type === "step.start" && e.step === id.toString(16).padStart(16, "0"))!.seq;
    const endOf = (id: number) => evs.find((e) => e.type === "step.end" && e.step === id.toString(16).padStart(16, "0"))!.seq;
    expect(startOf(tr.id(0, 1))).toBeLessThan(startOf(tr.id(0, 2)));
    expect(startOf(tr.id(0, 1))).toBeLessThan(startOf(tr.id(0, 3)));
    expect(endOf(tr.id(0, 3))).toBeLessThan(endOf(tr.id(0, 1)));
    expect(evs.some((e) => e.type === "run.end")).toBe(false);
  });

  it("a second instrumentation of a model call arriving in a later request is not a second call", async () => {
    const tr = makeTrace();
    const messages = JSON.stringify({ messages: [{ role: "user", content: "weather in Oslo?" }] });
    const llm = (id: number, start: number, end: number, extra: object[] = []) =>
      tr.span(id, 7, `llm ${id}`, start, end, [attr("openinference.span.kind", "LLM"), attr("input.value", messages), ...extra]);
    // the LangChain span first, under a chain span (7) that has not arrived: it is appended
    await receiveSpans(db, tr.request([llm(71, 10, 900)]), "default");
    expect((await stored(tr.runId)).filter((e) => e.type === "model.request")).toHaveLength(1);
    // the OpenAI instrumentation's sibling: same messages, inside the first one's time
    await receiveSpans(db, tr.request([llm(72, 12, 880, [attr("llm.provider", "openai")])]), "default");
    const requests = (await stored(tr.runId)).filter((e) => e.type === "model.request");
    expect(requests.map((e) => e.step)).toEqual([(72).toString(16).padStart(16, "0")]);
    // the same question asked again later is a second call, and is appended
    await receiveSpans(db, tr.request([llm(73, 1000, 1900)]), "default");
    expect((await stored(tr.runId)).filter((e) => e.type === "model.request")).toHaveLength(2);
  });

  it("records the content type as it came: protobuf is not tagged otlp-json", async () => {
    const tr = makeTrace();
    await receiveSpans(db, tr.request([tr.root]), "default", { contentType: "application/x-protobuf" });
    const start = (await stored(tr.runId))[0];
    expect(start.data.source).toMatchObject({ format: "otlp-protobuf", contentType: "application/x-protobuf" });
    expect(start.data.tags).toEqual(["otlp-protobuf"]);
  });

  it("a trace whose root never arrives is finished after the idle time, and a later span makes it live again", async () => {
    const tr = makeTrace();
    await receiveSpans(db, tr.request(tr.turn(0)), "default");
    // not idle yet: 59 s after its last span
    expect(await finishIdleTraces(db, Date.now() + 59_000)).not.toContain(tr.runId);
    expect((await stored(tr.runId)).some((e) => e.type === "run.end")).toBe(false);
    expect(await finishIdleTraces(db, Date.now() + 61_000)).toContain(tr.runId);
    expect((await stored(tr.runId)).at(-1)?.type).toBe("run.end");
    expect(Boolean((await runRow(tr.runId)).live)).toBe(false);
    await receiveSpans(db, tr.request(tr.turn(1)), "default");
    expect((await stored(tr.runId)).some((e) => e.type === "run.end")).toBe(false);
    expect(Boolean((await runRow(tr.runId)).live)).toBe(true);
  });
});
