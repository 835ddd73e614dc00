/**
 * Attaching a declared policy to runs that came without one (issue 33): `retrace policy
 * attach` stores a workflow's policy versions and re-judges the workflow's stored runs, each
 * run says which version judged it, runs stored later get the latest version, and the
 * journal stays as recorded (its run.start and chain untouched). The seqs expected are those
 * the journals are built with, not read back from the output.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/access/roles";
import { addProject, addUser } from "@/lib/server/access/accounts";
import { userPrincipal } from "@/lib/server/access/authenticate";
import { listAudit } from "@/lib/server/access/audit-log";
import type { Db } from "@/lib/server/db";
import { getRun } from "@/lib/server/queries";
import { importStream } from "@/lib/server/service";
import { readPolicyFile } from "@/lib/journal/policy-file";
import { attachWorkflowPolicy, workflowPolicyVersions, workflowsOfProjects } from "@/lib/server/workflow-policy";
import { bytesOf, DIALECTS, freshDb, type TestDb } from "../helpers/db";

type Data = Record<string, unknown>;
/** A run of `workflow` recorded with no policy: two modifications of order #1 (seq 1 and 3), no user input. */
function journal(run: string, workflow: string, recorded?: Data): string {
  const items: Array<[string, Data]> = [
    ["run.start", { workflow: { name: workflow }, ...(recorded ? { policy: recorded } : {}) }],
    ["tool.call", { call: "a", tool: "modify", args: { order_id: "#1" }, effect: "write", idempotencyKey: "k-a" }],
    ["tool.result", { call: "a", status: "ok", result: {} }],
    ["tool.call", { call: "b", tool: "modify", args: { order_id: "#1" }, effect: "write", idempotencyKey: "k-b" }],
    ["tool.result", { call: "b", status: "ok", result: {} }],
    ["run.end", { status: "succeeded" }],
  ];
  return items
    .map(([type, data], seq) => JSON.stringify({ run, seq, ts: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(), type, data }))
    .join("\n");
}

const ONCE = JSON.stringify({ invariants: [{ id: "modify-once", kind: "once-per", tools: ["modify"], arg: "/order_id" }] });
const CONFIRM = JSON.stringify({ invariants: [{ id: "explicit-yes", kind: "confirmed-by-input", tools: ["modify"], words: ["yes"] }] });

const policyAt = async (db: Db, run: string) =>
  (await getRun(db, run))!.findings.filter((f) => f.rule.startsWith("policy.")).map((f) => `${f.rule}@${f.seq}`);

describe.each(DIALECTS)("attaching a policy on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
    for (const [run, wf] of [
      ["air-1", "airline"],
      ["air-2", "airline"],
      ["shop-1", "retail"],
    ]) {
      const r = await importStream(db, bytesOf(journal(run, wf)), { accept: "journal", source: "upload" });
      expect(r.errors).toEqual([]);
    }
  });
  afterAll(async () => t.cleanup());

  it("re-judges the workflow's runs with version 1, and only them, leaving the journal as recorded", async () => {
    expect(await policyAt(db, "air-1")).toEqual([]);
    const before = await db.sql.all<{ body: string; chain: string }>(
      `SELECT "body", "chain" FROM "Event" WHERE "runId" = ? ORDER BY "seq"`,
      ["air-1"],
    );
    const chainBefore = (await getRun(db, "air-1"))!.chainStatus;
    const r = await attachWorkflowPolicy(db, { cli: "cli:test" }, "airline", ONCE);
    expect(r).toEqual({ workflow: "airline", version: 1, runs: 2 });
    // the second modification of order #1 is seq 3, the first seq 1
    expect(await policyAt(db, "air-1")).toEqual(["policy.once-per@3"]);
    expect(await policyAt(db, "air-2")).toEqual(["policy.once-per@3"]);
    expect(await policyAt(db, "shop-1")).toEqual([]);
    const detail = (await getRun(db, "air-1"))!;
    expect(detail.judgedBy).toEqual({ source: "workflow", workflow: "airline", version: 1, policy: JSON.parse(ONCE) });
    expect((await getRun(db, "shop-1"))!.judgedBy).toBeNull();
    expect(detail.findingCount).toBe(detail.findings.length);
    const after = await db.sql.all<{ body: string; chain: string }>(
      `SELECT "body", "chain" FROM "Event" WHERE "runId" = ? ORDER BY "seq"`,
      ["air-1"],
    );
    expect(after).toEqual(before);
    expect(after[0].body).not.toContain("policy");
    expect(detail.chainStatus).toBe(chainBefore);
    const log = await listAudit(db, { projects: "all" });
    expect(log.some((e) => e.action === "policy.attach" && e.target === "airline" && e.result === "ok")).toBe(true);
  });

  it("a second version replaces the first: findings recomputed, the run says version 2", async () => {
    const r = await attachWorkflowPolicy(db, { cli: "cli:test" }, "airline", CONFIRM);
    expect(r.version).toBe(2);
    // no user input at all: both writes lack a confirmation; once-per is gone
    expect(await policyAt(db, "air-1")).toEqual(["policy.confirmed-by-input@1", "policy.confirmed-by-input@3"]);
    expect((await getRun(db, "air-2"))!.judgedBy).toEqual({
      source: "workflow",
      workflow: "airline",
      version: 2,
      policy: JSON.parse(CONFIRM),
    });
    expect((await workflowPolicyVersions(db, "airline")).map((v) => v.version)).toEqual([1, 2]);
  });

  it("a run of the workflow stored later is judged by the latest version", async () => {
    await importStream(db, bytesOf(journal("air-3", "airline")), { accept: "journal", source: "upload" });
    expect(await policyAt(db, "air-3")).toEqual(["policy.confirmed-by-input@1", "policy.confirmed-by-input@3"]);
    expect((await getRun(db, "air-3"))!.judgedBy).toEqual({
      source: "workflow",
      workflow: "airline",
      version: 2,
      policy: JSON.parse(CONFIRM),
    });
  });

  it("refuses an account that is not an admin, and stores nothing", async () => {
    const { id } = await addUser(db, { name: "vera", password: "correct horse battery", project: "default", role: "viewer" });
    const vera = (await userPrincipal(db, id)) as Principal;
    await expect(attachWorkflowPolicy(db, { principal: vera, label: "user:vera" }, "airline", ONCE)).rejects.toMatchObject({
      status: 403,
    });
    expect((await workflowPolicyVersions(db, "airline")).length).toBe(2);
    expect((await getRun(db, "air-1"))!.judgedBy).toEqual({
      source: "workflow",
      workflow: "airline",
      version: 2,
      policy: JSON.parse(CONFIRM),
    });
    const log = await listAudit(db, { projects: "all" });
    expect(log.some((e) => e.action === "policy.attach" && e.result === "refused" && e.actor === "user:vera")).toBe(true);
  });

  it("lets an admin of every project holding the workflow's runs attach", async () => {
    const { id } = await addUser(db, { name: "ada", password: "correct horse battery", project: "default", role: "admin" });
    const ada = (await userPrincipal(db, id)) as Principal;
    expect((await attachWorkflowPolicy(db, { principal: ada, label: "user:ada" }, "retail", ONCE)).runs).toBe(1);
    expect(await policyAt(db, "shop-1")).toEqual(["policy.once-per@3"]);
  });

  it("refuses a bad policy with its JSON path, and stores nothing", async () => {
    const bad = JSON.stringify({ invariants: [{ id: "x", kind: "once-per", tools: [], arg: "/order_id" }] });
    await expect(attachWorkflowPolicy(db, { cli: "cli:test" }, "airline", bad)).rejects.toThrow(/policy\.invariants\[0\]\.tools/);
    expect((await workflowPolicyVersions(db, "airline")).length).toBe(2);
  });

  it("import --policy: the new runs are judged by it and say it was attached; a recorded policy says so", async () => {
    const file = readPolicyFile(ONCE);
    if (!file.ok) throw new Error(file.message);
    await importStream(db, bytesOf(journal("imp-1", "no-such-workflow")), { accept: "journal", source: "import", policy: file.policy });
    expect(await policyAt(db, "imp-1")).toEqual(["policy.once-per@3"]);
    expect((await getRun(db, "imp-1"))!.judgedBy).toEqual({ source: "import", policy: JSON.parse(ONCE) });
    await importStream(db, bytesOf(journal("rec-1", "no-such-workflow", JSON.parse(ONCE) as Data)), {
      accept: "journal",
      source: "upload",
    });
    expect(await policyAt(db, "rec-1")).toEqual(["policy.once-per@3"]);
    expect((await getRun(db, "rec-1"))!.judgedBy).toEqual({ source: "recorded" });
  });
});

describe.each(DIALECTS)("the workflows of some projects, with their policy versions, on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
    await addProject(db, "team-b", "Team B");
    for (const [run, wf, project] of [
      ["w-air-1", "airline", "default"],
      ["w-air-2", "airline", "default"],
      ["w-shared-1", "shared", "default"],
      ["w-shared-2", "shared", "team-b"],
      ["w-shop-1", "retail", "team-b"],
    ]) {
      const r = await importStream(db, bytesOf(journal(run, wf)), { accept: "journal", source: "upload", project });
      expect(r.errors).toEqual([]);
    }
    // a run naming no workflow is in no row
    const bare = journal("w-bare", "x").replace('"workflow":{"name":"x"}', "");
    expect(bare).not.toContain('"x"');
    expect((await importStream(db, bytesOf(bare), { accept: "journal", source: "upload" })).errors).toEqual([]);
    await attachWorkflowPolicy(db, { cli: "cli:first" }, "airline", ONCE);
    await attachWorkflowPolicy(db, { cli: "cli:second" }, "airline", CONFIRM);
  });
  afterAll(async () => t.cleanup());

  it("lists each workflow of the projects' runs by name, with its runs there and its versions", async () => {
    const { workflows, total } = await workflowsOfProjects(db, ["default"]);
    expect(total).toBe(2);
    expect(workflows.map((w) => [w.workflow, w.runs, w.versions.map((v) => `v${v.version} ${v.createdBy}`)])).toEqual([
      ["airline", 2, ["v1 cli:first", "v2 cli:second"]],
      ["shared", 1, []],
    ]);
    expect(JSON.parse(workflows[0].latestPolicy ?? "null")).toEqual(JSON.parse(CONFIRM));
    expect(workflows[1].latestPolicy).toBeNull();
    // the runs of another project are not counted, nor its own workflows listed
    const b = await workflowsOfProjects(db, ["team-b"]);
    expect(b.workflows.map((w) => [w.workflow, w.runs])).toEqual([
      ["retail", 1],
      ["shared", 1],
    ]);
    const both = await workflowsOfProjects(db, ["default", "team-b"]);
    expect(both.workflows.map((w) => [w.workflow, w.runs])).toEqual([
      ["airline", 2],
      ["retail", 1],
      ["shared", 2],
    ]);
  });

  it("lists nothing for no project, and at most `limit` workflows with the total", async () => {
    expect(await workflowsOfProjects(db, [])).toEqual({ workflows: [], total: 0 });
    const first = await workflowsOfProjects(db, ["default", "team-b"], 2);
    expect(first.workflows.map((w) => w.workflow)).toEqual(["airline", "retail"]);
    expect(first.total).toBe(3);
  });

  it("an admin of one of the projects holding a workflow's runs is refused it, and nothing is stored", async () => {
    const { id } = await addUser(db, { name: "dana", password: "correct horse battery", project: "default", role: "admin" });
    const dana = (await userPrincipal(db, id)) as Principal;
    await expect(attachWorkflowPolicy(db, { principal: dana, label: "user:dana" }, "shared", ONCE)).rejects.toMatchObject({
      status: 403,
      message: 'workflow "shared" has runs in projects you do not administer',
    });
    expect((await workflowsOfProjects(db, ["default"])).workflows.find((w) => w.workflow === "shared")?.versions).toEqual([]);
  });
});

describe("a policy file", () => {
  it("is refused with the JSON path of what breaks the schema", () => {
    const r = readPolicyFile(JSON.stringify({ invariants: [{ id: "a", kind: "once-per", tools: ["t"], arg: "order_id" }] }));
    expect(r).toMatchObject({ ok: false });
    expect(!r.ok && r.message).toMatch(/^policy\.invariants\[0\]\.arg: /);
  });
  it("is refused with an unknown field named (a misspelt field would switch its rule off silently)", () => {
    const r = readPolicyFile(JSON.stringify({ invariant: [] }));
    expect(!r.ok && r.message).toMatch(/invariant/);
  });
  it("is refused with the line and column of a JSON syntax error", () => {
    const r = readPolicyFile('{\n  "maxSteps": 3,\n  oops\n}');
    expect(!r.ok && r.message).toMatch(/^not JSON \(line 3, column \d+\)$/);
  });
  it("is refused with the line and column even where the JSON parser names no position", () => {
    expect(readPolicyFile('{\n  "invariants": [\n    oops\n  ]\n}')).toEqual({ ok: false, message: "not JSON (line 3, column 5)" });
    expect(readPolicyFile('{"maxSteps": 3')).toEqual({ ok: false, message: "not JSON (line 1, column 15)" });
  });
});
