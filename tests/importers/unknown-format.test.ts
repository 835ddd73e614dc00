/**
 * A file in no known format gets one error that says so and what the file looks like
 * (its shape and keys), from the importer, /api/imports and the CLI alike; nothing is
 * stored and the CLI exits non-zero.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, inject, it } from "vitest";
import { importTrace } from "@/lib/importers";
import { detectBytes } from "@/lib/importers/detect";
import { importTraceStreamWhole } from "@/lib/importers/stream";
import { answerUpload } from "@/lib/server/upload";
import { freshDb, type TestDb } from "../helpers/db";

const enc = (s: string) => new TextEncoder().encode(s);
const ARRAY = JSON.stringify([
  { sku: "A-1", price: 3, qty: 1 },
  { sku: "B-2", price: 4, note: "x" },
]);
// 30 lines of a log no importer knows, like a structured application log
const NDJSON = Array.from({ length: 30 }, (_, i) => JSON.stringify({ level: "info", msg: `line ${i}`, time: i })).join("\n") + "\n";

async function* chunks(bytes: Uint8Array) {
  yield bytes;
}

describe("a file in no known format: one error naming what it looks like", () => {
  it("a JSON array of objects names the items' keys", () => {
    const d = detectBytes(enc(ARRAY));
    expect(d.format).toBe("unknown");
    expect(d.message).toMatch(/not recognised: it looks like a JSON array of objects with keys sku, price, qty, note/);
  });

  it("NDJSON names the keys of its lines", () => {
    expect(detectBytes(enc(NDJSON)).message).toMatch(/it looks like NDJSON whose lines have keys level, msg, time/);
  });

  it("a JSON object, a zip that is not an Inspect log, binary and plain text", () => {
    expect(detectBytes(enc('{"name": "x", "items": [1]}')).message).toMatch(/a JSON object with keys name, items/);
    // a local file header naming one member, notes.txt
    const zip = new Uint8Array(30 + 9);
    zip.set([0x50, 0x4b, 0x03, 0x04]);
    zip[26] = 9;
    zip.set(enc("notes.txt"), 30);
    expect(detectBytes(zip).message).toMatch(/a ZIP archive with members notes\.txt/);
    expect(detectBytes(new Uint8Array([1, 0, 2, 0, 3])).message).toMatch(/binary data/);
    expect(detectBytes(enc("just some words\n")).message).toMatch(/text that is not JSON/);
  });

  it("importTrace and the streaming import throw that one message", async () => {
    expect(() => importTrace(NDJSON)).toThrow(/it looks like NDJSON whose lines have keys level, msg, time/);
    await expect(importTraceStreamWhole(chunks(enc(ARRAY)))).rejects.toThrow(/JSON array of objects with keys sku/);
  });
});

describe("through /api/imports and the CLI", () => {
  let t: TestDb | undefined;
  afterAll(async () => {
    await t?.cleanup();
  });

  it("/api/imports answers 415 with the one message, no line errors, nothing stored", async () => {
    t ??= await freshDb("sqlite");
    const db = t.open();
    const req = new Request("http://localhost/api/imports?name=app.log.jsonl", { method: "POST", body: enc(NDJSON) });
    const answer = await answerUpload(db, req, "any", "default");
    expect(answer.status).toBe(415);
    expect(answer.body).toMatchObject({ format: "unknown", errors: [], runs: [] });
    expect(answer.body.error).toMatch(/not recognised: it looks like NDJSON whose lines have keys level, msg, time/);
    const rows = await db.sql.all<{ n: number }>(`SELECT count(*) AS n FROM "Run"`, []);
    expect(Number(rows[0].n)).toBe(0);
  });

  it("the CLI prints it once on stderr and exits 1", async () => {
    t ??= await freshDb("sqlite");
    const file = path.join(inject("tmpDir"), "prices.json");
    fs.writeFileSync(file, ARRAY);
    const r = await promisify(execFile)(process.execPath, [path.resolve("scripts/retrace.mjs"), "import", file], {
      env: { ...process.env, DATABASE_URL: t.url },
    }).then(
      (x) => ({ code: 0, stderr: x.stderr }),
      (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
    );
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/prices\.json: .*it looks like a JSON array of objects with keys sku/),
    ]);
  });
});
