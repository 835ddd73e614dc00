/**
 * The small hardening items of issue 14, each with what a user relies on: a clear 400
 * for numbers JSON cannot store, NUL bytes and impossible dates; search text taken
 * literally; an empty body said to be empty; /api/imports' content types; tags with
 * spaces kept whole; the origin shown on the runs page trusted only behind a proxy.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/server/db";
import { parseQuery } from "@/lib/server/http";
import { displayOrigin } from "@/lib/server/origin";
import { getRun, listEventBodies, listRuns, runHasEvents, runListQuery } from "@/lib/server/queries";
import { ingestBytes } from "@/lib/server/service";
import { answerUpload } from "@/lib/server/upload";
import { getRunSummaryText, inspectEvent, searchEvents, searchQuery, stateAt } from "@/lib/server/viewer";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

const TS = "2026-11-07T11:00:01.026Z";
const NUL = "\u0000";
const nd = (events: object[]) => events.map((e) => JSON.stringify(e)).join("\n") + "\n";
const upload = (db: Db, text: string) => ingestBytes(db, bytesOf(text), { mode: "upload", source: "upload" });
const post = (db: Db, accept: "journal" | "any", body: string, type = "application/x-ndjson") =>
  answerUpload(db, new Request("http://127.0.0.1/api/x", { method: "POST", body, headers: { "content-type": type } }), accept, "default");

describe.each(DIALECTS)("small items on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
    const start = (run: string, workflow: string, tags: string[]) => ({
      run,
      seq: 0,
      ts: TS,
      type: "run.start",
      data: { workflow: { name: workflow }, tags },
    });
    const r = await upload(
      db,
      nd([
        start("w-percent", "50% off", ["x_y", "two words"]),
        start("w-plain", "500 off", ["xzy", "two", "words"]),
        start("w-under", "a_b", []),
        start("w-other", "axb", ["a\\b"]),
      ]),
    );
    expect(r.errors).toEqual([]);
  });
  afterAll(async () => t.cleanup());

  const ids = async (q: Record<string, string>) => (await listRuns(db, runListQuery.parse(q), "all")).runs.map((r) => r.id).sort();

  it("answers a number beyond a double's range with a 400 naming the line", async () => {
    const body =
      nd([{ run: "big-num", seq: 0, ts: TS, type: "note", data: { text: "x" } }]) +
      `{"run":"big-num","seq":1,"ts":"${TS}","type":"note","data":{"text":"x","n":1e400}}\n`;
    const a = await post(db, "journal", body);
    expect(a.status).toBe(400);
    expect(a.body.errors).toMatchObject([{ line: 2, run: "big-num", message: expect.stringMatching(/out of range.*1e400/) }]);
    expect(await getRun(db, "big-num")).toBeNull();
  });

  it("refuses a NUL byte in filters and search with a 400, and a run id holding one names no run", async () => {
    for (const key of ["q", "tag", "status", "workflow", "environment", "cursor"]) {
      const r = parseQuery(runListQuery, `http://127.0.0.1/api/runs?${key}=a%00b`);
      expect(r.ok, key).toBe(false);
      if (!r.ok) {
        expect(r.response.status).toBe(400);
        expect(((await r.response.json()) as { error: string }).error).toMatch(new RegExp(`${key}: must not contain a NUL`));
      }
    }
    expect(searchQuery.safeParse({ q: `x${NUL}` }).success).toBe(false);
    const id = `w-percent${NUL}`;
    expect(await getRun(db, id)).toBeNull();
    expect(await listEventBodies(db, id, -1, 10)).toEqual([]);
    expect(await runHasEvents(db, id)).toBe(false);
    expect(await inspectEvent(db, id, 0, true)).toBeNull();
    expect(await getRunSummaryText(db, id, -1)).toBeNull();
    expect(await searchEvents(db, "w-percent", `a${NUL}`, 10)).toEqual({ seqs: [], truncated: false, next: null });
    expect((await stateAt(db, id, 0)).changedAt).toBeNull();
  });

  it("takes % and _ in the search and the tag filter literally", async () => {
    expect(await ids({ q: "50%" })).toEqual(["w-percent"]);
    expect(await ids({ q: "a_b" })).toEqual(["w-under"]);
    expect(await ids({ q: "A_B" })).toEqual(["w-under"]);
    expect(await ids({ q: "%" })).toEqual(["w-percent"]);
    expect(await ids({ tag: "x_y" })).toEqual(["w-percent"]);
    expect(await ids({ tag: "a\\b" })).toEqual(["w-other"]);
    expect(await ids({ tag: "%" })).toEqual([]);
  });

  it("keeps a tag with spaces whole, shown and filtered as one tag", async () => {
    expect((await getRun(db, "w-percent"))!.tags).toEqual(["x_y", "two words"]);
    expect((await getRun(db, "w-plain"))!.tags).toEqual(["xzy", "two", "words"]);
    expect(await ids({ tag: "two words" })).toEqual(["w-percent"]);
    expect(await ids({ tag: "two" })).toEqual(["w-plain"]);
    expect(await ids({ tag: "words" })).toEqual(["w-plain"]);
    // a row written before (space-separated tags) is still read and filtered
    await db.sql.transaction((tx) => tx.run(`UPDATE "Run" SET "tags" = ' old legacy ' WHERE "id" = ?`, ["w-under"]));
    expect((await getRun(db, "w-under"))!.tags).toEqual(["old", "legacy"]);
    expect(await ids({ tag: "legacy" })).toEqual(["w-under"]);
  });

  it("refuses impossible dates in events and in the from/to filters", async () => {
    const at = (ts: string) => nd([{ run: `d-${ts.slice(0, 10)}`, seq: 0, ts, type: "note", data: { text: "x" } }]);
    for (const ts of [
      "2026-13-45T99:99:99Z",
      "2026-02-29T00:00:00Z",
      "2026-04-31T00:00:00Z",
      "2026-11-07T24:00:00Z",
      "2026-11-07T11:60:00Z",
      "2026-11-07T11:00:00+25:00",
    ]) {
      const r = await upload(db, at(ts));
      expect(r.errors, ts).toMatchObject([
        { line: 1, message: expect.stringMatching(/ts: expected an RFC 3339 timestamp of a date and time that exist/) },
      ]);
    }
    expect((await upload(db, at("2028-02-29T23:59:59.999+01:00"))).errors).toEqual([]);
    expect((await upload(db, at("2000-02-29T00:00:00Z"))).errors).toEqual([]);
    for (const from of ["2026-13-45", "2026-02-30", "2026-11-07T25:00:00Z", "tomorrow"]) {
      const r = parseQuery(runListQuery, `http://127.0.0.1/api/runs?from=${encodeURIComponent(from)}`);
      expect(r.ok, from).toBe(false);
    }
    expect(parseQuery(runListQuery, `http://127.0.0.1/api/runs?from=2026-11-07&to=2026-11-08T00:00:00Z`).ok).toBe(true);
  });

  it("says why a body of blank lines is refused", async () => {
    for (const accept of ["journal", "any"] as const) {
      const a = await post(db, accept, "\n\n \n");
      expect(a.status).toBe(400);
      expect(a.body.error).toMatch(/holds no events/);
    }
    const live = await ingestBytes(db, bytesOf("\n"), { mode: "stream", source: "stream", onlyRun: "blank" });
    expect(live.unreadable).toMatch(/holds no events/);
  });

  it("accepts /api/imports bodies only with the documented content types", async () => {
    const body = nd([{ run: "typed", seq: 0, ts: TS, type: "note", data: { text: "x" } }]);
    for (const type of ["text/html", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "image/png"]) {
      const a = await post(db, "any", body, type);
      expect(a.status, type).toBe(415);
      expect(a.body.error).toMatch(/application\/octet-stream/);
    }
    expect(await getRun(db, "typed")).toBeNull();
    for (const type of ["application/octet-stream", "application/json", "application/x-ndjson", "application/gzip"]) {
      expect((await post(db, "any", body, type)).status, type).toBeLessThan(300);
    }
  });
});

describe("the origin shown on the runs page", () => {
  const h = (o: Record<string, string>) => new Headers(o);
  it("comes from Host unless RETRACE_TRUST_PROXY=1, and is never anything but a host", () => {
    const forwarded = h({ host: "127.0.0.1:3000", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" });
    expect(displayOrigin(forwarded, {})).toBe("http://127.0.0.1:3000");
    expect(displayOrigin(forwarded, { RETRACE_TRUST_PROXY: "1" })).toBe("https://evil.example");
    expect(displayOrigin(h({ host: "a.example", "x-forwarded-host": "b.example, c.example" }), { RETRACE_TRUST_PROXY: "1" })).toBe(
      "http://b.example",
    );
    expect(displayOrigin(h({ host: "x; rm -rf ~" }), {})).toBe("http://127.0.0.1:3000");
    expect(displayOrigin(h({ host: "[::1]:3000" }), {})).toBe("http://[::1]:3000");
    expect(displayOrigin(h({ host: "localhost:3000", "x-forwarded-proto": "javascript" }), { RETRACE_TRUST_PROXY: "1" })).toBe(
      "http://localhost:3000",
    );
  });
});
