/**
 * One upload flow: the UI's POST /api/imports, POST /api/journals and `retrace import` all
 * go through importStream. A trace export stores, through the route and through the CLI,
 * exactly the rows the former NDJSON detour stored (every corpus file, every column);
 * the format is detected once; a body over the limit is refused while it streams.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { canonicalJson } from "@/lib/canonical";
import { detectFormat, importTrace } from "@/lib/importers";
import { readJournalBatches } from "@/lib/journal/reader";
import type { Db } from "@/lib/server/db";
import { ingest } from "@/lib/server/ingest";
import { readLimitedBody } from "@/lib/server/otlp-receiver";
import { redactorFor } from "@/lib/server/service";
import { answerUpload } from "@/lib/server/upload";
import { freshDb, type TestDb } from "../helpers/db";
import { CORPUS } from "./helpers";

const FILES = fs
  .readdirSync(CORPUS, { recursive: true, encoding: "utf8" })
  .filter((f) => /\.(json|traj)$/.test(f))
  .sort();

/** A POST as the browser sends it: the body arrives in small chunks, with no declared length. */
function post(
  route: "imports" | "journals",
  bytes: Uint8Array,
  opts: { name?: string; type?: string; chunk?: number; pulled?: { n: number } } = {},
) {
  const size = opts.chunk ?? 4096;
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (at >= bytes.length) return c.close();
      if (opts.pulled) opts.pulled.n++;
      c.enqueue(bytes.slice(at, (at += size)));
    },
  });
  const url = `http://localhost/api/${route}${opts.name ? `?name=${encodeURIComponent(opts.name)}` : ""}`;
  return new Request(url, {
    method: "POST",
    body,
    headers: { "content-type": opts.type ?? "application/octet-stream" },
    duplex: "half",
  } as RequestInit);
}

/** What the upload did before it streamed: the file converted whole, written as NDJSON, read back as a journal. */
async function viaNdjsonDetour(db: Db, bytes: Uint8Array, fileName: string) {
  const converted = importTrace(new TextDecoder().decode(bytes), { fileName });
  const ndjson = new TextEncoder().encode(converted.runs.flatMap((r) => r.events.map((e) => canonicalJson(e))).join("\n") + "\n");
  const { limits } = db.config;
  return ingest(
    db.sql,
    await redactorFor(db),
    readJournalBatches(
      (async function* () {
        yield ndjson;
      })(),
      { maxDepth: limits.maxDepth, maxLineBytes: limits.maxLineBytes },
    ),
    { mode: "upload", source: "import", fidelity: "trace", contiguousRuns: true, maxEventsPerRun: limits.maxEventsPerRun },
  );
}

/** Every stored row but the clock's columns and generated ids. */
async function storedRows(db: Db) {
  const strip = (rows: Record<string, unknown>[], drop: string[]) =>
    rows.map((r) => canonicalJson(Object.fromEntries(Object.entries(r).filter(([k]) => !drop.includes(k)))));
  return {
    runs: strip(await db.sql.all(`SELECT * FROM "Run" ORDER BY "id"`, []), ["createdAt", "updatedAt"]),
    events: strip(await db.sql.all(`SELECT * FROM "Event" ORDER BY "runId", "seq"`, []), []),
    findings: strip(await db.sql.all(`SELECT * FROM "Finding" ORDER BY "runId", "seq", "rule", "message"`, []), ["id", "createdAt"]),
  };
}

async function count(db: Db, table: "Run" | "Event"): Promise<number> {
  const rows = await db.sql.all<{ n: number }>(`SELECT count(*) AS n FROM "${table}"`, []);
  return Number(rows[0].n);
}

const dbs: TestDb[] = [];
afterAll(async () => {
  for (const t of dbs) await t.cleanup();
});
async function fresh(): Promise<TestDb> {
  const t = await freshDb("sqlite");
  dbs.push(t);
  return t;
}

describe("a trace export stores the same rows through /api/imports, the CLI and the former NDJSON detour", () => {
  it(`every corpus file (${FILES.length}), in one database each way`, async () => {
    const [ref, route, cli] = [await fresh(), await fresh(), await fresh()];
    const refDb = ref.open();
    const routeDb = route.open();
    for (const rel of FILES) {
      const bytes = new Uint8Array(fs.readFileSync(path.join(CORPUS, rel)));
      const name = path.basename(rel);
      const expected = await viaNdjsonDetour(refDb, bytes, name);
      const answer = await answerUpload(routeDb, post("imports", bytes, { name }), "any", "default");
      expect(answer.body.format, rel).toBe(detectFormat(new TextDecoder().decode(bytes), name).format);
      expect(answer.body.runs, rel).toEqual(expected.runs);
      expect(answer.body.errors, rel).toEqual(expected.errors);
      expect(answer.status, rel).toBe(201);
    }
    const r = await promisify(execFile)(
      process.execPath,
      ["scripts/retrace.mjs", "import", "--json", ...FILES.map((f) => path.join(CORPUS, f))],
      { env: { ...process.env, DATABASE_URL: cli.url }, maxBuffer: 64 << 20 },
    );
    expect(r.stdout.trim().split("\n")).toHaveLength(FILES.length);
    const expected = await storedRows(refDb);
    expect(expected.events.length).toBeGreaterThan(1000);
    expect(expected.findings.length).toBeGreaterThan(0);
    expect(await storedRows(routeDb)).toEqual(expected);
    expect(await storedRows(cli.open())).toEqual(expected);
  });

  it("a trace export holding secrets: the spill holds them redacted, the rows stored are the detour's", async () => {
    const [ref, route] = [await fresh(), await fresh()];
    const attr = (key: string, value: string) => ({ key, value: { stringValue: value } });
    const spans = Array.from({ length: 6 }, (_, i) => ({
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: `00f067aa0ba902b${i}`,
      ...(i > 0 ? { parentSpanId: "00f067aa0ba902b0" } : {}),
      name: i === 0 ? "agent" : `tool ${i}`,
      startTimeUnixNano: String(1762513201026000000n + BigInt(i) * 1000000n),
      endTimeUnixNano: String(1762513201026000000n + BigInt(i) * 1000000n + 500000n),
      attributes: [
        attr("note", `key AKIA${"Q7F2LMX9AB3CD4E" + i} in a page`),
        attr("password", `pw-${i}`),
        attr("db", `postgres://svc:secret-${i}@db.internal/app`),
        attr("auth", `Bearer ${"t".repeat(30)}${i}`),
      ],
    }));
    const bytes = new TextEncoder().encode(JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans }] }] }));
    const expected = await viaNdjsonDetour(ref.open(), bytes, "secrets.json");
    const answer = await answerUpload(route.open(), post("imports", bytes, { name: "secrets.json" }), "any", "default");
    expect(answer.status).toBe(201);
    expect(answer.body.runs).toEqual(expected.runs);
    // Each database has its own redaction key, so placeholders (and the server chain over
    // them: hashes, serverLastHash) differ; `bytes` is the size of the line ingest took, redacted here.
    const comparable = async (db: Db) => {
      const rows = await storedRows(db);
      const norm = (t: string) => t.replace(/\[redacted:([a-z-]+):[0-9a-f]{12}\]/g, "[redacted:$1]");
      const events = rows.events.map((e) => {
        const { bytes: _bytes, hash: _hash, ...rest } = JSON.parse(norm(e)) as Record<string, unknown>;
        return rest;
      });
      const runs = rows.runs.map((r) => {
        const { serverLastHash: _server, ...rest } = JSON.parse(norm(r)) as Record<string, unknown>;
        return rest;
      });
      return { runs, events, findings: rows.findings };
    };
    const expectedRows = await comparable(ref.open());
    expect(expectedRows.findings.filter((f) => f.includes("secret.exposed"))).toHaveLength(6);
    expect(await comparable(route.open())).toEqual(expectedRows);
  });

  it("a gzip trace export is opened and converted like the plain file", async () => {
    const t = await fresh();
    const db = t.open();
    const bytes = fs.readFileSync(path.join(CORPUS, "jaeger/kagent-helm-agent.jaeger.json"));
    const answer = await answerUpload(db, post("imports", gzipSync(bytes), { name: "kagent.json.gz" }), "any", "default");
    expect(answer.status).toBe(201);
    expect(answer.body.format).toBe("jaeger");
    expect(await count(db, "Event")).toBeGreaterThan(10);
  });
});

describe("one format detection decides the route", () => {
  const journal = (run: string) =>
    new TextEncoder().encode(
      [
        { run, seq: 0, ts: "2026-11-07T11:00:00.000Z", type: "run.start", data: {} },
        { run, seq: 1, ts: "2026-11-07T11:00:01.000Z", type: "note", data: { text: "hello" } },
      ]
        .map((e) => JSON.stringify(e))
        .join("\n") + "\n",
    );

  it("a journal to /api/imports is stored as a journal (format named)", async () => {
    const db = (await fresh()).open();
    const answer = await answerUpload(db, post("imports", journal("j-imports"), { name: "run.jsonl" }), "any", "default");
    expect(answer.status).toBe(201);
    expect(answer.body.format).toBe("retrace-journal");
    expect(answer.body.runs).toMatchObject([{ run: "j-imports", status: "stored", accepted: 2 }]);
    const rows = await db.sql.all<{ fidelity: string }>(`SELECT "fidelity" FROM "Run" WHERE "id" = ?`, ["j-imports"]);
    expect(rows[0].fidelity).not.toBe("trace");
  });

  it("a trace export to /api/journals is refused with 415 naming its format, nothing stored", async () => {
    const db = (await fresh()).open();
    const bytes = fs.readFileSync(path.join(CORPUS, "langfuse/langfuse-qa-chatbot-mcp-toolcall.json"));
    const answer = await answerUpload(db, post("journals", bytes, { type: "application/json" }), "journal", "default");
    expect(answer.status).toBe(415);
    expect(answer.body.format).toBe("langfuse");
    expect(answer.body.error).toMatch(/^this looks like Langfuse trace export, not a Retrace journal/);
    expect(await count(db, "Run")).toBe(0);
  });

  it("a file in no known format gets one error (415) from /api/imports, not an error per line", async () => {
    const db = (await fresh()).open();
    const text = "name,seq,type\n" + Array.from({ length: 50 }, (_, i) => `row${i},${i},note`).join("\n") + "\n";
    const answer = await answerUpload(db, post("imports", new TextEncoder().encode(text), { name: "data.csv" }), "any", "default");
    expect(answer.status).toBe(415);
    expect(answer.body).toMatchObject({ format: "unknown", errors: [], runs: [] });
    expect(answer.body.error).toMatch(/format was not recognised/);
    // the journals route reads the same bytes as a journal: every line is an error of its own
    const asJournal = await answerUpload(db, post("journals", new TextEncoder().encode(text)), "journal", "default");
    expect(asJournal.status).toBe(400);
    expect((asJournal.body.errors as unknown[]).length).toBe(51);
    expect(await count(db, "Run")).toBe(0);
  });

  it("an empty body is a 400 on both routes", async () => {
    const db = (await fresh()).open();
    for (const [route, accept] of [
      ["imports", "any"],
      ["journals", "journal"],
    ] as const) {
      const answer = await answerUpload(db, post(route, new Uint8Array(0)), accept, "default");
      expect(answer.status, route).toBe(400);
      expect(answer.body.error, route).toMatch(/empty/);
    }
  });
});

describe("a body over the limit is refused while it streams, nothing stored", () => {
  const LIMIT = 200_000;
  let tmp: string;
  let oldTmp: string | undefined;
  beforeAll(() => {
    // the spill file's folder goes here, so the test can see that none is left behind
    tmp = fs.mkdtempSync(path.join(inject("tmpDir"), "upload-tmp-"));
    oldTmp = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    expect(os.tmpdir()).toBe(tmp);
  });
  afterAll(() => {
    if (oldTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = oldTmp;
  });

  /** An OTLP export of many small traces, about `bytes` long. */
  function otlp(bytes: number): Uint8Array {
    const spans: string[] = [];
    let size = 0;
    for (let i = 0; size < bytes; i++) {
      const hex = i.toString(16).padStart(32, "0");
      const s = JSON.stringify({
        traceId: hex,
        spanId: hex.slice(16),
        name: `chat ${i}`,
        startTimeUnixNano: String(1_760_000_000_000_000_000n + BigInt(i) * 1_000_000n),
        endTimeUnixNano: String(1_760_000_000_000_000_000n + BigInt(i) * 1_000_000n + 500n),
        attributes: [{ key: "gen_ai.operation.name", value: { stringValue: "chat" } }],
      });
      spans.push(s);
      size += s.length + 1;
    }
    return new TextEncoder().encode(
      `{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"scope":{"name":"t"},"spans":[${spans.join(",")}]}]}]}`,
    );
  }

  function journalOf(bytes: number): Uint8Array {
    const lines: string[] = [];
    let size = 0;
    for (let seq = 0; size < bytes; seq++) {
      const l = JSON.stringify({
        run: "big",
        seq,
        ts: "2026-11-07T11:00:00.000Z",
        type: seq === 0 ? "run.start" : "note",
        data: seq === 0 ? {} : { text: "x".repeat(100) },
      });
      lines.push(l);
      size += l.length + 1;
    }
    return new TextEncoder().encode(lines.join("\n") + "\n");
  }

  const cases = [
    {
      what: "a journal to /api/journals",
      route: "journals" as const,
      accept: "journal" as const,
      bytes: () => journalOf(4 * LIMIT),
      gzip: false,
    },
    {
      what: "a trace export to /api/imports",
      route: "imports" as const,
      accept: "any" as const,
      bytes: () => otlp(4 * LIMIT),
      gzip: false,
    },
    // small on the wire, over the limit once opened: the count after gunzip refuses it
    {
      what: "a gzip trace export that expands past the limit",
      route: "imports" as const,
      accept: "any" as const,
      bytes: () => gzipSync(otlp(4 * LIMIT)),
      gzip: true,
    },
  ];
  for (const c of cases) {
    it(c.what, async () => {
      const t = await fresh();
      const db = t.open({ RETRACE_MAX_BODY_BYTES: String(LIMIT) });
      const bytes = c.bytes();
      const pulled = { n: 0 };
      const chunk = 8192;
      const answer = await answerUpload(db, post(c.route, bytes, { pulled, chunk }), c.accept, "default");
      expect(answer.status).toBe(413);
      expect(answer.body.error).toMatch(/over 200000 bytes/);
      expect(await count(db, "Run")).toBe(0);
      expect(await count(db, "Event")).toBe(0);
      // stopped reading at the limit: never more than the limit (plus the chunks in flight) was taken
      if (c.gzip) expect(bytes.length).toBeLessThan(LIMIT);
      else {
        expect(bytes.length).toBeGreaterThan(3 * LIMIT);
        expect(pulled.n).toBeLessThan(Math.ceil(LIMIT / chunk) + 4);
      }
      // the private parent folder may stay; no spill folder or file does
      expect(fs.readdirSync(tmp).flatMap((d) => fs.readdirSync(path.join(tmp, d)))).toEqual([]);
    });
  }

  it("a trace export cut midway: a 400 that says so, nothing stored, no spill file left", async () => {
    const db = (await fresh()).open();
    const bytes = fs.readFileSync(path.join(CORPUS, "otel-genai/kagent-helm-agent.tempo-otlp.json"));
    const answer = await answerUpload(
      db,
      post("imports", bytes.subarray(0, Math.floor(bytes.length * 0.6)), { name: "cut.json" }),
      "any",
      "default",
    );
    expect(answer.status).toBe(400);
    expect(answer.body.format).toBe("tempo-otlp");
    expect(answer.body.error).toMatch(/not valid JSON \(truncated\?/);
    expect(await count(db, "Run")).toBe(0);
    // the private parent folder may stay; no spill folder or file does
    expect(fs.readdirSync(tmp).flatMap((d) => fs.readdirSync(path.join(tmp, d)))).toEqual([]);
  });

  it("an OTLP/HTTP request body over the limit is refused at the limit, not read whole first", async () => {
    const bytes = otlp(4 * LIMIT);
    const pulled = { n: 0 };
    expect(await readLimitedBody(post("imports", bytes, { pulled, chunk: 8192 }), LIMIT)).toBeNull();
    expect(pulled.n).toBeLessThan(Math.ceil(LIMIT / 8192) + 4);
    const small = otlp(LIMIT / 2);
    expect(await readLimitedBody(post("imports", small), LIMIT)).toEqual(small);
  });

  it("a declared length over the limit is refused before reading", async () => {
    const db = (await fresh()).open({ RETRACE_MAX_BODY_BYTES: String(LIMIT) });
    const req = post("imports", otlp(2 * LIMIT));
    req.headers.set("content-length", String(2 * LIMIT));
    const answer = await answerUpload(db, req, "any", "default");
    expect(answer.status).toBe(413);
    expect(answer.body.error).toMatch(/is 400000 bytes, over the 200000-byte limit/);
    expect(req.bodyUsed).toBe(false);
  });
});
