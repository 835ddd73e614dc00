/**
 * A converted event goes to ingest as the reader item its canonical NDJSON line would have
 * given (lib/journal/event-items.ts), without the line: same value, byte count, secret
 * hint, sorted-keys flag and stored text, and the same error for what the reader refuses.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/canonical";
import { eventItem } from "@/lib/journal/event-items";
import { DEFAULT_READER_LIMITS, readJournal, type ReaderItem, type ReaderLimits } from "@/lib/journal/reader";
import type { JournalEvent } from "@/lib/journal/types";
import { testRuns, testSeed } from "../replay/seeds";

async function viaLine(event: unknown, limits: ReaderLimits): Promise<ReaderItem[]> {
  const bytes = new TextEncoder().encode(canonicalJson(event) + "\n");
  const out: ReaderItem[] = [];
  for await (const item of readJournal(
    (async function* () {
      yield bytes;
    })(),
    limits,
  ))
    out.push(item);
  return out;
}

/** The item with its event as exact text in enumeration order (toEqual ignores key order). */
const shape = (item: ReaderItem) =>
  item.kind === "event" ? { ...item, event: JSON.stringify(item.event, (_k, v: unknown) => (typeof v === "bigint" ? `${v}n` : v)) } : item;

async function same(event: unknown, limits: ReaderLimits = DEFAULT_READER_LIMITS) {
  const expected = await viaLine(event, limits);
  expect(expected).toHaveLength(1);
  const got = eventItem(event as JournalEvent, 1, limits);
  expect(shape(got)).toEqual(shape(expected[0]));
  // toEqual tells a bigint from a number and -0 from 0
  if (got.kind === "event" && expected[0].kind === "event") expect(got.event).toEqual(expected[0].event);
  return got;
}

const base = { run: "r-1", seq: 0, ts: "2026-11-07T11:00:00.000Z", type: "note" };

describe("eventItem gives what the reader gives for the event's canonical line", () => {
  it("values JSON does not keep: undefined, -0, small and big bigints, unsafe numbers, integer-like keys", async () => {
    const item = await same({
      ...base,
      data: {
        text: "größe 😀",
        gone: undefined,
        list: [undefined, -0, 1.5, 7n, 2n ** 70n, 2 ** 60, 1e21],
        "10": "a",
        "9": "b",
        nested: { z: 1, a: { y: [{}], b: null } },
      },
    });
    expect(item).toMatchObject({ kind: "event", keysSorted: false, text: null });
  });

  it("a plain event: sorted keys, its canonical text, the secret hint from the text", async () => {
    const item = await same({ ...base, data: { text: "token sk-live-0123456789abcdef0123456789" } });
    expect(item).toMatchObject({ kind: "event", keysSorted: true, mayHoldSecret: true });
    expect(await same({ ...base, data: { text: "t", apiKey: "hunter2" } })).toMatchObject({ mayHoldSecret: true });
  });

  it("refuses what the reader refuses, with its message: a line over the limit, depth, a bad field; reads __proto__ as data", async () => {
    expect(await same({ ...base, data: { text: "x".repeat(5000) } }, { ...DEFAULT_READER_LIMITS, maxLineBytes: 4096 })).toMatchObject({
      kind: "error",
    });
    let deep: unknown = 1;
    for (let i = 0; i < 130; i++) deep = [deep];
    expect(await same({ ...base, data: { deep } })).toMatchObject({ kind: "error", run: "r-1", seq: 0 });
    const proto = JSON.parse(
      `{"run":"r-1","seq":0,"ts":"2026-11-07T11:00:00.000Z","type":"note","data":{"text":"t","__proto__":{"x":1}}}`,
    ) as unknown;
    expect(await same(proto)).toMatchObject({ kind: "event", event: { data: JSON.parse(`{"text":"t","__proto__":{"x":1}}`) as unknown } });
    expect(await same({ ...base, ts: "yesterday" })).toMatchObject({ kind: "error", run: "r-1" });
    expect(await same({ ...base, seq: 2n ** 60n })).toMatchObject({ kind: "error" });
  });

  it("on generated data (seeded)", async () => {
    const seed = testSeed("eventItem = reader of the canonical line");
    const leaf = fc.oneof(
      fc.string(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer(),
      fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.constant(-0),
    );
    const value = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: "small" }, leaf, fc.array(tie("v"), { maxLength: 4 }), fc.dictionary(fc.string(), tie("v"), { maxKeys: 4 })),
    })).v;
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.string(), value, { maxKeys: 6 }),
        fc.constantFrom("note", "step.start", "x.custom"),
        async (data, type) => {
          await same({ ...base, type, data });
        },
      ),
      { seed, numRuns: testRuns(300) },
    );
  });
});
