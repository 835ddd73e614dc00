/** Inspector values in human units: errors as fields, policy durations, a document's age. */
import { describe, expect, it } from "vitest";
import type { JsonObject } from "@/lib/journal/types";
import { retrievalVerdict } from "@/lib/semantics";
import { ageText, errorFields, policyValueText, retrievedDocuments } from "@/lib/view/human";

describe("errorFields", () => {
  it("splits an error object into message, name, code, retryable, stack and the rest", () => {
    expect(errorFields({ message: "payment gateway timed out (the payment was committed)", name: "ToolTimeoutError" })).toEqual({
      message: "payment gateway timed out (the payment was committed)",
      name: "ToolTimeoutError",
      code: null,
      retryable: null,
      stack: null,
      rest: null,
    });
    expect(errorFields({ message: "no", code: 503, retryable: true, stack: "at pay()", cause: { host: "gw" } })).toEqual({
      message: "no",
      name: null,
      code: "503",
      retryable: true,
      stack: "at pay()",
      rest: { cause: { host: "gw" } },
    });
  });
  it("takes a plain string as the message", () => {
    expect(errorFields("issue_refund timed out").message).toBe("issue_refund timed out");
    expect(errorFields(undefined).message).toBeNull();
  });
});

describe("policyValueText", () => {
  it("shows durations in days or seconds with the raw value, counts and lists plainly", () => {
    expect(policyValueText("retrievalMaxAgeSeconds", 30 * 86400)).toBe("30 days (2,592,000 s)");
    expect(policyValueText("approvalTimeoutMs", 1500)).toBe("1.50 s (1,500 ms)");
    expect(policyValueText("maxSteps", 8)).toBe("8 steps");
    expect(policyValueText("requireApproval", ["issue_refund", "transfer"])).toBe("issue_refund, transfer");
    expect(policyValueText("requireApproval", [])).toBe("none");
  });
});

describe("retrievedDocuments", () => {
  const at = Date.parse("2026-11-07T10:00:05.000Z");
  const data: JsonObject = {
    query: "refund policy",
    documents: [
      { id: "kb-refunds", version: "2", indexedAt: new Date(at - 400 * 86_400_000).toISOString(), content: "refund immediately" },
      { id: "kb-tone", indexedAt: new Date(at - 2 * 86_400_000).toISOString() },
      { id: "no-date" },
    ],
  };
  const retrieval = (maxAge: unknown) => retrievalVerdict({ ts: new Date(at).toISOString(), data }, maxAge);
  it("gives each document its age at the retrieval and the verdict on it, from the retrieval verdict", () => {
    const docs = retrievedDocuments(data, retrieval(30 * 86400));
    expect(docs.map((d) => [d.id, d.ageSeconds, d.stale])).toEqual([
      ["kb-refunds", 400 * 86400, true],
      ["kb-tone", 2 * 86400, false],
      ["no-date", null, null],
    ]);
    expect(ageText(docs[0].ageSeconds!)).toBe("400 days old");
    // without a policy the age is shown, stale is unknown
    expect(retrievedDocuments(data, retrieval(undefined))[0].stale).toBeNull();
  });

  it("shows 60.4 s as 60.4 s, stale against 60 s as the finding says (not rounded to 60 s and within the age)", () => {
    const doc = { id: "d", indexedAt: "2026-11-07T10:00:00.000Z" };
    const v = retrievalVerdict({ ts: "2026-11-07T10:01:00.400Z", data: { documents: [doc] } }, 60);
    const [shown] = retrievedDocuments({ documents: [doc] }, v);
    expect(shown.stale).toBe(true);
    expect(ageText(shown.ageSeconds!)).toBe("1 minute old (60.4 s)");
  });
});
