/**
 * The run page reads the summary in its binary form (lib/graph/summary-binary.ts): it must
 * decode to exactly the columns the JSON form decodes to, for any run. Seeded: a failing
 * seed is printed in the test name and can be kept as a named case.
 */
import { describe, expect, it } from "vitest";
import {
  buildRunIndex,
  decodeSummary,
  encodeSummaryColumns,
  summaryRowsFromEvents,
  type RunSummary,
  type SummaryColumns,
} from "@/lib/graph";
import { decodeSummaryBinary, encodeSummaryBinary, SummaryFormatError } from "@/lib/graph/summary-binary";
import type { JournalEvent } from "@/lib/journal/types";
import { generateJournal } from "../../scripts/bench-journal";

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HOSTILE = [
  "__proto__",
  "constructor",
  "hasOwnProperty",
  "</script><script>alert(1)</script>",
  '"},{"x":1',
  "\u0000nul",
  "\u202eevil-rtl",
  "zero\u200bwidth",
  "🧨 emoji 𝕏",
  "\ud800 lone surrogate",
  "日本語のツール",
  "",
];

/** Columns of a random run: gaps, times out of order and fractional, nulls, hostile and huge strings. */
function randomColumns(seed: number, n: number): SummaryColumns {
  const r = rng(seed);
  const pick = <T>(a: readonly T[]) => a[Math.floor(r() * a.length)];
  const str = (): string | null => {
    const k = r();
    if (k < 0.2) return null;
    if (k < 0.4) return pick(HOSTILE);
    if (k < 0.41) return "x".repeat(200_000 + Math.floor(r() * 1000));
    return `s${Math.floor(r() * (n + 1))}`;
  };
  const num = (scale: number, frac: boolean): number | null =>
    r() < 0.3 ? null : frac && r() < 0.5 ? r() * scale : Math.floor(r() * scale);
  const c: SummaryColumns = {
    seq: [],
    tsMs: [],
    type: [],
    step: [],
    parent: [],
    call: [],
    name: [],
    status: [],
    latencyMs: [],
    tokens: [],
    chain: [],
    redactions: [],
  };
  let seq = Math.floor(r() * 3);
  let t = r() < 0.1 ? 253402300799000 : 1_790_000_000_000 + Math.floor(r() * 1e9);
  for (let i = 0; i < n; i++) {
    seq += r() < 0.9 ? 1 : 1 + Math.floor(r() * 100_000);
    t += r() < 0.05 ? -Math.floor(r() * 5000) : r() < 0.05 ? r() * 10 : r() < 0.01 ? 3e9 : Math.floor(r() * 200);
    c.seq.push(seq);
    c.tsMs.push(t);
    c.type.push(pick(["run.start", "step.start", "model.request", "tool.result", "error", ...HOSTILE]));
    c.step.push(str());
    c.parent.push(r() < 0.6 ? null : Math.floor(r() * seq));
    c.call.push(str());
    c.name.push(str());
    c.status.push(r() < 0.5 ? null : pick(["ok", "error", "timeout", "write", "read", ...HOSTILE]));
    c.latencyMs.push(num(r() < 0.5 ? 500 : 1e7, true));
    c.tokens.push(num(r() < 0.9 ? 5000 : 2 ** 40, false));
    c.chain.push(pick(["ok", "fail", "none", "pending"]));
    c.redactions.push(r() < 0.9 ? 0 : Math.floor(r() * 300));
  }
  return c;
}

function columnsOfEvents(events: JournalEvent[]): SummaryColumns {
  const rows = summaryRowsFromEvents(events);
  return {
    seq: rows.map((x) => x.seq),
    tsMs: rows.map((x) => x.tsMs),
    type: rows.map((x) => x.type),
    step: rows.map((x) => x.step),
    parent: rows.map((x) => x.parent),
    call: rows.map((x) => x.call),
    name: rows.map((x) => x.name),
    status: rows.map((x) => x.status),
    latencyMs: rows.map((x) => x.latencyMs),
    tokens: rows.map((x) => x.tokens),
    chain: rows.map((x) => x.chain),
    redactions: rows.map((x) => x.redactions),
  };
}

const plain = ({ codes: _codes, ...s }: RunSummary) => ({
  ...s,
  seq: Array.from(s.seq),
  tsMs: Array.from(s.tsMs),
  parent: Array.from(s.parent),
  latencyMs: Array.from(s.latencyMs),
  tokens: Array.from(s.tokens),
  redactions: Array.from(s.redactions),
});

/** Both wire forms, decoded, and the columns as given (null as the viewer holds it). */
function expectSameColumns(run: string, c: SummaryColumns) {
  const bytes = encodeSummaryBinary(run, c);
  const binary = decodeSummaryBinary(bytes);
  const json = decodeSummary(JSON.parse(JSON.stringify(encodeSummaryColumns(run, c))));
  expect(plain(binary)).toEqual(plain(json));
  expect(binary.n).toBe(c.seq.length);
  expect(binary.run).toBe(run);
  const orNaN = (v: number | null) => (v === null || v < 0 ? NaN : v);
  for (let i = 0; i < c.seq.length; i++) {
    expect(binary.seq[i]).toBe(c.seq[i]);
    expect(binary.tsMs[i]).toBe(c.tsMs[i]);
    expect(binary.type[i]).toBe(c.type[i] ?? "?");
    expect(binary.step[i]).toBe(c.step[i]);
    expect(binary.parent[i]).toBe(c.parent[i] ?? -1);
    expect(binary.call[i]).toBe(c.call[i]);
    expect(binary.name[i]).toBe(c.name[i]);
    expect(binary.status[i]).toBe(c.status[i]);
    expect(binary.latencyMs[i]).toBe(orNaN(c.latencyMs[i]));
    expect(binary.tokens[i]).toBe(orNaN(c.tokens[i]));
    expect(binary.chain[i]).toBe(c.chain[i] ?? "none");
    expect(binary.redactions[i]).toBe(c.redactions[i]);
  }
  return bytes;
}

const parse = (text: string) =>
  text
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as JournalEvent);

describe("binary run summary", () => {
  for (const seed of [1, 2, 3, 19, 4242]) {
    it(`decodes to the JSON form's columns for a random run (seed ${seed})`, () => {
      expectSameColumns(`run-${seed}`, randomColumns(seed, 50 + (seed % 100) * 7));
    });
  }

  for (const [seed, n] of [
    [7, 9],
    [8, 300],
    [9, 2_000],
  ] as const) {
    it(`decodes a generated journal of ${n} events to its columns (seed ${seed})`, () => {
      const events = parse(generateJournal(n, `gen-${seed}`));
      expectSameColumns(`gen-${seed}`, columnsOfEvents(events));
    });
  }

  for (const [seed, n] of [
    [21, 3000],
    [22, 150],
  ] as const) {
    it(`indexes the same run by its dictionary codes as by its strings (seed ${seed})`, () => {
      const c = seed === 21 ? columnsOfEvents(parse(generateJournal(n, "codes"))) : randomColumns(seed, n);
      const byCodes = buildRunIndex(decodeSummaryBinary(encodeSummaryBinary("codes", c)));
      expect(byCodes.summary.codes).toBeDefined();
      const byStrings = buildRunIndex(decodeSummary(encodeSummaryColumns("codes", c)));
      const shape = (x: typeof byCodes) => ({
        steps: x.steps,
        calls: x.calls,
        items: x.items,
        stepOfRow: Array.from(x.stepOfRow),
        kindOfRow: Array.from(x.kindOfRow),
        failed: Array.from(x.failed),
        startMs: x.startMs,
        endMs: x.endMs,
      });
      expect(shape(byCodes)).toEqual(shape(byStrings));
    });
  }

  it("an empty run is a header and nothing else", () => {
    const c = randomColumns(1, 0);
    const bytes = expectSameColumns("empty", c);
    expect(bytes.byteLength).toBeLessThan(1024);
  });

  it("a hostile run id and every hostile string come back as they were", () => {
    const c = randomColumns(5, HOSTILE.length);
    c.name = [...HOSTILE];
    c.step = [...HOSTILE];
    for (const id of HOSTILE) expectSameColumns(id, c);
  });

  it("packs a million-event-like run's columns narrowly: seq and times of a generated journal a byte each", () => {
    const events = parse(generateJournal(2000, "narrow"));
    const bytes = encodeSummaryBinary("narrow", columnsOfEvents(events));
    // 12 columns of 2,000 rows at 8 bytes would be 192,000 bytes
    expect(bytes.byteLength).toBeLessThan(60_000);
  });

  it("reads a buffer that does not start at an aligned offset", () => {
    const c = randomColumns(11, 40);
    const bytes = encodeSummaryBinary("offset", c);
    const shifted = new Uint8Array(bytes.byteLength + 3);
    shifted.set(bytes, 3);
    expect(plain(decodeSummaryBinary(shifted.subarray(3)))).toEqual(plain(decodeSummaryBinary(bytes)));
  });

  it("refuses what is not a summary, and a summary cut short", () => {
    expect(() => decodeSummaryBinary(new TextEncoder().encode('{"run":"r"}'))).toThrow(SummaryFormatError);
    const bytes = encodeSummaryBinary("cut", randomColumns(12, 100));
    expect(() => decodeSummaryBinary(bytes.subarray(0, bytes.byteLength - 50))).toThrow(SummaryFormatError);
  });
});
