/**
 * OTLP/HTTP partial success: spans whose trace id is not 16 bytes or whose span id is not
 * 8 (or either is all zeros, or missing) are not stored, and the answer says how many were
 * rejected and why (`partialSuccess`, as JSON or as a protobuf ExportTraceServiceResponse,
 * matching the request). Before, they were dropped with an empty 200.
 */
import * as protobuf from "protobufjs/light";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/server/db";
import { answerOtlp } from "@/lib/server/imports";
import { getRun } from "@/lib/server/queries";
import { DIALECTS, freshDb, type TestDb } from "../helpers/db";

const GOOD_TRACE = "5b8efff798038103d269b633813fc60c";
const GOOD_SPAN = "eee19b7ec3c1b174";
const START = "1765100000000000000";
const END = "1765100001000000000";

// opentelemetry-proto, collector/trace/v1 and trace/v1: only the fields these tests send and read
const proto = protobuf.Root.fromJSON({
  nested: {
    Req: { fields: { resourceSpans: { type: "RS", id: 1, rule: "repeated" } } },
    RS: { fields: { scopeSpans: { type: "SS", id: 2, rule: "repeated" } } },
    SS: { fields: { spans: { type: "Span", id: 2, rule: "repeated" } } },
    Span: {
      fields: {
        traceId: { type: "bytes", id: 1 },
        spanId: { type: "bytes", id: 2 },
        name: { type: "string", id: 5 },
        startTimeUnixNano: { type: "fixed64", id: 7 },
        endTimeUnixNano: { type: "fixed64", id: 8 },
      },
    },
    Res: { fields: { partialSuccess: { type: "Partial", id: 1 } } },
    Partial: { fields: { rejectedSpans: { type: "int64", id: 1 }, errorMessage: { type: "string", id: 2 } } },
  },
});

const span = (traceId: string | undefined, spanId: string | undefined, name: string) => ({
  ...(traceId !== undefined ? { traceId } : {}),
  ...(spanId !== undefined ? { spanId } : {}),
  name,
  startTimeUnixNano: START,
  endTimeUnixNano: END,
});

/** One valid span (its own trace) and four that OTLP does not allow. */
const SPANS = [
  span(GOOD_TRACE, GOOD_SPAN, "good"),
  span("5b8efff798038103", "aaa19b7ec3c1b174", "trace id of 8 bytes"),
  span("6b8efff798038103d269b633813fc60c", "0000000000000000", "zero span id"),
  span("00000000000000000000000000000000", "bbb19b7ec3c1b174", "zero trace id"),
  span("7b8efff798038103d269b633813fc60c", undefined, "no span id"),
];

describe.each(DIALECTS)("OTLP spans with invalid ids on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await freshDb(dialect);
    db = t.open();
  });
  afterAll(async () => {
    await t.cleanup();
  });

  it("answers JSON partial success naming the rejected spans, storing the valid one only", async () => {
    const body = JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: SPANS }] }] });
    const res = await answerOtlp(
      db,
      new Request("http://x/v1/traces", { method: "POST", headers: { "content-type": "application/json" }, body }),
      "default",
    );
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { partialSuccess?: { rejectedSpans: number; errorMessage: string } };
    expect(answer.partialSuccess?.rejectedSpans).toBe(4);
    expect(answer.partialSuccess?.errorMessage).toMatch(/4 span\(s\) have no valid trace id or span id/);
    expect(await getRun(db, `otel-${GOOD_TRACE}`)).not.toBeNull();
    for (const trace of [
      "5b8efff798038103",
      "6b8efff798038103d269b633813fc60c",
      "7b8efff798038103d269b633813fc60c",
      "00000000000000000000000000000000",
    ])
      expect(await getRun(db, `otel-${trace}`)).toBeNull();
  });

  it("answers a protobuf request with a protobuf ExportTraceServiceResponse holding the partial success", async () => {
    const Req = proto.lookupType("Req");
    const bytes = (hex: string | undefined) => (hex === undefined ? undefined : Buffer.from(hex, "hex"));
    const spans = SPANS.map((s) => ({ ...s, traceId: bytes(s.traceId), spanId: bytes(s.spanId), name: `${s.name} (proto)` })).map((s) =>
      Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined)),
    );
    spans[0].traceId = Buffer.from("8b8efff798038103d269b633813fc60c", "hex");
    const body = Req.encode(Req.fromObject({ resourceSpans: [{ scopeSpans: [{ spans }] }] })).finish();
    const res = await answerOtlp(
      db,
      new Request("http://x/v1/traces", {
        method: "POST",
        headers: { "content-type": "application/x-protobuf" },
        body: new Uint8Array(body),
      }),
      "default",
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-protobuf");
    const Res = proto.lookupType("Res");
    const answer = Res.toObject(Res.decode(new Uint8Array(await res.arrayBuffer())), { longs: Number }) as {
      partialSuccess?: { rejectedSpans: number; errorMessage: string };
    };
    expect(answer.partialSuccess?.rejectedSpans).toBe(4);
    expect(answer.partialSuccess?.errorMessage).toMatch(/no valid trace id or span id/);
    expect(await getRun(db, "otel-8b8efff798038103d269b633813fc60c")).not.toBeNull();
  });

  it("answers an empty ExportTraceServiceResponse when every span is valid", async () => {
    const body = JSON.stringify({
      resourceSpans: [{ scopeSpans: [{ spans: [span("9b8efff798038103d269b633813fc60c", GOOD_SPAN, "ok")] }] }],
    });
    const res = await answerOtlp(
      db,
      new Request("http://x/v1/traces", { method: "POST", headers: { "content-type": "application/json" }, body }),
      "default",
    );
    expect(await res.json()).toEqual({});
  });
});
