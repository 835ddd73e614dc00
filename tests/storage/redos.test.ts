import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyzeEvents } from "@/lib/analyze";
import type { JournalEvent } from "@/lib/journal/types";
import { secretScanSteps } from "@/lib/redact";
import type { Db } from "@/lib/server/db";
import { receiveSpans } from "@/lib/server/otlp-receiver";
import { getRun, listEventBodies } from "@/lib/server/queries";
import { ingestBytes } from "@/lib/server/service";
import { spansFromOtlpJson } from "@/lib/importers";
import { bytesOf, freshDb, type TestDb } from "../helpers/db";

// The input that made the URL-credential expression backtrack quadratically, at the size
// where that meant hours: each path that matches secrets must get through it, reading
// each character a bounded number of times.
const N = 2_000_000;
const HOSTILE = "a".repeat(N) + "://";
const ts = "2026-11-07T11:00:01.026Z";

describe("a string that was quadratic for the secret patterns", () => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb("sqlite");
    db = t.open();
  });
  afterAll(async () => t.cleanup());

  it("is analysed as holding no secret", () => {
    const events = [
      { run: "r", seq: 0, ts, type: "run.start", data: { workflow: { name: "w", version: "1" } } },
      { run: "r", seq: 1, ts, type: "note", data: { text: HOSTILE } },
    ] as unknown as JournalEvent[];
    const before = secretScanSteps();
    expect(analyzeEvents(events).filter((f) => f.rule === "secret.exposed")).toEqual([]);
    expect(secretScanSteps() - before).toBeLessThanOrEqual(4 * N);
  });

  it("is stored as it came by an upload, with no secret found", async () => {
    const journal = [
      { run: "hostile-1", seq: 0, ts, type: "run.start", data: { workflow: { name: "w", version: "1" } } },
      { run: "hostile-1", seq: 1, ts, type: "note", data: { text: HOSTILE, url: HOSTILE + "user:pa55@host" } },
    ]
      .map((e) => JSON.stringify(e))
      .join("\n");
    const before = secretScanSteps();
    const r = await ingestBytes(db, bytesOf(journal + "\n"), { mode: "upload", source: "upload" });
    // redaction reads both strings once or twice; analysis is given what redaction found
    expect(secretScanSteps() - before).toBeLessThanOrEqual(16 * N);
    expect(r.errors).toEqual([]);
    const body = JSON.parse((await listEventBodies(db, "hostile-1", 0, 1))[0].body) as { data: { text: string; url: string } };
    expect(body.data.text).toBe(HOSTILE);
    expect(body.data.url).toMatch(/^a+:\/\/user:\[redacted:url-password:[0-9a-f]{12}\]@host$/);
    const findings = (await getRun(db, "hostile-1"))!.findings.filter((f) => f.rule === "secret.exposed");
    expect(findings.map((f) => f.seq)).toEqual([1]);
  });

  it("is stored by the OTLP receiver, which redacts on arrival and again when it derives the run", async () => {
    const attr = (key: string, value: string) => ({ key, value: { stringValue: value } });
    const spans = spansFromOtlpJson({
      resourceSpans: [
        {
          resource: { attributes: [attr("service.name", "agent")] },
          scopeSpans: [
            {
              scope: { name: "t" },
              spans: [
                {
                  traceId: "5a1c2d3e4f5061728394a5b6c7d8e9f0",
                  spanId: "00000000000000b1",
                  parentSpanId: "",
                  name: "invoke_agent agent",
                  kind: 1,
                  startTimeUnixNano: "1777555053000000000",
                  endTimeUnixNano: "1777555053005000000",
                  attributes: [attr("gen_ai.operation.name", "invoke_agent"), attr("note", HOSTILE)],
                  status: { code: 1 },
                },
              ],
            },
          ],
        },
      ],
    });
    const before = secretScanSteps();
    const r = await receiveSpans(db, spans, "default");
    expect(secretScanSteps() - before).toBeLessThanOrEqual(16 * N);
    expect(r.runs).toEqual(["otel-5a1c2d3e4f5061728394a5b6c7d8e9f0"]);
    const detail = (await getRun(db, "otel-5a1c2d3e4f5061728394a5b6c7d8e9f0"))!;
    expect(detail.findings.filter((f) => f.rule === "secret.exposed")).toEqual([]);
  });
});
