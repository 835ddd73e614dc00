import { describe, expect, it } from "vitest";
import { plural, runHealth, severityTone } from "@/lib/semantics/health";

describe("run health", () => {
  it("colours by the highest severity, whatever the status says", () => {
    expect(runHealth({ status: "succeeded", findingCount: 3, errorFindings: 2 })).toEqual({
      tone: "bad",
      label: "succeeded · 2 errors, 1 warning",
      worst: "error",
      errors: 2,
      warnings: 1,
    });
    expect(runHealth({ status: "succeeded", findingCount: 1, errorFindings: 0 })).toMatchObject({
      tone: "warn",
      label: "succeeded · 1 warning",
      worst: "warning",
    });
    expect(runHealth({ status: "succeeded", findingCount: 0, errorFindings: 0 })).toMatchObject({
      tone: "good",
      label: "succeeded",
      worst: null,
    });
  });

  it("a failed run is bad without findings; a running one is live until a finding says more", () => {
    expect(runHealth({ status: "failed", findingCount: 0, errorFindings: 0 }).tone).toBe("bad");
    expect(runHealth({ status: "failed", findingCount: 1, errorFindings: 0 })).toMatchObject({ tone: "bad", label: "failed · 1 warning" });
    expect(runHealth({ status: "running", live: true, findingCount: 0, errorFindings: 0 }).tone).toBe("live");
    expect(runHealth({ status: "running", live: true, findingCount: 1, errorFindings: 1 }).tone).toBe("bad");
    expect(runHealth({ status: "cancelled", findingCount: 0, errorFindings: 0 }).tone).toBe("warn");
    expect(runHealth({ status: "incomplete", findingCount: 0, errorFindings: 0 }).tone).toBe("neutral");
  });

  it("badges by severity, plurals by count", () => {
    expect(severityTone("error")).toBe("bad");
    expect(severityTone("warning")).toBe("warn");
    expect(severityTone(null)).toBe("neutral");
    expect(plural(1, "finding")).toBe("1 finding");
    expect(plural(0, "finding")).toBe("0 findings");
    expect(plural(1200, "error")).toBe("1,200 errors");
    expect(plural(2, "entry", "entries")).toBe("2 entries");
  });
});
