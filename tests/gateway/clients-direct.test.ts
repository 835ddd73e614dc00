// The real agent CLIs (packages/test-clients) run offline against the fake upstreams, with
// no gateway: the baseline the record/replay tests build on. Each writes out.txt through
// its own tool because the scripted model asked it to.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import {
  FILE_TEXT,
  FINAL_TEXT,
  claudeCommand,
  claudeEnv,
  claudeScript,
  codexCommand,
  codexEnv,
  codexScript,
  freshDirs,
  run,
} from "./agents.ts";
import { startFake, withoutTools } from "./fakes/index.ts";

type Body = Record<string, unknown> & { tools?: Array<{ name?: string }> };

describe("Claude Code 2.1 against the fake Anthropic API", () => {
  it("writes the file the model asked for with its Write tool and sends the result back", async () => {
    const { work, home } = freshDirs(inject("tmpDir"), "claude-direct");
    const fake = await startFake("anthropic", claudeScript(work), { isSide: withoutTools });
    try {
      const result = await run(claudeCommand(), { cwd: work, env: claudeEnv(home, fake.url) });
      expect(result.status, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ is_error: false, result: FINAL_TEXT });
      expect(fs.readFileSync(path.join(work, "out.txt"), "utf8")).toBe(FILE_TEXT);

      const model = fake.requests.filter((r) => r.method === "POST" && r.path.startsWith("/v1/messages"));
      expect(model.map((r) => r.path)).toEqual(["/v1/messages?beta=true", "/v1/messages?beta=true"]);
      for (const r of model) {
        const body = r.body as Body;
        expect(body.stream).toBe(true);
        expect(body.tools?.map((t) => t.name)).toContain("Write");
        expect(r.headers["x-api-key"]).toBe("sk-ant-test-fake-key");
      }
      const [firstAnswerToolId] = JSON.stringify(model[1].body).match(/toolu_fake_\d+/) ?? [];
      expect(firstAnswerToolId).toBeDefined();
      expect(JSON.stringify(model[1].body)).toContain(`"tool_use_id":"${firstAnswerToolId}"`);
    } finally {
      await fake.close();
    }
  });
});

describe("Codex CLI 0.171 against the fake OpenAI Responses API", () => {
  it("writes the file the model asked for with its shell tool and sends the output back", async () => {
    const { work, home } = freshDirs(inject("tmpDir"), "codex-direct");
    const fake = await startFake("openai", codexScript(work));
    try {
      const port = Number(new URL(fake.url).port);
      const result = await run(codexCommand(), { cwd: work, env: codexEnv(home, port) });
      expect(result.status, result.stderr).toBe(0);
      const events = result.stdout
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { type: string; item?: { type: string; text?: string } });
      expect(events.some((e) => e.item?.type === "agent_message" && e.item.text === FINAL_TEXT)).toBe(true);
      expect(fs.readFileSync(path.join(work, "out.txt"), "utf8")).toBe(FILE_TEXT);

      expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /v1/responses", "POST /v1/responses"]);
      const second = fake.requests[1].body as { input: Array<{ type: string; call_id?: string }> };
      const call = second.input.find((i) => i.type === "function_call");
      const output = second.input.find((i) => i.type === "function_call_output");
      expect(call?.call_id).toMatch(/^call_fake_/);
      expect(output?.call_id).toBe(call?.call_id);
      expect(fake.requests[0].headers.authorization).toBe("Bearer sk-test-fake-key");
    } finally {
      await fake.close();
    }
  });
});
