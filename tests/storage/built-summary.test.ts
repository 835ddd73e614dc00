/**
 * The viewer summary stored with an imported run (on PostgreSQL built from the rows as
 * ingest writes them, elsewhere read back after the commit) is the summary its stored rows
 * give: what the run page shows on first opening is what any later rebuild shows. The
 * journal mixes what changes summary columns: redactions, a tampered recorder link, events
 * without hashes, a gap, tool results named from their calls, latencies and tokens.
 */
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { computeEventHash } from "@/lib/journal/chain";
import type { JournalEvent } from "@/lib/journal/types";
import type { Db } from "@/lib/server/db";
import { runVersion } from "@/lib/server/queries";
import { importStream } from "@/lib/server/service";
import { getRunSummaryBinary, STORED_SUMMARY_EVENTS } from "@/lib/server/viewer";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

const N = STORED_SUMMARY_EVENTS + 200;
const SECRET = "sk-" + "Q7".repeat(16);
const TS = (i: number) => new Date(Date.UTC(2026, 10, 7, 11, 0, 0, i * 37)).toISOString();

function journal(run: string, opts: { skip?: number } = {}): string {
  const lines: string[] = [];
  let prev = "";
  for (let seq = 0; seq < N; seq++) {
    const k = seq % 6;
    const type = seq === 0 ? "run.start" : ["step.start", "tool.call", "tool.result", "model.request", "model.response", "note"][k];
    const data: Record<string, unknown> =
      seq === 0
        ? { workflow: { name: "mix", version: "1" } }
        : k === 1
          ? { call: `t${seq}`, tool: "lookup", args: { q: seq % 17 === 1 ? `key ${SECRET}` : `order ${seq}` }, effect: "read" }
          : k === 2
            ? { call: `t${seq - 1}`, status: seq % 10 === 2 ? "error" : "ok", result: { rows: seq }, latencyMs: seq * 1.25 }
            : k === 3
              ? { call: `m${seq}`, model: "planner" }
              : k === 4
                ? { call: `m${seq - 1}`, output: { text: "ok" }, usage: { inputTokens: seq, outputTokens: 3 }, latencyMs: 40 }
                : { name: `step ${seq}`, text: `note ${seq}` };
    const ev = { run, seq, ts: TS(seq), type, step: `s${Math.floor(seq / 6)}`, data } as unknown as JournalEvent;
    if (seq > 0 && k === 3) (ev as unknown as { parent: number }).parent = seq - 2;
    const hash = computeEventHash(prev, ev);
    prev = hash;
    const recorded: Record<string, unknown> = { ...ev };
    // a stretch without recorder hashes, and one link broken after hashing
    if (seq < 3000 || seq > 3100) recorded.hash = hash;
    if (seq === 2000) (recorded.data as Record<string, unknown>).text = "changed after hashing";
    if (seq !== opts.skip) lines.push(JSON.stringify(recorded));
  }
  return lines.join("\n") + "\n";
}

const storedBlob = async (db: Db, run: string) =>
  (await db.sql.all<{ version: string; bytes: Uint8Array }>(`SELECT "version", "bytes" FROM "RunSummaryBlob" WHERE "runId" = ?`, [run]))[0];

describe.each(DIALECTS)("the summary stored with an import on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
  }, 60_000);
  afterAll(async () => t.cleanup());

  const imported = (text: string) => importStream(db, bytesOf(text), { accept: "journal", source: "import", storeSummaries: true });

  async function expectStoredIsReadBack(run: string) {
    const blob = await storedBlob(db, run);
    expect(blob).toBeDefined();
    const v = (await runVersion(db, run))!;
    expect(blob.version).toBe(`${v.updatedAt}|${v.eventCount}|${v.droppedAt}`);
    const readBack = await getRunSummaryBinary(db, run, -1);
    expect(Buffer.from(gunzipSync(blob.bytes)).equals(Buffer.from(readBack!))).toBe(true);
  }

  it("is, byte for byte, the summary read back from the rows (redactions, chain verdicts, a gap)", async () => {
    const r = await imported(journal("built-a", { skip: 4000 }));
    expect(r.errors).toEqual([]);
    expect(r.runs[0]).toMatchObject({ status: "stored", accepted: N - 1 });
    await expectStoredIsReadBack("built-a");
  }, 60_000);

  it("is rebuilt from the rows when the import appends to a run stored before", async () => {
    const lines = journal("built-b").trim().split("\n");
    expect((await imported(lines.slice(0, 100).join("\n") + "\n")).errors).toEqual([]);
    const r = await imported(lines.join("\n") + "\n");
    expect(r.runs[0]).toMatchObject({ status: "stored", accepted: N - 100, duplicates: 100 });
    await expectStoredIsReadBack("built-b");
  }, 60_000);

  it("is not stored for a run the import rejected", async () => {
    const lines = journal("built-c").trim().split("\n");
    lines.push("{not json");
    const r = await imported(lines.join("\n") + "\n");
    expect(r.committed).toBe(false);
    expect(await storedBlob(db, "built-c")).toBeUndefined();
  }, 60_000);
});
