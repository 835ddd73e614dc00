/**
 * The upload (POST /api/imports, the UI's upload button) takes a folder of session files as
 * a zip: a Cline task folder zipped stores its run; a zip with nothing Retrace reads is
 * refused with the one error that says so, and nothing is stored.
 */
import fs from "node:fs";
import { gunzipSync } from "node:zlib";
import { zipSync } from "fflate";
import { afterAll, describe, expect, it } from "vitest";
import { answerUpload } from "@/lib/server/upload";
import { getRun } from "@/lib/server/queries";
import { freshDb, type TestDb } from "../helpers/db";

const FIX = "tests/fixtures/agent-folders/cline/1769064454592";

function post(bytes: Uint8Array, name: string) {
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.slice(at, (at += 4096)));
    },
  });
  return new Request(`http://localhost/api/imports?name=${encodeURIComponent(name)}`, {
    method: "POST",
    body,
    headers: { "content-type": "application/zip" },
    duplex: "half",
  } as RequestInit);
}

const dbs: TestDb[] = [];
afterAll(async () => {
  for (const t of dbs) await t.cleanup();
});

describe("uploading a zip of a session folder", () => {
  it("a zipped Cline task folder stores its run, read as a Cline task", async () => {
    const t = await freshDb("sqlite");
    dbs.push(t);
    const db = t.open();
    const files = ["api_conversation_history.json", "ui_messages.json", "task_metadata.json"];
    const zip = zipSync(Object.fromEntries(files.map((f) => [`1769064454592/${f}`, gunzipSync(fs.readFileSync(`${FIX}/${f}.gz`))])));
    const answer = await answerUpload(db, post(zip, "task.zip"), "any", "default");
    expect(answer.status).toBe(201);
    expect(answer.body.format).toBe("session-folder");
    const runs = answer.body.runs as Array<{ run: string; status: string }>;
    expect(runs.map((r) => [r.run, r.status])).toEqual([["cline-1769064454592", "stored"]]);
    const api = JSON.parse(gunzipSync(fs.readFileSync(`${FIX}/api_conversation_history.json.gz`)).toString()) as Array<{ role: string }>;
    const run = await getRun(db, "cline-1769064454592");
    expect(run?.eventCount).toBeGreaterThan(api.filter((m) => m.role === "assistant").length * 3);
  });

  it("a zipped Claude Code project with a sub-agent's transcript stores one run, the sub-agent's calls in it", async () => {
    const t = await freshDb("sqlite");
    dbs.push(t);
    const db = t.open();
    const src = "tests/fixtures/agent-cli/claude-code-2.1.337-subagent";
    const session = "5d111294-64c9-4a08-a928-b587069ec457";
    const rels = [
      `${session}.jsonl`,
      `${session}/subagents/agent-a9b27a7e8deafe59d.jsonl`,
      `${session}/subagents/agent-a9b27a7e8deafe59d.meta.json`,
    ];
    const zip = zipSync(Object.fromEntries(rels.map((f) => [`project/${f}`, fs.readFileSync(`${src}/${f}`)])));
    const answer = await answerUpload(db, post(zip, "project.zip"), "any", "default");
    expect(answer.status).toBe(201);
    const runs = answer.body.runs as Array<{ run: string; status: string }>;
    expect(runs.map((r) => [r.run, r.status])).toEqual([[`claude-${session}`, "stored"]]);
    const count = (rel: string) =>
      new Set(
        fs
          .readFileSync(`${src}/${rel}`, "utf8")
          .split("\n")
          .filter((l) => l.trim())
          .map((l) => JSON.parse(l) as { type: string; message?: { id?: string } })
          .filter((l) => l.type === "assistant")
          .map((l) => l.message!.id),
      ).size;
    const rows = await db.sql.all<{ n: number }>(`SELECT count(*) AS n FROM "Event" WHERE "runId" = ? AND "type" = 'model.response'`, [
      `claude-${session}`,
    ]);
    expect(Number(rows[0].n)).toBe(count(rels[0]) + count(rels[1]));
  });

  it("a zip with nothing Retrace reads is refused with one error, nothing stored", async () => {
    const t = await freshDb("sqlite");
    dbs.push(t);
    const db = t.open();
    const zip = zipSync({ "a/settings.json": new TextEncoder().encode('{"theme":"dark"}') });
    const answer = await answerUpload(db, post(zip, "stuff.zip"), "any", "default");
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect(JSON.stringify(answer.body)).toMatch(/the folder holds nothing Retrace reads \(1 file looked at/);
    const rows = await db.sql.all<{ n: number }>(`SELECT count(*) AS n FROM "Run"`, []);
    expect(Number(rows[0].n)).toBe(0);
  });
});
