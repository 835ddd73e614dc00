/**
 * Claude Code 2.1.337 with a sub-agent run in the background, the `Agent` tool's default
 * (tests/fixtures/agent-cli/claude-code-2.1.337-subagent-background, recorded by the real
 * CLI, scripts/fixtures/claude-code-background-subagent.ts): the call's result is only
 * "Async agent launched", the main agent answers meanwhile, and the sub-agent's end reaches
 * it as a `<task-notification>` user line. Joined (a folder, a zip), the sub-agent's calls
 * sit under the Agent call's step, which lasts until the sub-agent's last line. Counts and
 * times come from the files with plain JSON reading.
 */
import { zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { importClaudeCode } from "@/lib/importers/claude-code";
import { importSessionFiles, importSessionZip } from "@/lib/importers/folder";
import { ancestors, blocks, responseIds, sessionFolder, toolUses, type Ev } from "./claude-session-files";

const DIR = "tests/fixtures/agent-cli/claude-code-2.1.337-subagent-background";
const SESSION = "d963c98a-c6be-4705-9df6-6b4e717bbe53";
const AGENT = "a4bbcca872087360e";
const MAIN = `${SESSION}.jsonl`;
const SUB = `${SESSION}/subagents/agent-${AGENT}.jsonl`;
const META = `${SESSION}/subagents/agent-${AGENT}.meta.json`;

const { text, lines } = sessionFolder(DIR);
const ms = (iso: string | undefined) => Date.parse(iso ?? "");

const main = lines(MAIN);
const sub = lines(SUB);
const agentCall = toolUses(main).find((u) => u.name === "Agent")!;
const launched = main.find((l) => l.type === "user" && l.toolUseResult?.agentId !== undefined)!;
const notification = main.find((l) => l.origin?.kind === "task-notification")!;
const subTimes = sub.filter((l) => l.timestamp !== undefined).map((l) => ms(l.timestamp));

describe("Claude Code 2.1.337: a sub-agent run in the background", () => {
  it("the files say so: a call without run_in_background, an async launch result, a notification, a 'background' meta", () => {
    expect(agentCall.input).not.toHaveProperty("run_in_background");
    expect(launched.toolUseResult).toMatchObject({ agentId: AGENT, isAsync: true, status: "async_launched" });
    expect(blocks(launched)[0].tool_use_id).toBe(agentCall.id);
    expect(JSON.stringify(blocks(launched)[0].content)).toMatch(/^\[\{"type":"text","text":"Async agent launched/);
    expect(JSON.parse(text(META))).toMatchObject({ requestShape: "background", toolUseId: agentCall.id });
    const note = String(notification.message.content);
    expect(note).toMatch(new RegExp(`<task-id>${AGENT}</task-id>`));
    expect(note).toMatch(new RegExp(`<tool-use-id>${agentCall.id}</tool-use-id>`));
    // the sub-agent ran on after the launch result, and the main agent asked the model meanwhile
    expect(Math.max(...subTimes)).toBeGreaterThan(ms(launched.timestamp));
    expect(ms(notification.timestamp)).toBeGreaterThanOrEqual(Math.max(...subTimes));
  });

  function checkJoined(events: Ev[]) {
    // every model call of both files once, every tool call once
    const responses = events.filter((e) => e.type === "model.response");
    expect(responses.map((e) => e.data.call).sort()).toEqual([...responseIds(main), ...responseIds(sub)].sort());
    const calls = events.filter((e) => e.type === "tool.call");
    expect(calls.map((c) => c.data.call).sort()).toEqual([...toolUses(main), ...toolUses(sub)].map((u) => u.id).sort());

    // the sub-agent's calls under the Agent call's step, within the sub-agent file's times
    const agentStep = events.find((e) => e.type === "step.start" && e.step === `tool-${agentCall.id}`)!;
    const subIds = new Set(responseIds(sub));
    const subUses = new Set(toolUses(sub).map((u) => u.id));
    const subEvents = [...responses.filter((e) => subIds.has(e.data.call!)), ...calls.filter((c) => subUses.has(c.data.call))];
    expect(subEvents).toHaveLength(subIds.size + subUses.size);
    for (const e of subEvents) {
      expect(ancestors(events, e)).toContain(agentStep);
      expect(ms(e.ts)).toBeGreaterThanOrEqual(Math.min(...subTimes));
      expect(ms(e.ts)).toBeLessThanOrEqual(Math.max(...subTimes));
    }
    for (const e of responses.filter((e) => !subIds.has(e.data.call!))) expect(ancestors(events, e)).not.toContain(agentStep);

    // in time order; the Agent step ends after everything under it, at the sub-agent's last line
    for (let i = 1; i < events.length; i++) expect(ms(events[i].ts)).toBeGreaterThanOrEqual(ms(events[i - 1].ts));
    const end = events.find((e) => e.type === "step.end" && e.step === agentStep.step)!;
    expect(ms(end.ts)).toBe(Math.max(...subTimes));
    const under = events.filter((e) => e !== end && ancestors(events, e).includes(agentStep));
    expect(Math.max(...under.map((e) => e.seq))).toBeLessThan(end.seq);
    const subStep = events.find((e) => e.type === "step.start" && e.step === `sidechain-agent-${AGENT}`)!;
    const subEnd = events.find((e) => e.type === "step.end" && e.step === subStep.step)!;
    for (const e of events.filter((e) => e !== subEnd && ancestors(events, e).includes(subStep))) expect(e.seq).toBeLessThan(subEnd.seq);

    // the launch is the call's result, not a failure; the notification is an event input
    const result = events.find((e) => e.type === "tool.result" && e.data.call === agentCall.id)!;
    expect(result.data.status).toBe("ok");
    expect(String(result.data.result)).toMatch(/^Async agent launched/);
    expect(end.data.status).toBe("ok");
    const inputs = events.filter((e) => e.type === "input");
    expect(inputs.filter((e) => e.data.source === "event").map((e) => e.data.content)).toEqual([notification.message.content]);
    expect(events[0].data.input).toBe(main.find((l) => l.type === "user")!.message.content);
  }

  it("the session with its sub-agent's file: one run, the sub-agent's calls under the Agent call", () => {
    const r = importClaudeCode(text(MAIN), {}, [text(SUB)]);
    expect(r.warnings).toEqual([]);
    expect(r.runs.map((x) => x.runId)).toEqual([`claude-${SESSION}`]);
    checkJoined(r.runs[0].events as Ev[]);
  });

  it("a folder and a zip of it join them by content", () => {
    const files = [MAIN, SUB, META].map((name) => ({ name: `p/${name}`, text: text(name) }));
    const r = importSessionFiles(files);
    expect(r.runs.map((x) => x.runId)).toEqual([`claude-${SESSION}`]);
    checkJoined(r.runs[0].events as Ev[]);
    const z = importSessionZip(zipSync(Object.fromEntries(files.map((f) => [f.name, new TextEncoder().encode(f.text)]))));
    expect(z.runs.map((x) => x.runId)).toEqual([`claude-${SESSION}`]);
    checkJoined(z.runs[0].events as Ev[]);
  });

  it("a model call lasts from its api-request line to its response's last line, in each file", () => {
    const r = importClaudeCode(text(MAIN), {}, [text(SUB)]);
    const events = r.runs[0].events as Ev[];
    for (const ls of [main, sub]) {
      // the last call of each file, the one its last api-request line sent
      const id = responseIds(ls).at(-1)!;
      const sent = ms(ls.filter((l) => l.type === "api-request").at(-1)!.timestamp);
      const end = ms(ls.filter((l) => l.type === "assistant" && l.message.id === id).at(-1)!.timestamp);
      const resp = events.find((e) => e.type === "model.response" && e.data.call === id)!;
      expect(resp.data.latencyMs).toBe(end - sent);
    }
  });

  it("the session alone warns that the background sub-agent's transcript is missing", () => {
    const r = importClaudeCode(text(MAIN));
    expect(r.warnings.join("\n")).toContain(`subagents/agent-${AGENT}.jsonl`);
    const events = r.runs[0].events as Ev[];
    expect(events.filter((e) => e.type === "model.response")).toHaveLength(responseIds(main).length);
    const end = events.find((e) => e.type === "step.end" && e.step === `tool-${agentCall.id}`)!;
    expect(end.ts).toBe(launched.timestamp);
  });
});
