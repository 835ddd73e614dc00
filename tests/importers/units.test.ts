/** The small exact pieces of the importers: ids, times, JSON in strings, ordering. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/canonical";
import { spansToRuns, type Attributes, type NormalizedSpan } from "@/lib/importers";
import { JournalBuilder } from "@/lib/importers/builder";
import { decodeJsonString, idToHex, isoToNanos, makeRunId, nanosToIso } from "@/lib/importers/json-utils";
import { parseLine } from "@/lib/journal/parse-line";

describe("idToHex", () => {
  it("normalises hex, base64, decimal and 0x ids to lowercase hex", () => {
    expect(idToHex("5B8EFFF798038103D269B633813FC60C", 16)).toBe("5b8efff798038103d269b633813fc60c");
    expect(idToHex("tH12H+eb6IruQTQs3VJyaA==", 16)).toBe("b47d761fe79be88aee41342cdd527268");
    expect(idToHex("ziprJqtLsl8=", 8)).toBe("ce2a6b26ab4bb25f");
    expect(idToHex(12253070288137891175n, 8)).toBe("aa0ba681ec5a2d67");
    expect(idToHex("12253070288137891175", 8)).toBe("aa0ba681ec5a2d67");
    expect(idToHex(255, 8)).toBe("00000000000000ff");
    expect(idToHex("0x5b8aa5a2d2c872e8321cf37308d69df2", 16)).toBe("5b8aa5a2d2c872e8321cf37308d69df2");
    expect(idToHex(new Uint8Array([1, 2, 255]), 8)).toBe("0102ff");
  });

  it("treats empty and all-zero ids as no id (OTLP roots)", () => {
    expect(idToHex("", 8)).toBeUndefined();
    expect(idToHex("0000000000000000", 8)).toBeUndefined();
    expect(idToHex("AAAAAAAAAAA=", 8)).toBeUndefined();
    expect(idToHex(null, 8)).toBeUndefined();
  });
});

describe("times", () => {
  it("reads ISO times with offsets and microseconds exactly, and zone-less times as UTC", () => {
    expect(isoToNanos("2025-05-12T20:27:36.997226-04:00")).toBe(1747096056997226000n);
    expect(isoToNanos("2025-01-20T20:29:13.519638")).toBe(1737404953519638000n);
    expect(isoToNanos("2025-09-18T20:19:56.948Z")).toBe(1758226796948000000n);
    expect(isoToNanos("not a time")).toBeUndefined();
  });

  it("writes RFC 3339 UTC with milliseconds, flooring the nanoseconds", () => {
    expect(nanosToIso(1777555053780274700n)).toBe("2026-04-30T13:17:33.780Z");
    expect(nanosToIso(0n)).toBe("1970-01-01T00:00:00.000Z");
  });
});

describe("decodeJsonString", () => {
  it("decodes JSON inside a string, also when encoded twice", () => {
    expect(decodeJsonString('{"a":1}')).toEqual({ a: 1 });
    expect(decodeJsonString(JSON.stringify(JSON.stringify({ a: [1, 2] })))).toEqual({ a: [1, 2] });
  });

  it("keeps text that only looks like a number or is not JSON", () => {
    expect(decodeJsonString("2025")).toBe("2025");
    expect(decodeJsonString("true")).toBe("true");
    expect(decodeJsonString("{not json")).toBe("{not json");
    expect(decodeJsonString("None")).toBe("None");
  });

  it("keeps integers beyond 2^53 exact", () => {
    expect(decodeJsonString('{"id": 12253070288137891175}')).toEqual({ id: 12253070288137891175n });
  });
});

describe("makeRunId", () => {
  it("keeps to the run id alphabet and 128 characters", () => {
    expect(makeRunId("swe", "a b/c")).toBe("swe-a_b_c");
    const long = makeRunId("x", "y".repeat(300));
    expect(long).toHaveLength(128);
    expect(long).toMatch(/^[A-Za-z0-9._:-]+$/);
    expect(makeRunId("x", "y".repeat(300))).toBe(long);
    expect(makeRunId("x", "y".repeat(299) + "z")).not.toBe(long);
  });
});

describe("JournalBuilder", () => {
  it("keeps a child whose clock runs early after its parent's step.start", () => {
    const b = new JournalBuilder();
    b.add({ t: 2_000_000n, type: "step.start", step: "p", key: "s:p", data: { name: "parent" } });
    // The child's service clock is 1 ms behind.
    b.add({ t: 1_000_000n, type: "step.start", step: "c", key: "s:c", parentKey: "s:p", after: "s:p", data: { name: "child" } });
    b.add({ t: 1_500_000n, type: "note", step: "c", parentKey: "s:c", after: "s:c", data: { text: "inside" } });
    const events = b.build({ runId: "r", start: { data: {} }, end: { data: { status: "succeeded" } } });
    expect(events.map((e) => [e.seq, e.type, e.step, e.parent])).toEqual([
      [0, "run.start", undefined, undefined],
      [1, "step.start", "p", undefined],
      [2, "step.start", "c", 1],
      [3, "note", "c", 2],
      [4, "run.end", undefined, undefined],
    ]);
    expect(events[0].ts).toBe("1970-01-01T00:00:00.001Z");
  });
});

describe("spansToRuns on random span trees (fast-check, seed 20261129)", () => {
  const spanArb = fc.array(
    fc.record({
      parent: fc.nat({ max: 40 }),
      start: fc.bigInt({ min: 1_700_000_000_000_000_000n, max: 1_700_000_000_100_000_000n }),
      dur: fc.bigInt({ min: 0n, max: 50_000_000n }),
      role: fc.constantFrom("chat", "execute_tool", "invoke_agent", "", "embeddings"),
      error: fc.boolean(),
      dangling: fc.boolean(),
    }),
    { minLength: 1, maxLength: 30 },
  );

  it("always gives valid journals with every span kept and children after parents", () => {
    fc.assert(
      fc.property(spanArb, (items) => {
        const spans: NormalizedSpan[] = items.map((it, i) => {
          const id = (i + 1).toString(16).padStart(16, "0");
          const parent = it.dangling ? "ffffffffffffffff" : it.parent < i ? (it.parent + 1).toString(16).padStart(16, "0") : undefined;
          return {
            traceId: "0af7651916cd43dd8448eb211c80319c",
            spanId: id,
            ...(parent ? { parentSpanId: parent } : {}),
            name: `${it.role || "work"} ${i}`,
            kind: "internal",
            startTimeUnixNano: it.start.toString(),
            endTimeUnixNano: (it.start + it.dur).toString(),
            status: { code: it.error ? "error" : "unset" },
            attributes: (it.role ? { "gen_ai.operation.name": it.role, "gen_ai.usage.input_tokens": 3 } : {}) as Attributes,
            events: [],
            resource: { "service.name": "fuzz" },
          };
        });
        const [run] = spansToRuns(spans);
        const startSeq = new Map<string, number>();
        run.events.forEach((e, i) => {
          expect(e.seq).toBe(i);
          const r = parseLine(canonicalJson(e));
          if (!r.ok) throw new Error(r.message);
          if (e.type === "step.start") startSeq.set(e.step!, e.seq);
          else if (e.step) expect(startSeq.has(e.step)).toBe(true);
          if (e.parent !== undefined) expect(e.parent).toBeLessThan(e.seq);
        });
        expect(startSeq.size).toBe(spans.length);
      }),
      { seed: 20261129, numRuns: 60 },
    );
  });
});
