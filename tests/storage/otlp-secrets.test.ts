import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJsonExact } from "@/lib/journal/parse-line";
import type { JournalEvent } from "@/lib/journal/types";
import type { Db } from "@/lib/server/db";
import { receiveSpans } from "@/lib/server/otlp-receiver";
import { getRun, listEventBodies } from "@/lib/server/queries";
import { spansFromOtlpJson } from "@/lib/importers";
import { DIALECTS, freshDb, type TestDb } from "../helpers/db";

// Spans received over OTLP are redacted as they arrive and the trace's run is derived
// again from what was kept on every request, so the secrets are gone by the time the run
// is analysed. The run must still say, at the right event, that a secret was exposed.
const TRACE = "7a1c2d3e4f5061728394a5b6c7d8e9f0";
const AWS_KEY = "AKIAIOSFODNN7EXAMPLE";
const BEARER = "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1MSJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ";
const attr = (key: string, value: string) => ({ key, value: { stringValue: value } });
const span = (spanId: string, name: string, start: number, attributes: object[], parentSpanId = "") => ({
  traceId: TRACE,
  spanId,
  parentSpanId,
  name,
  kind: 1,
  startTimeUnixNano: String(1777555053000000000n + BigInt(start) * 1000000n),
  endTimeUnixNano: String(1777555053000000000n + BigInt(start + 5) * 1000000n),
  attributes,
  status: { code: 1 },
});
const request = (spans: object[]) =>
  spansFromOtlpJson({
    resourceSpans: [{ resource: { attributes: [attr("service.name", "ops-agent")] }, scopeSpans: [{ scope: { name: "t" }, spans }] }],
  });

describe.each(DIALECTS)("secrets in spans received over OTLP, on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
  });
  afterAll(async () => t.cleanup());

  it("are stored as placeholders and reported as secret.exposed at their event, across requests", async () => {
    const root = span("00000000000000a1", "invoke_agent ops-agent", 0, [attr("gen_ai.operation.name", "invoke_agent")]);
    const tool = span(
      "00000000000000a2",
      "execute_tool deploy",
      10,
      [
        attr("gen_ai.operation.name", "execute_tool"),
        attr("gen_ai.tool.name", "deploy"),
        attr("gen_ai.tool.call.id", "c1"),
        attr("gen_ai.tool.call.arguments", JSON.stringify({ key: AWS_KEY, auth: BEARER })),
      ],
      "00000000000000a1",
    );
    // the trace arrives over two requests; the second re-derives the run from stored spans
    await receiveSpans(db, request([tool]), "default");
    const second = await receiveSpans(db, request([root]), "default");
    const runId = `otel-${TRACE}`;
    expect(second.runs).toEqual([runId]);

    const rows = await listEventBodies(db, runId, -1, 1000);
    const bodies = rows.map((r) => r.body).join("\n");
    expect(bodies).not.toContain(AWS_KEY);
    expect(bodies).not.toContain("c2lnbmF0dXJlLXNpZ25hdHVyZQ");
    expect(bodies).toMatch(/\[redacted:aws-access-key:[0-9a-f]{12}\]/);

    const call = rows.map((r) => parseJsonExact(r.body) as JournalEvent).find((e) => e.type === "tool.call");
    expect(call).toBeDefined();
    const run = (await getRun(db, runId))!;
    const exposed = run.findings.filter((f) => f.rule === "secret.exposed");
    expect(exposed.map((f) => f.seq)).toEqual([call!.seq]);
    expect(exposed[0].message).toMatch(/AWS/i);
    expect(rows.find((r) => Number(r.seq) === call!.seq)?.redactions).toBeGreaterThanOrEqual(2);
  });
});
