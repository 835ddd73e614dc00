/**
 * Integers beyond 2^53 keep their exact digits wherever JSON is read: journal lines at
 * ingest, the viewer's event pages (replay and compare), and trace exports read whole or
 * streamed. All of them go through lib/journal/exact-json.ts `exactNumber`.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { eventsFromPages, parsePage } from "@/components/replay/parse-events";
import { JsonWalker, type StreamJson, type ValueVisitor } from "@/lib/importers/stream";
import { jsonText } from "@/lib/compare/json-diff";
import { bigintAsDigits, exactNumber, parseJsonExact } from "@/lib/journal/exact-json";
import { parseLine } from "@/lib/journal/parse-line";

const BEYOND = 2n ** 53n;
/** Integers at least 2^53 + 1 in magnitude, up to 40 digits, as JSON text writes them. */
const bigDigits = fc.bigInt({ min: BEYOND + 1n, max: 10n ** 40n }).chain((n) => fc.constantFrom(n, -n));

/** The walker, walking objects member by member (scalars through its own number reader) or taking them whole. */
function walk(text: string, take: boolean): unknown {
  const build = (deliver: (v: StreamJson) => void): ValueVisitor => ({
    enter: take
      ? undefined
      : (kind) => {
          const out: StreamJson[] | { [key: string]: StreamJson } = kind === "array" ? [] : {};
          return {
            member: (key) => build((v) => (Array.isArray(out) ? out.push(v) : (out[key as string] = v))),
            end: () => deliver(out),
          };
        },
    take: deliver,
  });
  let out: unknown;
  const w = new JsonWalker(build((v) => (out = v)));
  w.write(text);
  w.end();
  return out;
}

describe("exact integers beyond 2^53", () => {
  it("one number reader: a bigint beyond 2^53, a number otherwise", () => {
    expect(exactNumber("9007199254740993")).toBe(9007199254740993n);
    expect(exactNumber("-9007199254740993")).toBe(-9007199254740993n);
    expect(exactNumber("9007199254740991")).toBe(9007199254740991);
    expect(exactNumber("1.5e300")).toBe(1.5e300);
    expect(exactNumber("12345678901234567890.5")).toBe(Number("12345678901234567890.5"));
  });

  it("a journal line, an events page, a parsed trace and a streamed one all keep the digits", () => {
    fc.assert(
      fc.property(bigDigits, (n) => {
        const line = `{"run":"r","seq":1,"ts":"2026-11-07T11:00:00.000Z","type":"note","data":{"text":"x","n":${n},"list":[${n}]}}`;
        const parsed = parseLine(line);
        expect(parsed.ok && parsed.event.data).toEqual({ text: "x", n, list: [n] });

        const page = `{"events":[{"seq":1,"chain":"none","recordedHash":null,"redactions":0,"event":${line}}],"nextAfter":null}`;
        expect(parsePage(page).events[0].event.data).toEqual({ text: "x", n, list: [n] });
        expect(eventsFromPages([page]).events[0].data.n).toBe(n);

        const trace = `{"spans":[{"startTimeUnixNano":${n},"attrs":{"big":${n}}}]}`;
        const expected = { spans: [{ startTimeUnixNano: n, attrs: { big: n } }] };
        expect(parseJsonExact(trace)).toEqual(expected);
        expect(walk(trace, false)).toEqual(expected);
        expect(walk(trace, true)).toEqual(expected);
      }),
    );
  });

  it("safe integers stay numbers (JSON.parse's reading) in every reader", () => {
    const text = `{"a":9007199254740991,"b":[-9007199254740991,0,1e21]}`;
    const expected = { a: 9007199254740991, b: [-9007199254740991, 0, 1e21] };
    expect(parseJsonExact(text)).toEqual(expected);
    expect(walk(text, false)).toEqual(expected);
    expect(parsePage(`{"events":[],"nextAfter":null,"x":${text}}`)).toMatchObject({ x: expected });
  });

  it("shown as text, a bigint is its exact digits (the diff lines and the inspector's state)", () => {
    fc.assert(
      fc.property(bigDigits, (n) => {
        expect(JSON.stringify({ n }, bigintAsDigits)).toBe(`{"n":"${n}"}`);
        expect(jsonText([n])).toBe(`["${n}"]`);
      }),
    );
  });
});
