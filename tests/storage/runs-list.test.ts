import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/server/db";
import { getRun, listRuns, runListQuery } from "@/lib/server/queries";
import { ingestBytes } from "@/lib/server/service";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

function run(
  id: string,
  i: number,
  opts: { workflow: string; env: string; status: "succeeded" | "failed"; tags: string[]; tool: string; events: number },
) {
  const ts = (k: number) => new Date(Date.UTC(2026, 10, 1 + i, 10, 0, k)).toISOString();
  const lines: object[] = [
    {
      run: id,
      seq: 0,
      ts: ts(0),
      type: "run.start",
      data: { workflow: { name: opts.workflow, version: "1" }, environment: opts.env, tags: opts.tags },
    },
  ];
  for (let s = 1; s < opts.events - 1; s++)
    lines.push({ run: id, seq: s, ts: ts(s), type: "tool.call", data: { call: `c${s}`, tool: opts.tool, args: {}, effect: "read" } });
  lines.push({ run: id, seq: opts.events - 1, ts: ts(opts.events), type: "run.end", data: { status: opts.status } });
  return lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
}

describe.each(DIALECTS)("runs list on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
    let text = "";
    for (let i = 0; i < 12; i++) {
      text += run(`run-${String(i).padStart(2, "0")}`, i, {
        workflow: i % 2 ? "refund" : "booking",
        env: i % 3 ? "production" : "staging",
        status: i % 4 ? "succeeded" : "failed",
        tags: i % 5 ? ["nightly"] : ["canary", "nightly"],
        tool: i === 7 ? "issue_refund" : "lookup",
        events: 3 + i,
      });
    }
    const r = await ingestBytes(db, bytesOf(text), { mode: "upload", source: "upload" });
    expect(r.errors).toEqual([]);
  });
  afterAll(async () => t.cleanup());

  const ids = async (q: Record<string, string>) => (await listRuns(db, runListQuery.parse(q), "all")).runs.map((r) => r.id);

  it("sorts newest first and pages with a cursor without gaps or repeats", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await listRuns(db, runListQuery.parse({ limit: "5", ...(cursor ? { cursor } : {}) }), "all");
      seen.push(...page.runs.map((r) => r.id));
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(Array.from({ length: 12 }, (_, i) => `run-${String(11 - i).padStart(2, "0")}`));
  });

  it("filters by status, workflow, environment, tag, date range and free text", async () => {
    expect(await ids({ status: "failed" })).toEqual(["run-08", "run-04", "run-00"]);
    expect((await ids({ workflow: "refund" })).every((id) => Number(id.slice(4)) % 2 === 1)).toBe(true);
    expect(await ids({ environment: "staging" })).toEqual(["run-09", "run-06", "run-03", "run-00"]);
    expect(await ids({ tag: "canary" })).toEqual(["run-10", "run-05", "run-00"]);
    expect(await ids({ from: "2026-11-03", to: "2026-11-05T23:59:59Z" })).toEqual(["run-04", "run-03", "run-02"]);
    expect(await ids({ q: "issue_refund" })).toEqual(["run-07"]);
    expect(await ids({ q: "run-1" })).toEqual(["run-11", "run-10"]);
  });

  it("sorts by events and carries the summary the list shows", async () => {
    expect(await ids({ sort: "-events", limit: "2" })).toEqual(["run-11", "run-10"]);
    const [top] = (await listRuns(db, runListQuery.parse({ limit: "1" }), "all")).runs;
    expect(top).toMatchObject({
      id: "run-11",
      workflow: "refund",
      environment: "production",
      status: "succeeded",
      eventCount: 14,
      live: false,
      fidelity: "partial",
    });
    expect(top.durationMs).toBe(14_000);
  });

  // last: it adds a run the tests above do not expect
  it("a run whose source recorded no times shows no start or duration, only that", async () => {
    const id = "no-times-run";
    const at = (k: number) => new Date(k).toISOString(); // what the importers give such sources
    const text = [
      {
        run: id,
        seq: 0,
        ts: at(0),
        type: "run.start",
        data: { workflow: { name: "swe", version: "1" }, source: { format: "swe-agent", timestamps: "synthetic" } },
      },
      { run: id, seq: 1, ts: at(1), type: "run.end", data: { status: "succeeded" } },
    ]
      .map((l) => JSON.stringify(l))
      .join("\n");
    expect((await ingestBytes(db, bytesOf(text + "\n"), { mode: "upload", source: "import" })).errors).toEqual([]);
    const listed = (await listRuns(db, runListQuery.parse({ q: id }), "all")).runs;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ id, timesRecorded: false, startedAt: null, endedAt: null, durationMs: null });
    expect(await getRun(db, id)).toMatchObject({ timesRecorded: false, startedAt: null, durationMs: null });
    // a run with real times keeps them
    expect(await getRun(db, "run-03")).toMatchObject({ timesRecorded: true, startedAt: "2026-11-04T10:00:00.000Z", durationMs: 6000 });
  });
});
