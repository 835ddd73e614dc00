/**
 * Payloads are attacker-controlled: keys named `__proto__`, `constructor` and `prototype`
 * are data. A journal holding them is stored whole (not refused), the keys come back in
 * stored events and API answers, the state rebuilt from patches on them is right, and no
 * step (ingest, redaction, analysis, state, replay, diffing, imports) ever reaches a
 * prototype: `({}).polluted` stays undefined throughout.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { analyzeEvents } from "@/lib/analyze";
import { canonicalJson, hashOf } from "@/lib/canonical";
import { jsonDiff } from "@/lib/compare/json-diff";
import { compareVersions } from "@/lib/compare/versions";
import { computeEventHash, verifyChain } from "@/lib/journal/chain";
import { parseJsonExact, parseLine } from "@/lib/journal/parse-line";
import type { JournalEvent } from "@/lib/journal/types";
import { Redactor } from "@/lib/redact";
import { createReplay } from "@/lib/replay";
import type { Db } from "@/lib/server/db";
import { getRun, listEventBodies } from "@/lib/server/queries";
import { importStream, ingestBytes } from "@/lib/server/service";
import { inspectEvent, stateAt } from "@/lib/server/viewer";
import { applyPatch } from "@/lib/state";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

const SECRET = "AKIA" + "Q7F2LMX9AB3CD4EF";
const TS = "2026-11-07T11:00:01.026Z";
/** JSON.parse makes `__proto__` an own key, as every parser of the code base must. */
const json = <T = Record<string, unknown>>(text: string) => JSON.parse(text) as T;

function notPolluted() {
  const probe = {} as Record<string, unknown>;
  expect(probe.polluted).toBeUndefined();
  expect(probe.x).toBeUndefined();
  expect(Object.prototype.hasOwnProperty.call(Object.prototype, "polluted")).toBe(false);
  expect(Object.getPrototypeOf(probe)).toBe(Object.prototype);
  expect(typeof ({} as { constructor: unknown }).constructor).toBe("function");
}

const STATE0 = `{"__proto__":{"polluted":"state"},"constructor":{"prototype":{"polluted":"state"}},"prototype":1,"n":0}`;
const STATE1 = `{"__proto__":{"polluted":"state","x":2},"constructor":{"prototype":{"polluted":"state"},"polluted":"again"},"n":1}`;
const PATCH = `[
  {"op":"add","path":"/__proto__/x","value":2},
  {"op":"add","path":"/constructor/polluted","value":"again"},
  {"op":"remove","path":"/prototype"},
  {"op":"replace","path":"/n","value":1},
  {"op":"test","path":"/__proto__/polluted","value":"state"}
]`;

function journal(run: string): JournalEvent[] {
  const at = (seq: number, type: string, data: string, extra = "") =>
    json<JournalEvent>(`{"run":"${run}","seq":${seq},"ts":"${TS}","type":"${type}"${extra},"data":${data}}`);
  const events = [
    at(0, "run.start", `{"input":{"__proto__":{"polluted":"input"},"constructor":{"prototype":{"polluted":"input"}}}}`),
    at(1, "state", `{"set":${STATE0},"hash":"${hashOf(json(STATE0))}"}`),
    at(2, "state", `{"patch":${PATCH},"hash":"${hashOf(json(STATE1))}"}`),
    at(
      3,
      "tool.call",
      `{"call":"c1","tool":"fetch_page","effect":"read","args":{"__proto__":{"polluted":"args"},"prototype":{"constructor":{"polluted":1}}}}`,
    ),
    at(4, "tool.result", `{"call":"c1","status":"ok","result":{"__proto__":"${SECRET}","constructor":"a page said so"}}`),
    at(5, "note", `{"text":"top-level keys too"}`, `,"__proto__":{"polluted":"envelope"}`),
    at(6, "run.end", `{"status":"succeeded"}`),
  ];
  let prev = "";
  for (const e of events) prev = e.hash = computeEventHash(prev, e);
  return events;
}
const nd = (events: object[]) => events.map((e) => JSON.stringify(e)).join("\n") + "\n";

afterEach(notPolluted);

describe("pure code: keys named like prototypes are data", () => {
  it("the line parser accepts them as own keys", () => {
    const line = nd([journal("r")[3]]).trim();
    const r = parseLine(line);
    expect(r.ok).toBe(true);
    const args = (r as { event: JournalEvent }).event.data.args as object;
    expect(Object.keys(args)).toEqual(["__proto__", "prototype"]);
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
  });

  it("JSON Patch reads and writes them as own keys and never reaches a prototype", () => {
    const r = applyPatch(json(STATE0), json(PATCH));
    expect(r.ok).toBe(true);
    expect(canonicalJson(r.state)).toBe(canonicalJson(json(STATE1)));
    // adding `__proto__` where it is absent creates the key, never a prototype
    const added = applyPatch({}, json(`[{"op":"add","path":"/__proto__","value":{"polluted":true}}]`));
    expect(added.ok && Object.keys(added.state as object)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(added.ok ? added.state : null)).toBe(Object.prototype);
    // a path through a key that is not there (inherited only) does not exist
    for (const path of ["/__proto__/polluted", "/constructor/prototype/polluted", "/toString/polluted"]) {
      expect(applyPatch({}, [{ op: "add", path, value: true }]).ok).toBe(false);
    }
    expect(applyPatch({}, [{ op: "replace", path: "/constructor", value: 1 }]).ok).toBe(false);
  });

  it("redaction keeps the key and replaces a secret under it", () => {
    const r = new Redactor(new Uint8Array(32).fill(7)).redact(json(`{"__proto__":"${SECRET}","a":{"__proto__":"${SECRET}"}}`));
    expect(r.count).toBe(2);
    expect(JSON.stringify(r.value)).not.toContain(SECRET);
    expect(Object.keys(r.value)).toEqual(["__proto__", "a"]);
  });

  it("the chain hashes an envelope key named __proto__ (the hash verifies)", () => {
    expect(verifyChain(journal("r")).firstFailure).toBeNull();
    expect(canonicalJson(journal("r")[5])).toContain(`"__proto__":{"polluted":"envelope"}`);
  });

  it("analysis, replay and diffing treat them as data", () => {
    const events = journal("r");
    expect(analyzeEvents(events).map((f) => f.rule)).toEqual(["secret.exposed"]);
    const replay = createReplay(events);
    expect(canonicalJson(replay.stateAt(replay.frames.length - 1))).toBe(canonicalJson(json(STATE1)));
    expect(jsonDiff({}, json(`{"constructor":{"__proto__":1}}`))).toEqual([{ op: "add", path: "/constructor", value: `{"__proto__":1}` }]);
    const versions = compareVersions(json(`{"versions":{"prompts":{"constructor":"v1","__proto__":"v2"}}}`), {});
    expect(versions.filter((r) => r.group === "prompts").map((r) => [r.name, r.a, r.b])).toEqual([
      ["__proto__", "v2", null],
      ["constructor", "v1", null],
    ]);
    const lines = jsonDiff(json(STATE0), json(STATE1));
    expect(lines.map((l) => `${l.op} ${l.path}`).sort()).toEqual([
      "add /__proto__/x",
      "add /constructor/polluted",
      "remove /prototype",
      "replace /n",
    ]);
  });
});

describe.each(DIALECTS)("stored and answered as data, on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
  });
  afterAll(async () => t.cleanup());

  it("stores a journal holding such keys whole; they round-trip in stored events and answers", async () => {
    const events = journal("proto-keys");
    const r = await ingestBytes(db, bytesOf(nd(events)), { mode: "upload", source: "upload" });
    expect(r.errors).toEqual([]);
    expect(r.runs).toMatchObject([{ run: "proto-keys", status: "stored", accepted: 7 }]);
    const run = (await getRun(db, "proto-keys"))!;
    expect(run.chainStatus).toBe("verified");
    expect(run.findings.map((f) => `${f.rule}@${f.seq}`)).toEqual(["secret.exposed@4"]);

    const stored = (await listEventBodies(db, "proto-keys", -1, 100)).map((b) => parseJsonExact(b.body) as JournalEvent);
    const bare = (e: JournalEvent) => canonicalJson({ ...e, hash: undefined });
    for (const seq of [0, 1, 2, 3, 5]) expect(bare(stored[seq])).toBe(bare(events[seq]));
    const result = stored[4].data.result as Record<string, unknown>;
    expect(Object.keys(result)).toEqual(["__proto__", "constructor"]);
    expect(result["__proto__"]).toMatch(/^\[redacted:aws-access-key:[0-9a-f]{12}\]$/);

    const state = await stateAt(db, "proto-keys", 2);
    expect(state.error).toBeNull();
    expect(canonicalJson(state.after)).toBe(canonicalJson(json(STATE1)));
    expect(state.rebuiltHash).toBe(hashOf(json(STATE1)));
    const answer = json<{ event: { event: JournalEvent } }>((await inspectEvent(db, "proto-keys", 3, true))!);
    expect(Object.keys(answer.event.event.data.args as object)).toEqual(["__proto__", "prototype"]);

    // live append of the same journal, out of order (re-fold from stored events)
    for (const batch of [
      [events[0], events[2]],
      [events[1], events[4], events[3]],
      [events[6], events[5]],
    ]) {
      const live = await ingestBytes(db, bytesOf(nd(batch.map((e) => ({ ...e, run: "proto-live", hash: undefined })))), {
        mode: "stream",
        source: "stream",
        onlyRun: "proto-live",
      });
      expect(live.errors).toEqual([]);
    }
    expect((await getRun(db, "proto-live"))!.findings.map((f) => `${f.rule}@${f.seq}`)).toEqual(["secret.exposed@4"]);
  });

  it("keeps such attribute keys of an OTLP export as data", async () => {
    const attrs = `[{"key":"__proto__","value":{"stringValue":"from a span"}},{"key":"constructor","value":{"kvlistValue":{"values":[{"key":"prototype","value":{"stringValue":"p"}}]}}}]`;
    const otlp = `{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","name":"tool fetch","startTimeUnixNano":"1762513201026000000","endTimeUnixNano":"1762513202026000000","attributes":${attrs}}]}]}]}`;
    const r = await importStream(db, bytesOf(otlp), { accept: "any", source: "import" });
    expect(r.errors).toEqual([]);
    const run = r.runs[0].run;
    const bodies = (await listEventBodies(db, run, -1, 100)).map((b) => b.body).join("\n");
    expect(bodies).toContain(`"__proto__":"from a span"`);
    expect(bodies).not.toContain(`"_proto_"`);
  });
});
