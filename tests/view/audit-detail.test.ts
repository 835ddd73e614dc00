import { describe, expect, it } from "vitest";
import { describeAuditDetail } from "@/lib/view/format";

describe("a log entry's detail in the admin log table", () => {
  it("reads as key: value pairs, lists joined, empty lists as none", () => {
    expect(describeAuditDetail(`{"environments":["production","sandbox"],"role":"operator"}`)).toBe(
      "environments: production, sandbox · role: operator",
    );
    expect(describeAuditDetail(`{"environments":[],"id":"k1"}`)).toBe("environments: none · id: k1");
    expect(describeAuditDetail(`{"n":3,"nested":{"a":1}}`)).toBe(`n: 3 · nested: {"a":1}`);
  });
  it("shows anything that is not a JSON object as it is", () => {
    expect(describeAuditDetail("{}")).toBe("");
    expect(describeAuditDetail("[REDACTED]")).toBe("[REDACTED]");
    expect(describeAuditDetail(`["a"]`)).toBe(`["a"]`);
  });
});
