/**
 * The secret table: every kind of secret the redactor knows (the format's patterns, a
 * secret-named field, and those found beyond the format) through every field of every
 * path a user's text reaches the server by: an uploaded journal and a live append (a
 * value, an object key, a tool name a tool.result's row and the run summary derive, a
 * step and workflow name), OTLP JSON spans (an attribute's value, an attribute's name, a
 * span's name), an imported trace file (the same), a reconcile (its evidence, external id
 * and reason), an API key's name, an executor's URL and name, a project's name, a user's
 * name, a model price's name, a reviewer field and a note.
 * Then the raw secret is looked for in the stored database (the SQLite file and its WAL
 * bytes; a pg_dump of PostgreSQL), in every answer the calls gave and the reads a page or
 * the API makes, and in a bundle of every run in each profile (the real export code).
 *
 * The paths are the service functions the route handlers call (answerUpload, answerOtlp,
 * ingestBytes as the live append route calls it, reconcile, createKey, addExecutor,
 * addProject, addUser, setModelPrices, setReviewerFields, addNote, exportBundle). A refusal (a key name or URL that cannot hold a
 * secret) counts as tried: its answer is scanned too.
 */
import fs from "node:fs";
import { execFileSync } from "node:child_process";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/access/roles";
import { addProject, addUser, listProjects, listUsers } from "@/lib/server/access/accounts";
import { listAudit } from "@/lib/server/access/audit-log";
import { createKey, listKeys } from "@/lib/server/access/keys";
import type { Db } from "@/lib/server/db";
import { addNote, exportBundle, listNotes, reviewerFieldsOf, setReviewerFields } from "@/lib/server/evidence";
import { modelPricesOf, setModelPrices } from "@/lib/server/prices";
import { answerOtlp } from "@/lib/server/otlp-receiver";
import { addExecutor, listExecutors } from "@/lib/server/live/executors";
import { branchInfo, runEvents } from "@/lib/server/live/branches";
import { reconcile } from "../live/through-edge";
import { findingsOf, getRun, listEventBodies, listRuns, runListQuery } from "@/lib/server/queries";
import { ingestBytes } from "@/lib/server/service";
import { answerUpload } from "@/lib/server/upload";
import { getRunSummaryText, inspectEvent, searchEvents } from "@/lib/server/viewer";
import { Redactor } from "@/lib/redact";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

/** One secret of a kind for one cell: how it reads in text, and the raw pieces found nowhere. */
interface Secret {
  /** the secret as free text (a value, a name, a key, a note); null: it has no such form */
  text: string | null;
  needles: string[];
  /** the secret as a JSON value under this key (`bare` its value): found by the key it sits under */
  underKey?: string;
  bare?: string;
}

/** A kind of secret: a fresh one for a cell from a 4-character code ([0-9A-Z]), so a find names its cell. */
interface Kind {
  kind: string;
  make(code: string): Secret;
}

// Built at run time: no literal secret in this file.
const rep = (s: string, n: number) => s.repeat(n);
const awsSecret = (code: string) => "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPL" + code;
const one = (text: string, needle: string): Secret => ({ text, needles: [needle] });
const KINDS: Kind[] = [
  { kind: "aws-access-key", make: (c) => one("AKIA" + c + "QWERTYUIOPAS", "AKIA" + c) },
  { kind: "aws-access-key (ASIA)", make: (c) => one("ASIA" + c + "QWERTYUIOPAS", "ASIA" + c) },
  { kind: "openai-key", make: (c) => one("sk-" + "proj_" + c + rep("Zx9", 8), "proj_" + c) },
  { kind: "stripe-key", make: (c) => one("sk_live_" + c + rep("Ab1", 6), "sk_live_" + c) },
  { kind: "github-token", make: (c) => one("ghp_" + c + rep("Gh7", 12), "ghp_" + c) },
  {
    kind: "github-fine-grained-token",
    make: (c) => one("github_pat_" + "11AB" + c + "CD3EF4GH5IJ6KL_" + rep("Pq8", 19) + "xy", "11AB" + c),
  },
  { kind: "slack-token", make: (c) => one("xoxb-" + "123456789012-" + c + "abcdefghij", "123456789012-" + c) },
  { kind: "google-api-key", make: (c) => one("AIza" + c + rep("Sy9", 10) + "x", "AIza" + c) },
  {
    kind: "jwt",
    make: (c) => one("eyJ" + "hbGciOiJIUzI1NiJ9" + "." + "eyJzdWIiOiIxMjM0In0" + "." + "SflKxw" + c + "RJSMeKKF2QT4", "SflKxw" + c),
  },
  {
    kind: "private-key",
    make: (c) =>
      one(`-----BEGIN PRIVATE KEY-----\nMIIEvQ${c}IBADANBgkqhkiG9w0BAQEFAASC${rep("Q", 30)}\n-----END PRIVATE KEY-----`, "MIIEvQ" + c),
  },
  { kind: "bearer-token", make: (c) => one("Bearer " + c + rep("tok3n", 6), c + "tok3ntok3n") },
  { kind: "url-password", make: (c) => one("postgres://admin:" + "s3cr3t-" + c + "-Pa55word" + "@db.internal/x", "s3cr3t-" + c) },
  {
    kind: "aws-secret-key (beside its id)",
    make: (c) => ({ text: `AKIA${c}ZXCVBNMLKJHG ${awsSecret(c)}`, needles: [awsSecret(c), "AKIA" + c] }),
  },
  { kind: "aws-secret-key (assigned)", make: (c) => one(`AWS_SECRET_ACCESS_KEY=${awsSecret(c)}`, awsSecret(c)) },
  {
    kind: "aws-secret-key (under its key name)",
    make: (c) => ({
      text: `aws_secret_access_key: ${awsSecret(c)}`,
      needles: [awsSecret(c)],
      underKey: "aws_secret_access_key",
      bare: awsSecret(c),
    }),
  },
  // a secret-named field is one by its key alone: it has no free-text form
  {
    kind: "secret-field",
    make: (c) => ({ text: null, needles: [`hunter2-${c}-field`], underKey: "password", bare: `hunter2-${c}-field-secret` }),
  },
];

/** Every cell tried: a path, a field, a kind, and its own secret. */
interface Cell {
  label: string;
  needles: string[];
}

class Cells {
  readonly all: Cell[] = [];
  /** A fresh secret of `k` for the cell `path · field` as text, or null when the kind has no free-text form. */
  text(k: Kind, path: string, field: string): string | null {
    return this.secret(k, path, field, (x) => x.text !== null)?.text ?? null;
  }
  /** A fresh secret as a JSON value: the text, or an object with the secret under its key. */
  value(k: Kind, path: string, field: string): unknown {
    const s = this.secret(k, path, field, () => true)!;
    return s.underKey ? { [s.underKey]: s.bare } : s.text;
  }
  private secret(k: Kind, path: string, field: string, fits: (s: Secret) => boolean): Secret | null {
    const s = k.make(this.all.length.toString(36).toUpperCase().padStart(4, "0"));
    if (!fits(s)) return null;
    this.all.push({ label: `${path} · ${field} · ${k.kind}`, needles: s.needles });
    return s;
  }
}

const TS = "2026-11-07T11:00:01.026Z";

/** A journal with a secret in every field of an event a path can carry (each its own cell). */
function journal(run: string, k: Kind, cells: Cells, path: string): string {
  const name = (field: string, otherwise: string) => cells.text(k, path, field) ?? otherwise;
  const keyed = (field: string) => {
    const t = cells.text(k, path, field);
    return t === null ? {} : { [t]: "as a key" };
  };
  const events: object[] = [
    { run, seq: 0, ts: TS, type: "run.start", data: { workflow: { name: name("workflow name", "wf"), version: "1" } } },
    { run, seq: 1, ts: TS, type: "step.start", data: { name: name("step name", "step"), kind: "tool" } },
    {
      run,
      seq: 2,
      ts: TS,
      type: "tool.call",
      step: "s1",
      data: {
        call: "c1",
        // its tool.result's name column and the run summary derive from it
        tool: name("tool name", "lookup"),
        effect: "write",
        args: { value: cells.value(k, path, "argument value"), ...keyed("object key"), nested: [keyed("nested object key")] },
      },
    },
    {
      run,
      seq: 3,
      ts: TS,
      type: "tool.result",
      step: "s1",
      data: { call: "c1", status: "unknown", result: cells.value(k, path, "result value") },
    },
    { run, seq: 4, ts: TS, type: "state", data: { set: { v: cells.value(k, path, "state value") }, hash: "sha256:" + "0".repeat(64) } },
  ];
  return events.map((e) => JSON.stringify(e)).join("\n") + "\n";
}

function otlpBody(trace: string, k: Kind, cells: Cells, path: string): string {
  const attr = (key: string, value: string) => ({ key, value: { stringValue: value } });
  const attrs = [
    attr("gen_ai.operation.name", "execute_tool"),
    attr("gen_ai.tool.name", "lookup"),
    attr("gen_ai.tool.call.id", "c1"),
    attr("gen_ai.tool.call.arguments", JSON.stringify({ q: cells.value(k, path, "tool arguments (JSON in a string)") })),
  ];
  const value = cells.text(k, path, "attribute value");
  if (value !== null) attrs.push(attr("app.note", value));
  const named = cells.text(k, path, "attribute name");
  if (named !== null) attrs.push(attr(named, "attribute named by the secret"));
  const dotted = cells.text(k, path, "attribute name (dotted)");
  if (dotted !== null) attrs.push(attr(`x.${dotted}`, "v"));
  const spanName = cells.text(k, path, "span name");
  const span = (spanId: string, name: string, parentSpanId: string, attributes: object[]) => ({
    traceId: trace,
    spanId,
    parentSpanId,
    name,
    kind: 1,
    startTimeUnixNano: "1777555053000000000",
    endTimeUnixNano: "1777555053005000000",
    attributes,
    status: { code: 1 },
  });
  const spans = [
    span("00000000000000a1", "invoke_agent agent", "", [attr("gen_ai.operation.name", "invoke_agent")]),
    span("00000000000000a2", spanName !== null ? `execute_tool ${spanName}` : "execute_tool lookup", "00000000000000a1", attrs),
  ];
  return JSON.stringify({
    resourceSpans: [{ resource: { attributes: [attr("service.name", "agent")] }, scopeSpans: [{ scope: { name: "t" }, spans }] }],
  });
}

const PASSWORDLESS: Principal = { kind: "open" };

interface Found {
  cells: number;
  /** the labels of the cells whose secret was found there */
  storage: string[];
  answers: string[];
  bundles: string[];
}

async function runTable(t: TestDb): Promise<Found> {
  // the executor listens on loopback, allowed as the quick start allows it (docs/live-actions.md)
  const db: Db = t.open({ RETRACE_EXECUTOR_HOSTS: "127.0.0.1" });
  const answers: string[] = [];
  const keep = (x: unknown) => answers.push(typeof x === "string" ? x : (JSON.stringify(x) ?? ""));
  /** A call's answer, or its refusal's message: both are what the caller is told. */
  const tryIt = async <R>(f: () => Promise<R>): Promise<R | null> => {
    try {
      const r = await f();
      keep(r);
      return r;
    } catch (e) {
      keep((e as Error).message);
      return null;
    }
  };
  const cells = new Cells();
  const runs: string[] = [];
  const executor = (
    await addExecutor(db, {
      project: "default",
      kind: "tool",
      name: "*",
      environment: "sandbox",
      url: "http://127.0.0.1:9/executor",
      createdBy: "test",
    })
  ).id;

  for (const [i, k] of KINDS.entries()) {
    // an uploaded journal (POST /api/journals)
    const up = `t-upload-${i}`;
    const upload = await answerUpload(
      db,
      new Request("http://127.0.0.1/api/journals", {
        method: "POST",
        body: journal(up, k, cells, "upload"),
        headers: { "content-type": "application/x-ndjson" },
      }),
      "journal",
      "default",
    );
    keep(upload);
    expect(upload.status, JSON.stringify(upload.body)).toBeLessThan(300);
    runs.push(up);

    // live append (POST /api/runs/:id/events calls ingestBytes so), two requests
    const live = `t-live-${i}`;
    const lines = journal(live, k, cells, "live append").trimEnd().split("\n");
    keep(await ingestBytes(db, bytesOf(lines.slice(0, 3).join("\n") + "\n"), { mode: "stream", source: "stream", onlyRun: live }));
    keep(await ingestBytes(db, bytesOf(lines.slice(3).join("\n") + "\n"), { mode: "stream", source: "stream", onlyRun: live }));
    runs.push(live);

    // OTLP/HTTP JSON (POST /api/public/otel/v1/traces)
    const trace = (i + 1).toString(16).padStart(32, "a");
    const otlp = await answerOtlp(
      db,
      new Request("http://127.0.0.1/api/public/otel/v1/traces", {
        method: "POST",
        body: otlpBody(trace, k, cells, "OTLP JSON"),
        headers: { "content-type": "application/json" },
      }),
      "default",
    );
    keep(await otlp.text());
    runs.push(`otel-${trace}`);

    // an imported trace file (POST /api/imports: detected, spans spilled, derived)
    const itrace = (i + 1).toString(16).padStart(32, "b");
    const imp = otlpBody(itrace, k, cells, "import");
    const imported = await answerUpload(
      db,
      new Request("http://127.0.0.1/api/imports?name=trace.json", {
        method: "POST",
        body: imp,
        headers: { "content-type": "application/json" },
      }),
      "any",
      "default",
    );
    keep(imported);
    expect(imported.status, JSON.stringify(imported.body)).toBeLessThan(300);
    runs.push(`otel-${itrace}`);

    // a reconcile of the upload's unknown write: evidence, external id, reason (free text)
    const said = (field: string) => cells.text(k, "reconcile", field) ?? "nothing secret";
    const tool = (await runEvents(db, up)).find((e) => e.type === "tool.call")!.data.tool as string;
    const done = await tryIt(() =>
      reconcile(db, PASSWORDLESS, {
        run: up,
        seq: 2,
        executor,
        mode: "mark",
        outcome: "succeeded",
        evidence: `the ledger says ${said("evidence")}`,
        externalId: `ext ${said("external id")}`,
        reason: `because ${said("reason")}`,
        operationName: tool,
      }),
    );
    expect(done, answers[answers.length - 1]).not.toBeNull();
    runs.push(done!.branch);

    const typed = (field: string) => cells.text(k, "typed", field);
    const note = typed("note");
    if (note === null) continue;
    // a note on the run
    await tryIt(() => addNote(db, { run: up, target: "run", label: "question", text: `is this ${note}?`, author: "test" }));
    // an API key's name (refused where its characters cannot be a name)
    await tryIt(() => createKey(db, { project: "default", name: typed("API key name")!, scope: "ingest", createdBy: "test" }));
    // an executor's URL path and name
    await tryIt(() =>
      addExecutor(db, {
        project: "default",
        kind: "tool",
        name: "lookup",
        environment: "sandbox",
        url: `http://127.0.0.1:9/hooks/${encodeURIComponent(typed("executor URL path")!)}`,
        createdBy: "test",
      }),
    );
    await tryIt(() =>
      addExecutor(db, {
        project: "default",
        kind: "tool",
        name: typed("executor name")!,
        environment: "sandbox",
        url: "http://127.0.0.1:9/x",
        createdBy: "test",
      }),
    );
    // a project's name, a user's name, a model's price, a reviewer field
    await tryIt(() => addProject(db, `p-${i}`, `team ${typed("project name")}`));
    await tryIt(() => addUser(db, { name: typed("user name")!, password: "a long password 0123", project: "default", role: "viewer" }));
    await tryIt(() => setModelPrices(db, "default", { [typed("model price name")!]: { input: 1, output: 2 } }));
    await tryIt(() => setReviewerFields(db, "default", [`data.args.${typed("reviewer field")}`]));
  }

  // what the pages and the API read back
  keep(await listRuns(db, runListQuery.parse({ limit: "200" }), "all"));
  keep(await listRuns(db, runListQuery.parse({ q: "lookup" }), "all"));
  for (const run of runs) {
    keep(await getRun(db, run));
    keep(await findingsOf(db, run));
    keep(await listEventBodies(db, run, -1, 1000));
    keep(await getRunSummaryText(db, run, -1));
    keep(await searchEvents(db, run, "redacted", 100));
    keep(await inspectEvent(db, run, 2, true));
    keep(await inspectEvent(db, run, 3, true));
    keep(await listNotes(db, run));
    keep(await branchInfo(db, run));
  }
  keep(await listKeys(db, "all"));
  keep(await listExecutors(db, "all"));
  keep(await listProjects(db));
  keep(await listUsers(db, "all"));
  keep(await modelPricesOf(db, "default"));
  keep(await reviewerFieldsOf(db, ["default"]));
  keep(await listAudit(db, { projects: "all", limit: 500 }));

  // a bundle of every run, in each profile
  const bundles: string[] = [];
  for (const profile of ["secrets", "reviewer", "public"] as const) {
    const b = await exportBundle(db, { runs, profile, exporter: "test" });
    bundles.push(gunzipSync(b.bytes).toString("latin1"));
  }

  await db.close();
  let stored: string;
  if (t.dialect === "sqlite") {
    const file = t.url.slice("file:".length);
    stored = [file, `${file}-wal`]
      .filter((f) => fs.existsSync(f))
      .map((f) => fs.readFileSync(f).toString("latin1"))
      .join("\n");
  } else {
    stored = execFileSync("pg_dump", ["--data-only", t.url], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  }
  // the scans read real bytes: the placeholders are there
  expect(stored).toContain("[redacted:");
  expect(bundles.every((b) => b.includes("[redacted:"))).toBe(true);

  const hits = (haystacks: string[]) =>
    cells.all.filter((c) => c.needles.some((n) => haystacks.some((h) => h.includes(n)))).map((c) => c.label);
  // answers as JSON text: a "/" in a needle is sent escaped only in HTML, never in JSON
  return { cells: cells.all.length, storage: hits([stored]), answers: hits(answers), bundles: hits(bundles) };
}

describe("the secret table's secrets", () => {
  it("are each one the redactor replaces, as text and as the value under its key", () => {
    const r = new Redactor(new Uint8Array(32).fill(3));
    for (const k of KINDS) {
      const s = k.make("0000");
      const out = s.text !== null ? r.redactString(s.text) : JSON.stringify(r.redact({ [s.underKey!]: s.bare }).value);
      for (const n of s.needles) expect(out, k.kind).not.toContain(n);
    }
  });
});

describe.each(DIALECTS)("the secret table on %s", (dialect) => {
  let t: TestDb | undefined;
  afterAll(async () => t?.cleanup());

  it("finds no secret of any kind, through any path and field, in storage, answers or bundles", async () => {
    t = await freshDb(dialect);
    const found = await runTable(t);
    console.log(
      `secret table: ${found.cells} cells tried, ${found.storage.length} found in storage, ${found.answers.length} in answers, ${found.bundles.length} in bundles (${dialect})`,
    );
    expect(found.cells).toBeGreaterThan(KINDS.length * 20);
    expect({ storage: found.storage, answers: found.answers, bundles: found.bundles }).toEqual({ storage: [], answers: [], bundles: [] });
  });
});
