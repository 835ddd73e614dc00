/**
 * The streaming importer (lib/importers/stream) against the whole-document one: identical
 * results on every OTel-family corpus file however the bytes are chunked, exact 64-bit
 * numbers, traces split across export requests, clear errors on cut files. (What the
 * upload stores is compared with the whole-document path in upload-flow.test.ts.)
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/canonical";
import {
  ImportError,
  importTrace,
  importTraceStream,
  importTraceStreamWhole,
  STREAMABLE_FORMATS,
  type ImportResult,
} from "@/lib/importers";
import { detectFormat } from "@/lib/importers/detect";
import { JsonSyntaxError, JsonWalker, type StreamJson, type ValueVisitor } from "@/lib/importers/stream";
import { parseJsonExact } from "@/lib/journal/parse-line";
import type { JournalEvent } from "@/lib/journal/types";
import { CORPUS } from "./helpers";

const encoder = new TextEncoder();

async function* chunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, Math.min(bytes.length, i + size));
}

const canon = (r: ImportResult) => canonicalJson({ format: r.format, runs: r.runs, warnings: r.warnings });

function streamed(bytes: Uint8Array | string, size = 64 * 1024, fileName?: string): Promise<ImportResult> {
  const b = typeof bytes === "string" ? encoder.encode(bytes) : bytes;
  return importTraceStreamWhole(chunks(b, size), { fileName });
}

function whole(bytes: Uint8Array | string, fileName?: string): ImportResult {
  return importTrace(typeof bytes === "string" ? bytes : new TextDecoder().decode(bytes), { fileName });
}

/** Every corpus file whose format streams, found by detection so new samples are covered. */
const STREAM_FILES = readdirSync(CORPUS, { recursive: true, encoding: "utf8" })
  .filter((f) => f.endsWith(".json"))
  .map((f) => ({ rel: f, bytes: new Uint8Array(readFileSync(path.join(CORPUS, f))) }))
  .map((f) => ({ ...f, format: detectFormat(new TextDecoder().decode(f.bytes), f.rel).format }))
  .filter((f) => STREAMABLE_FORMATS.has(f.format))
  .sort((a, b) => a.rel.localeCompare(b.rel));

describe("streaming import: same output as importTrace", () => {
  it("covers every streamable format in the corpus", () => {
    const formats = new Set(STREAM_FILES.map((f) => f.format));
    for (const f of ["otlp-json-array", "tempo-otlp", "jaeger"] as const) expect(formats).toContain(f);
  });

  for (const file of STREAM_FILES) {
    it(`${file.rel} (${file.format}): same runs, events and warnings for any chunking`, async () => {
      const expected = whole(file.bytes, file.rel);
      expect(expected.runs.length).toBeGreaterThan(0);
      const text = canon(expected);
      for (const size of [1 << 20, 4096, 7]) {
        const got = await streamed(file.bytes, size, file.rel);
        expect(got.runs.map((r) => r.runId)).toEqual(expected.runs.map((r) => r.runId));
        expect(got.runs.map((r) => r.events.length)).toEqual(expected.runs.map((r) => r.events.length));
        expect(canon(got)).toBe(text);
      }
    });
  }

  it("a single OTLP export request (otlp-json) built from the corpus array", async () => {
    const file = STREAM_FILES.find((f) => f.format === "otlp-json-array");
    if (!file) throw new Error("no otlp-json-array sample");
    const requests = parseJsonExact(new TextDecoder().decode(file.bytes)) as Array<{ resourceSpans: unknown[] }>;
    const text = JSON.stringify({ resourceSpans: requests.flatMap((r) => r.resourceSpans) }, null, 1);
    expect(detectFormat(text).format).toBe("otlp-json");
    expect(canon(await streamed(text, 1000))).toBe(canon(whole(text)));
  });

  it("one byte at a time (multi-byte characters and escapes split everywhere)", async () => {
    const doc = JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [{ key: "service.name", value: { stringValue: "größe-服务-🚀" } }] },
          scopeSpans: [
            {
              scope: { name: "s" },
              spans: [
                {
                  traceId: "0af7651916cd43dd8448eb211c80319c",
                  spanId: "b7ad6b7169203331",
                  name: 'chat "quoted" \\ back\nline \u0001 \ud83d\ude00 lone:\ud800',
                  startTimeUnixNano: "1700000000000000000",
                  endTimeUnixNano: "1700000001000000000",
                  attributes: [{ key: "gen_ai.prompt", value: { stringValue: "€".repeat(50) } }],
                },
              ],
            },
          ],
        },
      ],
    });
    expect(canon(await streamed(doc, 1))).toBe(canon(whole(doc)));
  });

  it("falls back to the whole-document path for formats without a span stream", async () => {
    const rel = "langfuse/langfuse-qa-chatbot-mcp-toolcall.json";
    const bytes = new Uint8Array(readFileSync(path.join(CORPUS, rel)));
    const s = await importTraceStream(chunks(bytes, 4096), { fileName: rel });
    expect(s.format).toBe("langfuse");
    expect(s.spans).toBeUndefined();
    const runs = [];
    for await (const run of s.runs()) runs.push(run);
    expect(canon({ format: s.format, runs, warnings: s.warnings })).toBe(canon(whole(bytes, rel)));
  });
});

describe("streaming import: hazards", () => {
  it("keeps 64-bit ids, times and int values exact when they are bare JSON numbers (Tempo)", async () => {
    // 1760000000123456789 as a double is ...456768; 2^63-1 and 2^53+1 would round too.
    const doc = `{"batches":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}]},
      "instrumentationLibrarySpans":[{"instrumentationLibrary":{"name":"lib"},"spans":[
        {"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","name":"root",
         "startTimeUnixNano":1760000000123456789,"endTimeUnixNano":1760000000987654321,
         "attributes":[{"key":"big","value":{"intValue":9223372036854775807}},{"key":"edge","value":{"intValue":9007199254740993}},
                       {"key":"small","value":{"intValue":42}},{"key":"d","value":{"doubleValue":0.1}}],
         "events":[{"name":"e","timeUnixNano":1760000000500000001}]}]}]}]}`;
    const got = await streamed(doc, 13);
    expect(canon(got)).toBe(canon(whole(doc)));
    const events = got.runs[0].events;
    const start = events.find((e) => e.type === "step.start") as JournalEvent & { tsNs?: string };
    expect(start.tsNs).toBe("1760000000123456789");
    expect(start.step).toBe("eee19b7ec3c1b174");
    expect(start.data.attributes).toMatchObject({ big: "9223372036854775807", edge: "9007199254740993", small: 42, d: 0.1 });
    const end = events.find((e) => e.type === "step.end") as JournalEvent & { tsNs?: string };
    expect(end.tsNs).toBe("1760000000987654321");
    expect(got.runs[0].runId).toBe("otel-5b8efff798038103d269b633813fc60c");
  });

  it("joins a trace split across two export requests of one array into one run", async () => {
    const span = (id: string, parent: string | undefined, start: string, name: string) => ({
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId: id,
      ...(parent ? { parentSpanId: parent } : {}),
      name,
      startTimeUnixNano: start,
      endTimeUnixNano: String(BigInt(start) + 1_000_000n),
    });
    const request = (service: string, spans: unknown[]) => ({
      resourceSpans: [
        {
          resource: { attributes: [{ key: "service.name", value: { stringValue: service } }] },
          scopeSpans: [{ scope: { name: "x" }, spans }],
        },
      ],
    });
    // The child arrives first, in a different request (and resource) from its parent.
    const doc = JSON.stringify([
      request("worker", [span("00f067aa0ba902b7", "53995c3f42cd8ad8", "1700000000002000000", "child")]),
      request("api", [
        span("53995c3f42cd8ad8", undefined, "1700000000000000000", "root"),
        span("1111111111111111", undefined, "1800000000000000000", "other"),
      ]),
    ]);
    const got = await streamed(doc, 50);
    expect(canon(got)).toBe(canon(whole(doc)));
    expect(got.runs).toHaveLength(1);
    const steps = got.runs[0].events.filter((e) => e.type === "step.start");
    expect(steps.map((e) => e.step)).toEqual(["53995c3f42cd8ad8", "00f067aa0ba902b7", "1111111111111111"]);
    expect(got.runs[0].events[0].data.services).toEqual(["api", "worker"]);
    // No warning about a missing parent: the parent came in the other request.
    expect(got.warnings).toEqual([]);
  });

  it("attaches resource and scope written after the spans, and keeps the last of duplicate keys", async () => {
    const sp = (id: string) => ({
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId: id,
      name: id,
      startTimeUnixNano: "1700000000000000000",
    });
    const doc =
      `{"resourceSpans":[{"scopeSpans":[{"spans":[${JSON.stringify(sp("aaaaaaaaaaaaaaaa"))}],"scope":{"name":"late-scope"}}],` +
      `"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"late"}}]}}],` +
      `"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"spans":[${JSON.stringify(sp("bbbbbbbbbbbbbbbb"))}],"instrumentationLibrary":{"name":"il"}}]}]}`;
    const expected = whole(doc);
    expect(canon(await streamed(doc, 5))).toBe(canon(expected));
    const jaeger =
      `{"data":[{"spans":[{"spanID":"cccccccccccccccc","operationName":"op","startTime":1700000000000000,"duration":5,"processID":"p1"}],` +
      `"processes":{"p1":{"serviceName":"late-svc","tags":[{"key":"host","type":"string","value":"h"}]}},"traceID":"0af7651916cd43dd8448eb211c80319c","warnings":["w"]}]}`;
    const j = await streamed(jaeger, 3);
    expect(canon(j)).toBe(canon(whole(jaeger)));
    expect(j.runs[0].runId).toBe("jaeger-0af7651916cd43dd8448eb211c80319c");
    expect(j.runs[0].events[0].data.workflow).toEqual({ name: "late-svc" });
    expect(j.warnings).toContain("Jaeger: w");
  });

  it("rejects a truncated file with a clear error, like importTrace", async () => {
    for (const file of STREAM_FILES) {
      for (const cut of [0.5, 0.999]) {
        const bytes = file.bytes.subarray(0, Math.floor(file.bytes.length * cut));
        expect(() => whole(bytes, file.rel)).toThrow(ImportError);
        const err = await streamed(bytes, 4096, file.rel).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err, file.rel).toBeInstanceOf(ImportError);
        expect((err as Error).message).toMatch(
          /^the file looks like .+ but is not valid JSON \(truncated\? the text ends inside an unfinished value \(after character \d+\)\)$/,
        );
      }
    }
  });

  it("rejects invalid JSON and data after the document without calling it truncated", async () => {
    for (const doc of [
      '{"resourceSpans":[}',
      '{"resourceSpans":[]} {"resourceSpans":[]}',
      '{"resourceSpans":[] "x":1}',
      '{"resourceSpans":[tru]}',
    ]) {
      expect(() => whole(doc)).toThrow(ImportError);
      const err = await streamed(doc, 3).catch((e: unknown) => e);
      expect(err, doc).toBeInstanceOf(ImportError);
      expect((err as Error).message, doc).toMatch(/not valid JSON \((?!truncated)/);
    }
  });
});

describe("JsonWalker reads exactly what parseJsonExact reads", () => {
  type Mode = "take" | "walk" | "mixed" | "skip";
  /** Rebuilds the value through the walker: taken whole, walked token by token, or both by depth. */
  function visitor(mode: Mode, depth: number, deliver: (v: StreamJson) => void): ValueVisitor {
    if (mode === "skip") return {};
    const walkHere = mode === "walk" || (mode === "mixed" && depth % 2 === 0);
    return {
      enter: walkHere
        ? (kind) => {
            const out: StreamJson[] | { [key: string]: StreamJson } = kind === "array" ? [] : {};
            return {
              member: (key) =>
                visitor(mode, depth + 1, (v) => {
                  if (Array.isArray(out)) out.push(v);
                  else if (key === "__proto__")
                    Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
                  else out[key as string] = v;
                }),
              end: () => deliver(out),
            };
          }
        : undefined,
      take: deliver,
    };
  }
  const read = (text: string, mode: Mode, size: number): unknown => {
    let out: StreamJson | undefined;
    const w = new JsonWalker(visitor(mode, 0, (v) => void (out = v)));
    for (let i = 0; i < text.length; i += size) w.write(text.slice(i, i + size));
    w.end();
    return out;
  };
  const outcome = (f: () => unknown): { ok: true; value: unknown } | { ok: false; error: unknown } => {
    try {
      return { ok: true, value: f() };
    } catch (error) {
      return { ok: false, error };
    }
  };

  const SAMPLES = [
    "0",
    "-0",
    '"just a string"',
    "[1e400, -1e-400, 1.5E+3, 0.1, 123456789012345678901234567890, -9007199254740993, 9007199254740991, 1e16, 9007199254740992.0]",
    '{"a":{"b":[[],{},[{}],""]},"a":2,"__proto__":{"x":1},"constructor":null}',
    '"\\u00e9\\ud83d\\ude00\\ud800x\\udc00\\/\\b\\f\\n\\r\\t\\"\\\\"',
    '["a\\\\", "\\\\\\"", "{[", "]}", "\\"}"]',
    // An escaped quote followed by an unbalanced bracket: only right if escapes are honoured.
    '[{"k":"\\"{"}, "\\\\\\"[", 1]',
    ' \n\t[true,false,null, "x" ] \n',
    JSON.stringify({ deep: Array.from({ length: 50 }, (_, i) => ({ i, s: "ü".repeat(i), big: 10n ** BigInt(i) })) }, (_k, v: unknown) =>
      typeof v === "bigint" ? Number(v) : v,
    ),
  ];
  for (const text of SAMPLES) {
    it(text.slice(0, 60), () => {
      const expected = parseJsonExact(text);
      for (const mode of ["take", "walk", "mixed"] as const) {
        // toEqual tells bigint from number and -0 from 0.
        for (const size of [1, 2, 5, text.length]) expect(read(text, mode, size), `${mode}/${size}`).toEqual(expected);
      }
      expect(() => read(text, "skip", 3)).not.toThrow();
    });
  }

  it("accepts and rejects what JSON.parse does (fuzzed documents and mutations)", () => {
    let seed = 12345;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const STR = ["", "a", "é", "😀", '"', "\\", "\n", "\u0001", "{", "]", '"{', '\\"]', "x".repeat(40)];
    const gen = (depth: number): unknown => {
      const k = rnd(depth > 3 ? 5 : 8);
      if (k === 0) return null;
      if (k === 1) return rnd(2) === 0;
      if (k === 2) return [0, -1, 1.5, 1e21, 123456789, -0.25][rnd(6)];
      if (k === 3) return Array.from({ length: rnd(4) }, () => STR[rnd(STR.length)]).join("");
      if (k === 4) return 2n ** 64n + BigInt(rnd(1000));
      if (k === 5 || k === 6) return Array.from({ length: rnd(4) }, () => gen(depth + 1));
      return Object.fromEntries(Array.from({ length: rnd(4) }, (_, i) => [`${STR[rnd(STR.length)]}${i}`, gen(depth + 1)]));
    };
    const text = (v: unknown) =>
      JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? `@@${x}@@` : x), rnd(2) ? 1 : undefined).replace(/"@@(\d+)@@"/g, "$1");
    const MUTATIONS = ["", " ", ",", ":", "[", "]", "{", "}", '"', "\\", "0", "-", "e", "t", "n"];
    let accepted = 0;
    let rejected = 0;
    for (let i = 0; i < 400; i++) {
      let doc = text(gen(0));
      if (i % 2 === 1 && doc.length > 0) {
        const at = rnd(doc.length);
        const cut = rnd(3) === 0 ? doc.length : at + rnd(2);
        doc = doc.slice(0, at) + MUTATIONS[rnd(MUTATIONS.length)] + doc.slice(cut);
      }
      const expected = outcome(() => parseJsonExact(doc));
      for (const mode of ["take", "walk", "mixed", "skip"] as const) {
        const got = outcome(() => read(doc, mode, 1 + rnd(9)));
        expect(got.ok, `${mode}: ${doc}`).toBe(expected.ok);
        if (got.ok && expected.ok && mode !== "skip") expect(got.value, `${mode}: ${doc}`).toEqual(expected.value);
        if (!got.ok) expect(got.error, doc).toBeInstanceOf(JsonSyntaxError);
      }
      if (expected.ok) accepted++;
      else rejected++;
    }
    expect(accepted).toBeGreaterThan(150);
    expect(rejected).toBeGreaterThan(50);
  });

  it("tells cut text from invalid text", () => {
    const fail = (text: string) => outcome(() => read(text, "mixed", 4));
    for (const t of ['{"a":', '{"a":"unfinished', "[1,2", '{"a":1', '{"a":{"b":[1', "[tru", "[-", ""]) {
      const r = fail(t);
      expect(r.ok, t).toBe(false);
      if (r.ok) continue;
      expect(r.error, t).toBeInstanceOf(JsonSyntaxError);
      expect((r.error as JsonSyntaxError).truncated, t).toBe(t !== "");
    }
    for (const t of ["[1,]", '{"a" 1}', "{,}", "[1 2]", "1 2", '{"a":1,}', "]", '{"a":[1}', "[01]", "[truex]", '["\\x"]']) {
      const r = fail(t);
      expect(r.ok, t).toBe(false);
      if (r.ok) continue;
      expect(r.error, t).toBeInstanceOf(JsonSyntaxError);
      expect((r.error as JsonSyntaxError).truncated, t).toBe(false);
      expect(() => JSON.parse(t), t).toThrow();
    }
  });
});
