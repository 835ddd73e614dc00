/**
 * Every duration an importer stores is in milliseconds, whatever unit the source wrote. The
 * expected values are read off the raw file's own start and end times here, never from the
 * importer's output.
 */
import { describe, expect, it } from "vitest";
import { importTrace } from "@/lib/importers";
import { readCorpus } from "./helpers";

type Obj = Record<string, unknown>;
const LANGFUSE = "langfuse/langfuse-qa-chatbot-mcp-toolcall.json";

function observations(doc: Obj): Obj[] {
  const top = Array.isArray(doc.observations) ? (doc.observations as Obj[]) : [];
  const nested = Array.isArray((doc.trace as Obj | undefined)?.observations) ? ((doc.trace as Obj).observations as Obj[]) : [];
  const byId = new Map<unknown, Obj>();
  for (const o of [...top, ...nested]) byId.set(o.id, o);
  return [...byId.values()];
}

/** The observation's duration from its own ISO times, in ms. */
const spanMs = (o: Obj) => Date.parse(String(o.endTime)) - Date.parse(String(o.startTime));

function modelLatencies(text: string): Map<string, number> {
  const events = importTrace(text, { fileName: "export.json" }).runs.flatMap((r) => r.events);
  const out = new Map<string, number>();
  for (const e of events)
    if (e.type === "model.response" && typeof e.data.latencyMs === "number") out.set(String(e.data.call), e.data.latencyMs);
  return out;
}

describe("Langfuse observation durations", () => {
  const doc = JSON.parse(readCorpus(LANGFUSE)) as Obj;
  const generations = observations(doc).filter((o) => o.type === "GENERATION" && o.model);

  it("a model call's latency is its endTime − startTime (the export writes milliseconds in `latency`)", () => {
    expect(generations.length).toBeGreaterThan(1);
    const latency = modelLatencies(readCorpus(LANGFUSE));
    for (const o of generations) expect(Math.abs((latency.get(String(o.id)) ?? NaN) - spanMs(o))).toBeLessThanOrEqual(1);
  });

  it("…and so it is when `latency` holds seconds, as Langfuse's API writes it", () => {
    // the same export as the public API serves it: latency in seconds
    const seconds = JSON.parse(readCorpus(LANGFUSE), (k, v: unknown) => (k === "latency" && typeof v === "number" ? v / 1000 : v)) as Obj;
    const latency = modelLatencies(JSON.stringify(seconds));
    for (const o of generations) {
      const ms = latency.get(String(o.id));
      expect(Math.abs((ms ?? NaN) - spanMs(o))).toBeLessThanOrEqual(1);
      expect(ms).toBeGreaterThan(100); // a 1.036 s call stored as 1.036 ms was the bug
    }
  });

  it("with no end time, `latency` is read as seconds; with neither, no duration is invented", () => {
    const strip = (keepLatency: boolean) =>
      JSON.parse(readCorpus(LANGFUSE), function (this: Obj, k, v: unknown) {
        if (k === "endTime") return undefined;
        if (k === "latency" && typeof v === "number") return keepLatency ? 2.5 : undefined;
        return v;
      }) as Obj;
    const withLatency = modelLatencies(JSON.stringify(strip(true)));
    for (const o of generations) expect(withLatency.get(String(o.id))).toBe(2500);
    const without = modelLatencies(JSON.stringify(strip(false)));
    for (const o of generations) expect(without.has(String(o.id))).toBe(false);
  });
});

describe("durations a source does not record are absent", () => {
  it("Codex rollouts: a model call has no latency (items are stamped as written, the request never)", () => {
    for (const rel of [
      "codex/codex-session-view-rollout-019a93b9-cli-0.58.jsonl",
      "codex/codemie-rollout-019e1625-codex-tui-0.125.jsonl",
    ]) {
      const events = importTrace(readCorpus(rel), { fileName: rel }).runs[0].events;
      const responses = events.filter((e) => e.type === "model.response");
      expect(responses.length).toBeGreaterThan(0);
      for (const r of responses) expect(r.data.latencyMs).toBeUndefined();
    }
  });
});
