/** Pure pieces of the gateway's replay: places, normalisation, rewriting a recorded stream. */
import { describe, expect, it } from "vitest";
import { mapStream, parseSse, CODECS } from "@/lib/gateway";
import { mapPlaces, normaliseRequestBody, placeMap } from "@/lib/playback";

describe("places", () => {
  const map = placeMap({ cwd: "/tmp/rec", home: "/home/a" }, { cwd: "/work/rep", home: "/root" });

  it("maps whole path prefixes only, and Claude Code's project slug of the cwd", () => {
    expect(mapPlaces("write /tmp/rec/out.txt, not /tmp/rec2/x", map)).toBe("write /work/rep/out.txt, not /tmp/rec2/x");
    expect(mapPlaces("/home/a/.claude/projects/-tmp-rec/memory/", map)).toBe("/root/.claude/projects/-work-rep/memory/");
  });
});

describe("normalisation", () => {
  it("masks what Codex and Claude Code change per run, keeps what the agent decided", () => {
    const run = (session: string, date: string, output: string) => ({
      model: "gpt-x",
      prompt_cache_key: session,
      client_metadata: { session_id: session },
      metadata: { user_id: session },
      input: [
        { id: `msg_${session}`, role: "user", content: [{ type: "input_text", text: `<current_date>${date}</current_date>` }] },
        { id: `fco_${session}`, type: "function_call_output", call_id: "call_1", output },
      ],
    });
    const a = normaliseRequestBody(run("s1", "2026-12-07", "Chunk ID: a1b2c3\nWall time: 0.0121 seconds\nok"));
    const b = normaliseRequestBody(run("s2", "2026-12-08", "Chunk ID: ffee00\nWall time: 1.5 seconds\nok"));
    expect(a).toEqual(b);
    const c = normaliseRequestBody(run("s2", "2026-12-08", "Chunk ID: ffee00\nWall time: 1.5 seconds\nfailed"));
    expect(c).not.toEqual(a);
  });

  it("--ignore removes a pointer, --mask masks text", () => {
    const body = { model: "m", temperature: 0.2, messages: [{ role: "user", content: "run 4711" }] };
    expect(normaliseRequestBody(body, { ignore: ["/temperature"], masks: [/\d+/] })).toEqual({
      model: "m",
      messages: [{ role: "user", content: "run <masked>" }],
    });
  });
});

describe("a recorded stream re-sent with the replay's places", () => {
  it("a path cut across two argument deltas is mapped whole, and the client still reads one tool call", () => {
    const chunk = (args: string) => ({
      choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: args } }] }, finish_reason: null }],
    });
    const events = [
      {
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "write_file", arguments: "" } }] },
            finish_reason: null,
          },
        ],
      },
      chunk('{"path":"/tmp/r'),
      chunk('ec/out.txt"}'),
      { choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
    ];
    const text = events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("") + "data: [DONE]\n\n";
    const chunks = [
      { atMs: 0, text: text.slice(0, 100) },
      { atMs: 5, text: text.slice(100) },
    ];
    const map = placeMap({ cwd: "/tmp/rec" }, { cwd: "/srv/replay" });
    const out = mapStream("openai-chat", chunks, (s) => mapPlaces(s, map));
    const answer = CODECS["openai-chat"].parseStream(parseSse(out.map((c) => c.text).join("")));
    expect(answer.toolCalls).toEqual([{ id: "call_1", name: "write_file", args: { path: "/srv/replay/out.txt" } }]);
    expect(answer.finishReason).toBe("tool_calls");
  });

  it("a stream with nothing to map is re-sent as recorded, chunk for chunk", () => {
    const chunks = [{ atMs: 0, text: 'event: message_stop\ndata: {"type":"message_stop"}\n\n' }];
    expect(mapStream("anthropic-messages", chunks, (s) => mapPlaces(s, placeMap({ cwd: "/a/b" }, { cwd: "/c/d" })))).toBe(chunks);
  });
});
