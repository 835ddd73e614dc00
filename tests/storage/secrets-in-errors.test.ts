/**
 * Errors, warnings and reports quote their input (a bad run id, a span's name, a line of
 * JSON): wherever they go (API answers and so the UI's upload report, the CLI), each
 * secret in them is replaced as storage replaces it, with the placeholder storage gives.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Db } from "@/lib/server/db";
import { decodeOtlp } from "@/lib/server/otlp-receiver";
import { importStream, ingestBytes, redactorFor } from "@/lib/server/service";
import { answerUpload } from "@/lib/server/upload";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

// Built at run time so this file holds no literal secret.
const KEY = "AKIA" + "QWERTYUIOPASDFGH";
const BEARER = "Bearer " + "tok3n".repeat(6);
const ts = "2026-11-07T11:00:01.026Z";
const line = (o: object) => JSON.stringify(o) + "\n";
const start = (run: string, seq = 0) => ({ run, seq, ts, type: "run.start", data: { workflow: { name: "w", version: "1" } } });

function post(route: "imports" | "journals", text: string, type = "application/x-ndjson") {
  return new Request(`http://localhost/api/${route}`, { method: "POST", body: text, headers: { "content-type": type } });
}

/** The answer holds none of the secrets, and holds the placeholder storage gives the key. */
async function expectRedacted(db: Db, answer: unknown) {
  const text = JSON.stringify(answer);
  expect(text).not.toContain(KEY);
  expect(text).not.toContain("tok3ntok3n");
  expect(text).toContain((await redactorFor(db)).redactString(KEY));
}

describe.each(DIALECTS)("secrets quoted by errors, on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
  });
  afterAll(async () => t.cleanup());

  it("an invalid run id is answered redacted by POST /api/journals and /api/imports", async () => {
    const body = line(start(`x ${KEY}`)) + line(start("fine-1"));
    for (const route of ["journals", "imports"] as const) {
      const { status, body: answer } = await answerUpload(db, post(route, body), route === "journals" ? "journal" : "any", "default");
      expect(status).toBe(207);
      const errors = answer.errors as Array<{ run?: string; line?: number }>;
      expect(errors.map((e) => e.line)).toEqual([1]);
      expect(errors[0].run).toBe(`x ${(await redactorFor(db)).redactString(KEY)}`);
      await expectRedacted(db, answer);
    }
  });

  it("a live append's error naming another run is redacted", async () => {
    const r = await ingestBytes(db, bytesOf(line(start(KEY))), { mode: "stream", source: "stream", onlyRun: "live-1" });
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0].message).toMatch(/^event belongs to run "\[redacted:aws-access-key:[0-9a-f]{12}\]", not to "live-1"/);
    await expectRedacted(db, r);
  });

  it("an importer's warnings are redacted", async () => {
    const otlp = {
      resourceSpans: [
        {
          resource: { attributes: [] },
          scopeSpans: [
            {
              scope: { name: "t" },
              spans: [
                { traceId: "", spanId: "", name: `leaked ${KEY} ${BEARER}`, startTimeUnixNano: "1", endTimeUnixNano: "2" },
                {
                  traceId: "7a1c2d3e4f5061728394a5b6c7d8e9f1",
                  spanId: "00000000000000a1",
                  name: "invoke_agent a",
                  startTimeUnixNano: "1777555053000000000",
                  endTimeUnixNano: "1777555053005000000",
                  attributes: [],
                },
              ],
            },
          ],
        },
      ],
    };
    const r = await importStream(db, bytesOf(JSON.stringify(otlp)), { accept: "any", source: "import", fileName: "t.json" });
    expect(r.importWarnings?.some((w) => w.includes("[redacted:aws-access-key:"))).toBe(true);
    await expectRedacted(db, r);
  });
});

describe("an OTLP request refused as unreadable", () => {
  it("quotes none of its body", () => {
    for (const body of [`x ${KEY}`, `{"a": ${KEY}}`]) {
      let message = "";
      try {
        decodeOtlp(new TextEncoder().encode(body), "application/json");
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toMatch(/^not a valid OTLP export request: /);
      // not even the first characters of the key, which a cut snippet would still show
      expect(message).not.toContain("AKIA");
    }
  });
});

const exec = promisify(execFile);
async function cli(args: string[], env: Record<string, string>) {
  try {
    const r = await exec(process.execPath, [path.resolve("scripts/retrace.mjs"), ...args], { env: { ...process.env, ...env } });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, out: err.stdout + err.stderr };
  }
}

describe("the CLI", () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDb("sqlite");
  });
  afterAll(async () => t.cleanup());

  it("import prints errors redacted, with the placeholders of the database it imports into", async () => {
    const file = path.join(inject("tmpDir"), `bad-run-${process.pid}.ndjson`);
    fs.writeFileSync(file, line(start(`x ${KEY}`)) + line(start("cli-ok")));
    const env = { DATABASE_URL: t.url };
    for (const args of [
      ["import", file],
      ["import", "--json", file],
    ]) {
      const r = await cli(args, env);
      expect(r.code).toBe(1);
      expect(r.out).not.toContain(KEY);
      const db = t.open();
      expect(r.out).toContain((await redactorFor(db)).redactString(KEY));
      await db.close();
    }
  });

  it("analyze prints run ids and bad lines redacted", async () => {
    const file = path.join(inject("tmpDir"), `analyze-${process.pid}.ndjson`);
    fs.writeFileSync(file, line(start(KEY)) + line({ ...start(KEY, 1), type: "note", data: { text: 1, [KEY]: BEARER } }));
    for (const args of [
      ["analyze", file],
      ["analyze", "--json", file],
    ]) {
      const r = await cli(args, {});
      expect(r.code).toBe(0);
      expect(r.out).not.toContain(KEY);
      expect(r.out).toContain("[redacted:aws-access-key:");
    }
  });
});
