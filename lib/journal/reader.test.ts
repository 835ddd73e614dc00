import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { readJournal, readJournalText, type ReaderLimits } from "./reader";

const EXAMPLES = path.resolve("tests/fixtures/examples");
const line = (o: object) => JSON.stringify(o);
const ev = (seq: number, extra: object = {}) => ({
  run: "r1",
  seq,
  ts: "2026-11-07T11:00:01.026Z",
  type: "note",
  data: { text: "hi" },
  ...extra,
});

async function readBytes(bytes: Uint8Array, chunk = 7, limits?: ReaderLimits) {
  const out = [];
  for await (const item of readJournal(
    (async function* () {
      for (let i = 0; i < bytes.length; i += chunk) yield bytes.subarray(i, i + chunk);
    })(),
    limits,
  ))
    out.push(item);
  return out;
}

describe("readJournal", () => {
  it("reads every example journal without an error", async () => {
    for (const f of fs.readdirSync(EXAMPLES).filter((f) => f.endsWith(".jsonl"))) {
      const r = await readJournalText(fs.readFileSync(path.join(EXAMPLES, f), "utf8"));
      expect(r.errors, f).toEqual([]);
      expect(r.events.length, f).toBeGreaterThan(20);
    }
  });

  it("reads gzip, CRLF and a BOM, split across tiny chunks", async () => {
    const text = "\uFEFF" + [ev(0), ev(1), ev(2)].map(line).join("\r\n") + "\r\n";
    const items = await readBytes(gzipSync(Buffer.from(text)), 5);
    expect(items.map((i) => i.kind)).toEqual(["event", "event", "event"]);
  });

  it("reports invalid UTF-8 with its line number and goes on", async () => {
    const good = Buffer.from(line(ev(0)) + "\n");
    const bad = Buffer.concat([
      Buffer.from('{"run":"r1","seq":1,"ts":"2026-11-07T11:00:01.026Z","type":"note","data":{"text":"'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}}\n'),
    ]);
    const items = await readBytes(Buffer.concat([good, bad, good]));
    expect(items[1]).toMatchObject({ kind: "error", line: 2, message: "line is not valid UTF-8" });
    expect(items[2]).toMatchObject({ kind: "event", line: 3 });
  });

  it("skips an over-long line without holding it and reports its size", async () => {
    const huge = line(ev(1, { data: { text: "x".repeat(20 * 1024 * 1024) } }));
    const text = [line(ev(0)), huge, line(ev(2))].join("\n");
    const items = [];
    for await (const item of readJournal(
      (async function* () {
        const b = Buffer.from(text);
        for (let i = 0; i < b.length; i += 65536) yield b.subarray(i, i + 65536);
      })(),
      { maxDepth: 128, maxLineBytes: 1024 * 1024 },
    ))
      items.push(item);
    expect(items.map((i) => i.kind)).toEqual(["event", "error", "event"]);
    expect(items[1]).toMatchObject({ line: 2 });
    expect((items[1] as { message: string }).message).toMatch(/over the 1048576-byte limit/);
  });

  it("keeps integers beyond 2^53 exact and refuses them as seq", async () => {
    const r = await readJournalText(
      [
        line(ev(0)).replace('"hi"', '"hi","id":12345678901234567891'),
        '{"run":"r1","seq":9007199254740993,"ts":"2026-11-07T11:00:01.026Z","type":"note","data":{"text":"x"}}',
      ].join("\n"),
    );
    expect(r.events[0].data.id).toBe(12345678901234567891n);
    expect(r.errors[0]).toMatchObject({ line: 2 });
    expect(r.errors[0].message).toMatch(/beyond 2\^53/);
  });

  it("refuses 10,000-deep nesting with the line, and reads a __proto__ key as data", async () => {
    const deep =
      '{"run":"r1","seq":1,"ts":"2026-11-07T11:00:01.026Z","type":"note","data":{"text":"x","d":' +
      "[".repeat(10000) +
      "]".repeat(10000) +
      "}}";
    const proto = '{"run":"r1","seq":2,"ts":"2026-11-07T11:00:01.026Z","type":"note","data":{"text":"x","__proto__":{"polluted":true}}}';
    const r = await readJournalText([line(ev(0)), deep, proto].join("\n"));
    expect(r.errors.map((e) => [e.line, /nesting deeper/.test(e.message)])).toEqual([[2, true]]);
    expect(Object.keys(r.events[1].data)).toEqual(["text", "__proto__"]);
    expect(Object.getPrototypeOf(r.events[1].data)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("checks an event's data when the fast path refuses it (a wrong type in optional data was accepted)", async () => {
    const r = await readJournalText(
      [
        line({ ...ev(0), type: "run.start", data: { workflow: 1.5 } }),
        line({ ...ev(1), type: "run.start", data: { workflow: { name: "w" } } }),
      ].join("\n"),
    );
    expect(r.errors.map((e) => e.line)).toEqual([1]);
    expect(r.errors[0].message).toMatch(/^run\.start: data\.workflow/);
    expect(r.events.map((e) => e.seq)).toEqual([1]);
  });

  it("names the field of a wrong type and a truncated line", async () => {
    const r = await readJournalText(
      [
        line({ ...ev(0), ts: 12 }),
        line({ ...ev(1), type: "tool.result", data: { call: "c", status: "maybe" } }),
        '{"run":"r1","seq":2,"ts":"2026-',
      ].join("\n"),
    );
    expect(r.errors.map((e) => e.line)).toEqual([1, 2, 3]);
    expect(r.errors[0].message).toMatch(/^ts: /);
    expect(r.errors[1].message).toMatch(/data\.status/);
    expect(r.errors[2].message).toMatch(/truncated/);
  });

  it("reads the same items whatever the chunking: unicode, CRLF, BOM, blank, invalid and over-long lines", async () => {
    const parts: Uint8Array[] = [
      Buffer.from("\uFEFF" + line(ev(0)) + "\r\n"),
      Buffer.from(line(ev(1, { data: { text: "ünïcødé ☃ 😀 ‮rtl" } })) + "\n\n"),
      Buffer.concat([
        Buffer.from('{"run":"r1","seq":2,"ts":"2026-11-07T11:00:01.026Z","type":"note","data":{"text":"'),
        Buffer.from([0xc3, 0x28]),
        Buffer.from('"}}\n'),
      ]),
      Buffer.from(line(ev(3, { data: { text: "é".repeat(300) } })) + "\n"),
      Buffer.from(line(ev(4)) + "\r\n   \n"),
      Buffer.from(line(ev(5, { data: { text: "x".repeat(2000) } })) + "\n"),
      Buffer.from(line(ev(6))),
    ];
    const bytes = Buffer.concat(parts);
    const limits = { maxDepth: 128, maxLineBytes: 1500 };
    const read = (chunk: number) => readBytes(bytes, chunk, limits);
    const whole = await read(bytes.length);
    expect(whole.map((i) => [i.line, i.kind])).toEqual([
      [1, "event"],
      [2, "event"],
      [4, "error"],
      [5, "event"],
      [6, "event"],
      [8, "error"],
      [9, "event"],
    ]);
    // each event's byte count is its line's as sent (a CR and the BOM count, the LF does not)
    const events = whole.filter((i) => i.kind === "event");
    expect(events.map((i) => i.bytes)).toEqual([
      parts[0].length - 1,
      parts[1].length - 2,
      parts[3].length - 1,
      parts[4].length - 5,
      parts[6].length,
    ]);
    expect(whole[2]).toMatchObject({ message: "line is not valid UTF-8" });
    expect(whole[5]).toMatchObject({ message: `line is ${parts[5].length - 1} bytes, over the 1500-byte limit` });
    for (const chunk of [1, 2, 3, 7, 64, 333, 1024, 4096]) expect(await read(chunk), `chunks of ${chunk}`).toEqual(whole);
    // without the invalid line, big chunks decode their lines at once: same items again
    const valid = Buffer.concat(parts.filter((_, i) => i !== 2));
    const readValid = (chunk: number) => readBytes(valid, chunk, limits);
    const wholeValid = await readValid(valid.length);
    expect(wholeValid.filter((i) => i.kind === "event").map((i) => i.bytes)).toEqual(events.map((i) => i.bytes));
    for (const chunk of [1, 7, 333, 4096]) expect(await readValid(chunk), `chunks of ${chunk}`).toEqual(wholeValid);
  });
});
