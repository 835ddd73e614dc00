/**
 * The line formats (Claude Code, Codex, Gemini CLI, Qwen Code, Copilot CLI) read from a byte stream line by
 * line (lib/importers/stream/json-lines.ts), and OpenHands evaluation output converted a line
 * at a time as its runs are asked for, give what the whole-text path gives, on every real
 * session in the fixtures however the bytes are cut, and on the awkward files: a document
 * instead of lines (Gemini CLI's legacy .json), one line only, a line cut at the end, broken
 * lines, CRLF, a BOM, multi-byte characters split across chunks, no session id (the run id
 * is then the content's hash, which the stream computes on the way).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/canonical";
import { importTrace, importTraceStream, importTraceStreamWhole, LAZY_FORMATS, LINE_FORMATS, type ImportResult } from "@/lib/importers";
import { detectFormat, STREAM_HEAD_BYTES } from "@/lib/importers/detect";
import { readJsonLines } from "@/lib/importers/stream/json-lines";

const FIXTURES = path.resolve(__dirname, "../fixtures");
const encoder = new TextEncoder();

async function* chunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, Math.min(bytes.length, i + size));
}
const canon = (r: ImportResult) => canonicalJson({ format: r.format, runs: r.runs, warnings: r.warnings });
const streamed = (bytes: Uint8Array, size: number, fileName: string) => importTraceStreamWhole(chunks(bytes, size), { fileName });
const whole = (bytes: Uint8Array, fileName: string) => importTrace(new TextDecoder().decode(bytes), { fileName });

/** Every fixture whose detected format is read line by line, found by detection so new samples are covered. */
const LINE_FILES = readdirSync(FIXTURES, { recursive: true, encoding: "utf8" })
  .filter((f) => /\.jsonl?$/.test(f))
  .map((f) => ({ rel: f, bytes: new Uint8Array(readFileSync(path.join(FIXTURES, f))) }))
  .map((f) => ({ ...f, format: detectFormat(new TextDecoder().decode(f.bytes), f.rel).format }))
  .filter((f) => LINE_FORMATS.has(f.format) || LAZY_FORMATS.has(f.format))
  .sort((a, b) => a.rel.localeCompare(b.rel));

describe("line formats read line by line: same output as the whole text", () => {
  it("covers every line format with real sessions", () => {
    const formats = new Set(LINE_FILES.map((f) => f.format));
    for (const f of ["claude-code", "codex", "gemini-cli", "qwen-code", "copilot-cli", "openhands-eval"] as const)
      expect(formats).toContain(f);
    expect(LINE_FILES.length).toBeGreaterThanOrEqual(10);
  });

  for (const file of LINE_FILES) {
    it(`${file.rel} (${file.format}): same runs, events and warnings for any chunking`, async () => {
      const expected = canon(whole(file.bytes, file.rel));
      for (const size of [1 << 20, 4096, 977, 7]) {
        expect(canon(await streamed(file.bytes, size, file.rel)), `chunks of ${size} bytes`).toBe(expected);
      }
    });
  }

  const session = (lines: unknown[]) => lines.map((l) => JSON.stringify(l)).join("\n");
  const user = (uuid: string, parent: string | null, text: string, extra: object = {}) => ({
    type: "user",
    uuid,
    parentUuid: parent,
    timestamp: "2026-12-01T10:00:00.000Z",
    message: { role: "user", content: text },
    ...extra,
  });
  const assistant = (uuid: string, parent: string, text: string) => ({
    type: "assistant",
    uuid,
    parentUuid: parent,
    timestamp: "2026-12-01T10:00:01.500Z",
    message: {
      id: "msg_1",
      role: "assistant",
      model: "claude-x",
      content: [{ type: "text", text }],
      usage: { input_tokens: 3, output_tokens: 2 },
    },
  });

  const awkward: Array<[string, string]> = [
    [
      "CRLF, a BOM, multi-byte characters and a line cut at the end",
      "\uFEFF" +
        session([user("u1", null, "héllo 👋 ünïcode", { sessionId: "s-0" }), assistant("a1", "u1", "ok ✓")]).replace(/\n/g, "\r\n") +
        '\r\n{"type":"user","uu',
    ],
    [
      "broken lines in the middle",
      [JSON.stringify(user("u1", null, "a", { sessionId: "s-1" })), "not json", "[1,2]", JSON.stringify(assistant("a1", "u1", "b"))].join(
        "\n",
      ),
    ],
    [
      "blank lines before and between",
      "\n\n" + JSON.stringify(user("u1", null, "x", { sessionId: "s-3" })) + "\n\n\n" + JSON.stringify(assistant("a1", "u1", "y")) + "\n",
    ],
  ];
  for (const [name, text] of awkward) {
    it(`Claude Code, ${name}`, async () => {
      const bytes = encoder.encode(text);
      const expected = whole(bytes, "s.jsonl");
      expect(expected.format).toBe("claude-code");
      for (const size of [1 << 16, 5, 3, 1])
        expect(canon(await streamed(bytes, size, "s.jsonl")), `chunks of ${size}`).toBe(canon(expected));
    });
  }

  const codex = (type: string, payload: object) => ({ timestamp: "2026-12-01T10:00:00.000Z", type, payload });
  it("hashes the text for a session without an id: the run id is the SHA-256 of the content, as node computes it", async () => {
    const text =
      session([
        codex("session_meta", { cwd: "/tmp", cli_version: "0.58.0" }),
        codex("response_item", { type: "message", role: "user", content: [{ type: "input_text", text: "no id here ✓" }] }),
        codex("response_item", { type: "message", role: "assistant", content: [{ type: "output_text", text: "fine" }] }),
      ]) + "\n";
    const bytes = encoder.encode("\uFEFF" + text);
    const read = await readJsonLines(chunks(bytes, 3));
    if (!("lines" in read)) throw new Error("read as a document");
    expect(read.lines.records).toHaveLength(3);
    expect(read.lines.contentId()).toBe(createHash("sha256").update(text, "utf8").digest("hex").slice(0, 16));
    const expected = whole(bytes, "rollout.jsonl");
    expect(expected.format).toBe("codex");
    expect(expected.runs[0].runId).toBe(`codex-${read.lines.contentId()}`);
    expect(canon(await streamed(bytes, 4, "rollout.jsonl"))).toBe(canon(expected));
  });

  it("one line only is read as the whole-text path reads it", async () => {
    const bytes = encoder.encode(JSON.stringify(codex("session_meta", { id: "one-line" })) + "\n");
    const read = await readJsonLines(chunks(bytes, 5));
    expect("text" in read).toBe(true);
    const expected = whole(bytes, "rollout.jsonl");
    expect(canon(await streamed(bytes, 5, "rollout.jsonl"))).toBe(canon(expected));
  });

  it("a pretty-printed document (Gemini CLI's legacy .json) is kept as text and read whole", async () => {
    const doc = readdirSync(path.join(FIXTURES, "agent-cli")).find((f) => f.startsWith("gemini-cli") && f.endsWith(".json"));
    expect(doc).toBeDefined();
    const bytes = new Uint8Array(readFileSync(path.join(FIXTURES, "agent-cli", doc!)));
    const read = await readJsonLines(chunks(bytes, 100));
    expect("text" in read && read.text).toBe(new TextDecoder().decode(bytes).replace(/^\uFEFF/, ""));
    expect(canon(await streamed(bytes, 100, doc!))).toBe(canon(whole(bytes, doc!)));
  });
});

describe("OpenHands evaluation output, a line at a time", () => {
  const rel = "corpus/openhands-eval/openhands-benchmarks-openagentsafety-gpt-4o-v1sdk.output.jsonl";
  const line = readFileSync(path.join(FIXTURES, rel), "utf8").split("\n")[0];

  it("reads the file only as far as the runs asked for (after the detection head)", async () => {
    let pulled = 0;
    // 20 instances (each line made distinct), then a broken line
    const lines = Array.from({ length: 20 }, (_, i) => line.replace('"instance_id"', `"copy":${i},"instance_id"`));
    const bytes = encoder.encode(lines.join("\n") + "\nnot json\n");
    expect(bytes.length).toBeGreaterThan(2 * STREAM_HEAD_BYTES);
    async function* counted(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < bytes.length; i += 1024) {
        pulled = Math.min(bytes.length, i + 1024);
        yield bytes.subarray(i, pulled);
      }
    }
    const s = await importTraceStream(counted(), { fileName: "output.jsonl" });
    expect(s.format).toBe("openhands-eval");
    const runs = s.runs()[Symbol.asyncIterator]();
    const first = await runs.next();
    expect(first.done).toBe(false);
    // the detection head, then at most the next line: the rest of the file is still unread
    expect(pulled).toBeLessThanOrEqual(STREAM_HEAD_BYTES + line.length + 2048);
    const ids = [first.value!.runId];
    for (let r = await runs.next(); !r.done; r = await runs.next()) ids.push(r.value.runId);
    expect(pulled).toBe(bytes.length);
    expect(s.warnings.join("\n")).toMatch(/1 line\(s\) are not JSON objects and were skipped \(the first is line 21\)/);
    const expected = whole(bytes, "output.jsonl");
    expect(ids).toHaveLength(20);
    expect(ids).toEqual(expected.runs.map((r) => r.runId));
    expect(s.warnings).toEqual(expected.warnings);
  });
});

describe("a session whose first prompt is longer than the detection head", () => {
  // a real Claude Code 2.1 session whose first prompt is a pasted 400 KB log (a screenshot does the same)
  const lines = readFileSync(path.join(FIXTURES, "agent-cli/claude-code-2.1.337-session.jsonl"), "utf8").split("\n");
  const at = lines.findIndex((l) => l.includes('"type":"user"'));
  const first = JSON.parse(lines[at]) as { message: { content: unknown } };
  const paste = `Here is the log:\n${"2026-12-01 10:00:00 INFO request served\n".repeat(10_000)}`;
  first.message.content = paste;
  lines[at] = JSON.stringify(first);
  const text = lines.join("\n");
  const bytes = encoder.encode(text);

  it("is still told by its content, whole and streamed, and imports with the paste as its input", async () => {
    expect(lines.slice(0, at + 1).join("\n").length).toBeGreaterThan(STREAM_HEAD_BYTES);
    const expected = whole(bytes, "session.jsonl");
    expect(expected.format).toBe("claude-code");
    const input = expected.runs[0].events.find((e) => e.type === "input");
    expect(input?.data.content).toBe(paste);
    expect(canon(await streamed(bytes, 64 * 1024, "session.jsonl"))).toBe(canon(expected));
  });

  it("a file that is not a line format still gets one clear error after reading further", async () => {
    const doc = encoder.encode(`{"what": ${JSON.stringify("x".repeat(STREAM_HEAD_BYTES + 10))}, "else": 1}\n{"b": 2}\n`);
    await expect(streamed(doc, 64 * 1024, "x.jsonl")).rejects.toThrow(
      /not recognised: it looks like NDJSON whose lines have keys what, else, b/,
    );
  });
});
