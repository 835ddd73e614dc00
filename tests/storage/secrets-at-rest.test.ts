import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { getRun, listEventBodies } from "@/lib/server/queries";
import { ingestBytes } from "@/lib/server/service";
import { bytesOf, DIALECTS, freshDb } from "../helpers/db";

// Secrets matching every pattern of the format, built at run time (none is in this file).
const SECRETS = [
  "AKIA" + "QWERTYUIOPASDFGH",
  "sk-" + "proj_" + "Zx9".repeat(9),
  "sk_live_" + "Ab1".repeat(8),
  "ghp_" + "Gh7".repeat(13),
  "xoxb-" + "123456789012-abcdefghij",
  "AIza" + "Sy9".repeat(11) + "xx",
  "eyJ" + "hbGciOiJIUzI1NiJ9" + "." + "eyJzdWIiOiIxMjM0In0" + "." + "SflKxwRJSMeKKF2QT4",
  "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + "Q".repeat(30) + "\n-----END PRIVATE KEY-----",
  "Bearer " + "tok3n".repeat(6),
];
const URL_PASSWORD = "s3cr3t-Pa55word-xyz";
const FIELD_SECRET = "hunter2-field-secret-value";

function journal(run: string): string {
  const ts = "2026-11-07T11:00:01.026Z";
  const events: object[] = [
    { run, seq: 0, ts, type: "run.start", data: { workflow: { name: "leaky", version: "1" }, input: { note: SECRETS[0] } } },
  ];
  SECRETS.forEach((s, i) =>
    events.push({
      run,
      seq: i + 1,
      ts,
      type: "tool.call",
      data: { call: `c${i}`, tool: "http", args: { header: `x ${s} y`, nested: [{ deep: s }] }, effect: "read" },
    }),
  );
  events.push({
    run,
    seq: events.length,
    ts,
    type: "note",
    data: { text: `postgres://admin:${URL_PASSWORD}@db.internal/x`, password: FIELD_SECRET, extra: { Api_Key: FIELD_SECRET } },
  });
  events.push({
    run,
    seq: events.length,
    ts,
    type: "state",
    data: { set: { token: FIELD_SECRET, card: SECRETS[2] }, hash: "sha256:" + "0".repeat(64) },
  });
  return events.map((e) => JSON.stringify(e)).join("\n") + "\n";
}

const needles = () => [
  ...SECRETS.map((s) => s.split("\n")[1] ?? s),
  ...SECRETS.filter((s) => !s.includes("\n")),
  URL_PASSWORD,
  FIELD_SECRET,
];

describe.each(DIALECTS)("secrets at rest on %s", (dialect) => {
  it("no secret of the format's patterns is in the stored bytes, and each event is flagged", async () => {
    const t = await freshDb(dialect);
    const db = t.open();
    try {
      const r = await ingestBytes(db, bytesOf(journal("leaky-1")), { mode: "upload", source: "upload" });
      expect(r.errors).toEqual([]);
      // the same secrets again through live append: the same placeholders
      await ingestBytes(db, bytesOf(journal("leaky-2")), { mode: "stream", source: "stream", onlyRun: "leaky-2" });
      const detail = (await getRun(db, "leaky-1"))!;
      const flagged = detail.findings.filter((f) => f.rule === "secret.exposed").map((f) => f.seq);
      expect(flagged).toEqual(Array.from({ length: SECRETS.length + 3 }, (_, i) => i));
      for (const f of detail.findings) for (const n of needles()) expect(f.message).not.toContain(n);
      const a = (await listEventBodies(db, "leaky-1", -1, 100)).map((x) => x.body);
      const b = (await listEventBodies(db, "leaky-2", -1, 100)).map((x) => x.body.replace(/leaky-2/g, "leaky-1"));
      expect(b).toEqual(a);

      let dump: string;
      await db.close();
      if (dialect === "sqlite") {
        const file = t.url.slice("file:".length);
        dump = [file, `${file}-wal`]
          .filter((f) => fs.existsSync(f))
          .map((f) => fs.readFileSync(f).toString("latin1"))
          .join("\n");
      } else {
        dump = execFileSync("pg_dump", ["--data-only", t.url], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
      }
      expect(dump.length).toBeGreaterThan(1000);
      expect(dump).toContain("[redacted:");
      for (const n of needles()) expect(dump, `secret found: ${n.slice(0, 6)}…`).not.toContain(n);
    } finally {
      await t.cleanup();
    }
  });
});

describe("the stored test database file", () => {
  it("is a real SQLite file (the scan above reads real bytes)", async () => {
    const t = await freshDb("sqlite");
    const head = fs
      .readFileSync(path.resolve(t.url.slice("file:".length)))
      .subarray(0, 15)
      .toString();
    expect(head).toBe("SQLite format 3");
    await t.cleanup();
  });
});
