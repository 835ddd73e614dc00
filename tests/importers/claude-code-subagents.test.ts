/**
 * Claude Code 2.1.337 with a sub-agent (tests/fixtures/agent-cli/claude-code-2.1.337-subagent,
 * recorded by the real CLI): the session file and the sub-agent's own file
 * `<sessionId>/subagents/agent-<agentId>.jsonl`. Together (a folder, a zip) they are one run
 * with the sub-agent's calls under the `Agent` call; each alone imports with a warning, the
 * sub-agent under an id of its own. Counts come from the files with plain JSON reading.
 */
import path from "node:path";
import { zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { importClaudeCode } from "@/lib/importers/claude-code";
import { detectFormat } from "@/lib/importers/detect";
import { importSessionFiles, importSessionZip } from "@/lib/importers/folder";
import { ancestors, blocks, responseIds, sessionFolder, toolUses, type Ev, type Line } from "./claude-session-files";

const DIR = "tests/fixtures/agent-cli/claude-code-2.1.337-subagent";
const SESSION = "5d111294-64c9-4a08-a928-b587069ec457";
const AGENT = "a9b27a7e8deafe59d";
const MAIN = `${SESSION}.jsonl`;
const SUB = `${SESSION}/subagents/agent-${AGENT}.jsonl`;

const { text, lines } = sessionFolder(DIR);
const responses = (ls: Line[]) => responseIds(ls).length;

const main = lines(MAIN);
const sub = lines(SUB);
// the session's Agent call and the agentId its result names (from the file)
const agentCall = toolUses(main).find((u) => u.name === "Agent")!;
const agentResult = main.find((l) => l.type === "user" && l.toolUseResult?.agentId !== undefined)!;

describe("Claude Code 2.1.337: a session with a sub-agent's transcript in a file of its own", () => {
  it("the files link by agentId: the Agent call's result names the sub-agent whose lines carry it", () => {
    expect(agentResult.toolUseResult?.agentId).toBe(AGENT);
    expect(blocks(agentResult)[0].tool_use_id).toBe(agentCall.id);
    expect(
      new Set(sub.filter((l) => l.type === "user" || l.type === "assistant").map((l) => [l.agentId, l.isSidechain, l.sessionId].join())),
    ).toEqual(new Set([`${AGENT},true,${SESSION}`]));
    expect(main.some((l) => l.isSidechain === true)).toBe(false);
  });

  it("both files are told as Claude Code sessions by their content; the sub-agent's meta.json by nothing", () => {
    expect(detectFormat(text(MAIN), "s.jsonl").format).toBe("claude-code");
    expect(detectFormat(text(SUB), "s.jsonl").format).toBe("claude-code");
    expect(detectFormat(text(`${SESSION}/subagents/agent-${AGENT}.meta.json`), "upload.json").format).toBe("unknown");
  });

  function checkJoined(events: Ev[]) {
    const responsesIn = events.filter((e) => e.type === "model.response");
    expect(responsesIn).toHaveLength(responses(main) + responses(sub));
    const calls = events.filter((e) => e.type === "tool.call");
    expect(calls.map((c) => c.data.call).sort()).toEqual([...toolUses(main), ...toolUses(sub)].map((u) => u.id).sort());
    // every model call and tool call of the sub-agent's file sits under the Agent call's step
    const agentStep = events.find((e) => e.type === "step.start" && e.step === `tool-${agentCall.id}`)!;
    const subIds = new Set(sub.filter((l) => l.type === "assistant").map((l) => l.message.id));
    const subEvents = [
      ...responsesIn.filter((e) => subIds.has(e.data.call ?? "")),
      ...calls.filter((c) => toolUses(sub).some((u) => u.id === c.data.call)),
    ];
    expect(subEvents).toHaveLength(responses(sub) + toolUses(sub).length);
    for (const e of subEvents) expect(ancestors(events, e)).toContain(agentStep);
    // the session's own calls are not under it
    for (const e of responsesIn.filter((e) => !subIds.has(e.data.call ?? ""))) expect(ancestors(events, e)).not.toContain(agentStep);
  }

  it("the session with its sub-agent's file: one run claude-<sessionId>, the sub-agent's calls under the Agent call", () => {
    const r = importClaudeCode(text(MAIN), {}, [text(SUB)]);
    expect(r.warnings).toEqual([]);
    expect(r.runs.map((x) => x.runId)).toEqual([`claude-${SESSION}`]);
    checkJoined(r.runs[0].events as Ev[]);
  });

  it("a sub-agent's model call lasts from its api-request line to its response's last line", () => {
    const r = importClaudeCode(text(MAIN), {}, [text(SUB)]);
    const firstId = sub.find((l) => l.type === "assistant")!.message.id;
    const sent = Date.parse(sub.find((l) => l.type === "api-request")!.timestamp ?? "");
    const end = Date.parse(sub.filter((l) => l.message?.id === firstId).pop()!.timestamp ?? "");
    const resp = (r.runs[0].events as Ev[]).find((e) => e.type === "model.response" && e.data.call === firstId)!;
    expect(resp.data.latencyMs).toBe(end - sent);
  });

  it("a folder (and a zip of it) joins them by content, whatever the paths", () => {
    const files = [
      { name: `p/${MAIN}`, text: text(MAIN) },
      { name: `elsewhere/${path.basename(SUB)}`, text: text(SUB) },
      { name: `p/${SESSION}/subagents/agent-${AGENT}.meta.json`, text: text(`${SESSION}/subagents/agent-${AGENT}.meta.json`) },
    ];
    const r = importSessionFiles(files);
    expect(r.runs.map((x) => x.runId)).toEqual([`claude-${SESSION}`]);
    checkJoined(r.runs[0].events as Ev[]);
    const zip = zipSync(Object.fromEntries(files.map((f) => [f.name, new TextEncoder().encode(f.text)])));
    const z = importSessionZip(zip);
    expect(z.runs.map((x) => x.runId)).toEqual([`claude-${SESSION}`]);
    checkJoined(z.runs[0].events as Ev[]);
  });

  it("the sub-agent's file alone: a run of its own, claude-<sessionId>-agent-<agentId>, with a warning", () => {
    for (const r of [importClaudeCode(text(SUB)), importSessionFiles([{ name: SUB, text: text(SUB) }])]) {
      expect(r.runs.map((x) => x.runId)).toEqual([`claude-${SESSION}-agent-${AGENT}`]);
      expect(r.warnings.join("\n")).toMatch(new RegExp(`sub-agent ${AGENT} without its parent session ${SESSION}`));
      const events = r.runs[0].events as Ev[];
      expect(events.filter((e) => e.type === "model.response")).toHaveLength(responses(sub));
      expect(events.filter((e) => e.type === "tool.call")).toHaveLength(toolUses(sub).length);
      expect(events.find((e) => e.type === "run.start")?.data.input).toBe(sub[0].message.content);
    }
  });

  it("the session alone: as before, with a warning naming the sub-agent's missing transcript", () => {
    const r = importClaudeCode(text(MAIN));
    expect(r.runs.map((x) => x.runId)).toEqual([`claude-${SESSION}`]);
    expect(r.warnings.join("\n")).toContain(`subagents/agent-${AGENT}.jsonl`);
    const events = r.runs[0].events as Ev[];
    expect(events.filter((e) => e.type === "model.response")).toHaveLength(responses(main));
    expect(events.filter((e) => e.type === "tool.call")).toHaveLength(toolUses(main).length);
  });
});
