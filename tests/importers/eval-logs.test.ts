/**
 * OpenHands evaluation output (V0 and V1 histories), ATIF trajectories, LangSmith run
 * payloads and Inspect `.eval` archives from tests/fixtures/corpus (copies of
 * /work/shared/corpus): detected from content, with every expected count read off the raw
 * file by a walk in this test (zip members read with node's zlib, not fflate).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { inflateRawSync } from "node:zlib";
import { zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/canonical";
import { importTrace } from "@/lib/importers";
import { detectBytes, detectFormat } from "@/lib/importers/detect";
import { ImportError } from "@/lib/importers/convert";
import { importInspectEval } from "@/lib/importers/inspect-eval";
import { importTraceStreamWhole } from "@/lib/importers/stream";
import { parseLine } from "@/lib/journal/parse-line";
import type { JournalEvent } from "@/lib/journal/types";
import { CORPUS, readCorpus, summarize } from "./helpers";

type Obj = Record<string, unknown>;
const valid = (events: JournalEvent[]) => {
  for (const e of events) expect(() => parseLine(canonicalJson(e))).not.toThrow();
};
const jsonl = (rel: string) =>
  readCorpus(rel)
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Obj);

describe("OpenHands evaluation output.jsonl: one run per instance", () => {
  it("V1 (agent SDK events): actions, observations joined by tool_call_id, non-zero exits", () => {
    const rel = "openhands-eval/openhands-benchmarks-openagentsafety-gpt-4o-v1sdk.output.jsonl";
    const instances = jsonl(rel);
    expect(detectFormat(readCorpus(rel), rel).format).toBe("openhands-eval");
    const r = importTrace(readCorpus(rel), { fileName: rel });
    expect(r.runs).toHaveLength(instances.length);
    instances.forEach((inst, i) => {
      const history = inst.history as Obj[];
      const actions = history.filter((e) => e.kind === "ActionEvent");
      const tools = actions.filter((e) => (e.action as Obj).kind !== "FinishAction");
      const responses = new Set(actions.map((e) => e.llm_response_id));
      const failed = history.filter((e) => {
        const o = e.observation as Obj | undefined;
        const exit = (o?.metadata as Obj | undefined)?.exit_code;
        return e.kind === "ObservationEvent" && typeof exit === "number" && exit !== 0;
      }).length;
      const run = r.runs[i];
      valid(run.events);
      expect(run.runId).toMatch(new RegExp(`^openhands-${String(inst.instance_id)}-[0-9a-f]{8}$`));
      const s = summarize(run.events);
      expect(s.modelCalls).toBe(responses.size);
      expect(s.toolCalls).toBe(tools.length);
      expect(s.toolFailures.error ?? 0).toBe(failed);
      expect(run.events[0].data.input).toBe(inst.instruction);
    });
  });

  it("V0 (action / observation with cause): tool calls and the model from the responses", () => {
    const rel = "openhands-eval/python-openhands-fastjson2-2775-codeact-v0.output.jsonl";
    const [inst] = jsonl(rel);
    const history = inst.history as Obj[];
    const tools = history.filter((e) => ["run", "read", "edit"].includes(String(e.action)));
    const r = importTrace(readCorpus(rel), { fileName: rel });
    expect(r.runs).toHaveLength(1);
    valid(r.runs[0].events);
    expect(r.runs[0].runId).toMatch(/^openhands-alibaba__fastjson2-2775-[0-9a-f]{8}$/);
    expect(summarize(r.runs[0].events).toolCalls).toBe(tools.length);
    // edits are writes the source itself declares (action "edit"), not guesses
    const edits = r.runs[0].events.filter((e) => e.type === "tool.call" && e.data.action === "edit");
    expect(edits).toHaveLength(history.filter((e) => e.action === "edit").length);
    for (const e of edits) expect(e.data).toMatchObject({ effect: "write", effectInferred: false });
    // the API key is masked in the source and not carried into the run at all
    expect(JSON.stringify(r.runs[0].events)).not.toContain("api_key");
  });

  it("importing the same file twice gives the same run ids; another line of one instance another id", () => {
    const rel = "openhands-eval/openhands-benchmarks-openagentsafety-gpt-4o-v1sdk.output.jsonl";
    const text = readCorpus(rel);
    const ids = importTrace(text, { fileName: rel }).runs.map((x) => x.runId);
    expect(importTrace(text, { fileName: rel }).runs.map((x) => x.runId)).toEqual(ids);
    const [first] = text.split("\n");
    const other = first.replace('"model":"litellm_proxy/neulab/gpt-4o-2024-08-06"', '"model":"litellm_proxy/neulab/gpt-4o-mini"');
    expect(other).not.toBe(first);
    const twice = importTrace(`${first}\n${other}\n`, { fileName: rel }).runs.map((x) => x.runId);
    expect(new Set(twice).size).toBe(2);
  });
});

describe("ATIF trajectories", () => {
  const FILES = [
    "atif/golang-exp-terminus2-context-summarization.trajectory.json",
    "atif/golang-exp-terminus2-timeout.trajectory.json",
    "atif/inspect-scout-openhands-no-function-calling.trajectory.json",
  ];
  for (const rel of FILES) {
    it(`${rel}: agent steps are model calls, tool_calls are tool calls with results`, () => {
      const doc = JSON.parse(readCorpus(rel)) as Obj;
      const steps = doc.steps as Obj[];
      const agent = steps.filter((s) => s.source === "agent");
      const calls = agent.flatMap((s) => (s.tool_calls as Obj[] | undefined) ?? []);
      const out = agent.reduce((n, s) => n + Number((s.metrics as Obj | undefined)?.completion_tokens ?? 0), 0);
      expect(detectFormat(readCorpus(rel), rel).format).toBe("atif");
      const r = importTrace(readCorpus(rel), { fileName: rel });
      const events = r.runs[0].events;
      valid(events);
      const s = summarize(events);
      expect(s.modelCalls).toBe(agent.length);
      expect(s.toolCalls).toBe(calls.length);
      expect(events.filter((e) => e.type === "tool.result")).toHaveLength(calls.length);
      expect(s.outputTokens).toBe(out);
      for (const c of calls)
        expect(events.find((e) => e.type === "tool.call" && e.data.call === c.tool_call_id)?.data.args).toEqual(c.arguments);
    });
  }

  it("two files with one session id get two run ids; sub-trajectory refs are kept as links", () => {
    const [a, b] = FILES.slice(0, 2).map((f) => importTrace(readCorpus(f), { fileName: f }).runs[0]);
    expect((JSON.parse(readCorpus(FILES[0])) as Obj).session_id).toBe((JSON.parse(readCorpus(FILES[1])) as Obj).session_id);
    expect(a.runId).not.toBe(b.runId);
    const refs = (JSON.parse(readCorpus(FILES[0])) as { steps: Obj[] }).steps.flatMap((s) =>
      (((s.observation as Obj | undefined)?.results as Obj[] | undefined) ?? []).flatMap(
        (x) => (x.subagent_trajectory_ref as Obj[] | undefined) ?? [],
      ),
    );
    expect(refs).toHaveLength(3);
    const step = a.events.find((e) => e.type === "step.start" && Array.isArray(e.data.trajectoryRefs));
    expect((step?.data.trajectoryRefs as Obj[]).map((x) => x.path)).toEqual(refs.map((x) => x.trajectory_path));
  });
});

describe("LangSmith run payloads", () => {
  for (const rel of ["langsmith/langsmith-js-wrap-openai-default.runs.json", "langsmith/langsmith-py-wrap-openai-stream.runs.json"]) {
    it(`${rel}: create and update bodies merged into one llm call with usage and messages`, () => {
      const doc = JSON.parse(readCorpus(rel)) as { post: Obj[]; patch: Obj[] };
      const llm = doc.post.filter((x) => x.run_type === "llm");
      const usage = doc.patch.map((x) => ((x.outputs as Obj).usage_metadata as Obj).output_tokens as number);
      expect(detectFormat(readCorpus(rel), rel).format).toBe("langsmith");
      const r = importTrace(readCorpus(rel), { fileName: rel });
      expect(r.runs.map((x) => x.runId)).toEqual([...new Set(doc.post.map((x) => `langsmith-${String(x.trace_id)}`))]);
      const events = r.runs[0].events;
      valid(events);
      const s = summarize(events);
      expect(s.modelCalls).toBe(llm.length);
      expect(s.outputTokens).toBe(usage.reduce((a, b) => a + b, 0));
      const req = events.find((e) => e.type === "model.request");
      expect(req?.data.messages).toEqual([{ role: "user", content: ((llm[0].inputs as Obj).messages as Obj[])[0].content }]);
      const text = (((doc.patch[0].outputs as Obj).choices as Obj[])[0].message as Obj).content;
      expect((events.find((e) => e.type === "model.response")?.data.output as Obj).text).toBe(text);
    });
  }
});

/** Members of a zip read with node's zlib from the central directory: an independent reader. */
function zipMembers(buf: Buffer): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  let at = buf.readUInt32LE(eocd + 16);
  const n = buf.readUInt16LE(eocd + 10);
  for (let i = 0; i < n; i++) {
    const method = buf.readUInt16LE(at + 10);
    const size = buf.readUInt32LE(at + 20);
    const nameLen = buf.readUInt16LE(at + 28);
    const extra = buf.readUInt16LE(at + 30);
    const comment = buf.readUInt16LE(at + 32);
    const local = buf.readUInt32LE(at + 42);
    const name = buf.toString("utf8", at + 46, at + 46 + nameLen);
    const dataAt = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const raw = buf.subarray(dataAt, dataAt + size);
    out.set(name, method === 8 ? inflateRawSync(raw) : raw);
    at += 46 + nameLen + extra + comment;
  }
  return out;
}

describe("Inspect AI .eval archives", () => {
  for (const rel of ["inspect-ai/inspect-guess-number-hardcoded-bash.eval", "inspect-ai/inspect-scout-security-guide-gpt-4o-mini.eval"]) {
    it(`${rel}: one run per sample, model and tool events counted from the members`, async () => {
      const bytes = readFileSync(path.join(CORPUS, rel));
      const members = zipMembers(bytes);
      const header = JSON.parse(members.get("header.json")?.toString("utf8") ?? "{}") as { eval: Obj };
      const samples = [...members.keys()]
        .filter((k) => /^samples\/.*\.json$/.test(k))
        .map((k) => JSON.parse(members.get(k)?.toString("utf8") ?? "{}") as Obj);
      expect(detectBytes(new Uint8Array(bytes), rel).format).toBe("inspect-eval");
      const r = await importTraceStreamWhole(
        (async function* () {
          yield new Uint8Array(bytes);
        })(),
        { fileName: rel },
      );
      expect(r.format).toBe("inspect-eval");
      expect(r.runs).toHaveLength(samples.length);
      for (const sample of samples) {
        const run = r.runs.find((x) => x.runId === `inspect-${String(header.eval.run_id)}-${String(sample.id)}-${String(sample.epoch)}`);
        expect(run).toBeDefined();
        if (!run) continue;
        valid(run.events);
        const events = sample.events as Obj[];
        const s = summarize(run.events);
        expect(s.modelCalls).toBe(events.filter((e) => e.event === "model").length);
        expect(s.toolCalls).toBe(events.filter((e) => e.event === "tool").length);
      }
    });
  }

  it("a sample without events falls back to its messages", async () => {
    const rel = "inspect-ai/inspect-guess-number-hardcoded-bash.eval";
    const members = zipMembers(readFileSync(path.join(CORPUS, rel)));
    const sampleName = [...members.keys()].find((k) => k.startsWith("samples/")) ?? "";
    const sample = JSON.parse(members.get(sampleName)?.toString("utf8") ?? "{}") as Obj;
    const header = JSON.parse(members.get("header.json")?.toString("utf8") ?? "{}") as Obj;
    const messages = sample.messages as Obj[];
    const assistant = messages.filter((m) => m.role === "assistant");
    const calls = assistant.flatMap((m) => (m.tool_calls as Obj[] | undefined) ?? []);
    const log = { ...header, samples: [{ ...sample, events: [] }] };
    const events = importTrace(JSON.stringify(log), { fileName: "no-events.json" }).runs[0].events;
    valid(events);
    const s = summarize(events);
    expect(s.modelCalls).toBe(assistant.length);
    expect(s.toolCalls).toBe(calls.length);
    for (const c of calls) {
      const call = events.find((e) => e.type === "tool.call" && e.data.call === c.id);
      const result = events.find((e) => e.type === "tool.result" && e.data.call === c.id);
      expect(call?.data.args).toEqual(c.arguments);
      expect(result && call && result.seq > call.seq).toBe(true);
    }
  });

  it("refuses a member that inflates past the limit, before inflating it (a zip bomb)", () => {
    const header = new TextEncoder().encode(JSON.stringify({ eval: { run_id: "bomb", task: "t" } }));
    // 4 MiB of spaces inside a JSON sample: a few KiB compressed
    const sample = new TextEncoder().encode(`{"id":1,"epoch":1,"messages":[]${" ".repeat(4 * 1024 * 1024)}}`);
    const zip = zipSync({ "header.json": header, "samples/1_epoch_1.json": sample }, { level: 9 });
    expect(zip.length).toBeLessThan(64 * 1024);
    expect(() => importInspectEval(zip, { maxMemberBytes: 1024 * 1024 })).toThrow(ImportError);
    expect(() => importInspectEval(zip, { maxMemberBytes: 1024 * 1024 })).toThrow(
      `samples/1_epoch_1.json (${sample.length.toLocaleString("en-US")} bytes)`,
    );
    // under a limit it fits, it imports
    expect(importInspectEval(zip, { maxMemberBytes: 8 * 1024 * 1024 }).runs).toHaveLength(1);
  });
});
