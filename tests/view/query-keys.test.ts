import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { runKeys, runsKeys } from "@/components/data/query-keys";
import { EMPTY_FILTERS } from "@/lib/view/run-filters";

/** A client holding one entry under every key of two runs and two runs lists. */
function filledClient() {
  const qc = new QueryClient();
  const filters = EMPTY_FILTERS;
  const keys = (run: string) => [
    runKeys.detail(run),
    runKeys.summary(run),
    runKeys.inspect(run, 3, false),
    runKeys.inspect(run, 4, true),
    runKeys.search(run, "refund"),
    runKeys.events(run),
  ];
  const all = [...keys("a"), ...keys("b"), runsKeys.list(filters), runsKeys.ofWorkflow("support-refund", 100)];
  for (const k of all) qc.setQueryData(k, { k });
  const invalidated = () => all.filter((k) => qc.getQueryState(k)?.isInvalidated).map((k) => JSON.stringify(k));
  return { qc, invalidated, filters, perRun: keys("a").length };
}

describe("the client's query keys", () => {
  it("a live change that invalidates a run's detail and inspected events leaves its summary (extended in place) alone", async () => {
    const { qc, invalidated } = filledClient();
    await qc.invalidateQueries({ queryKey: runKeys.detail("a"), refetchType: "none" });
    await qc.invalidateQueries({ queryKey: runKeys.inspectAll("a"), refetchType: "none" });
    expect(invalidated()).toEqual([
      JSON.stringify(runKeys.detail("a")),
      JSON.stringify(runKeys.inspect("a", 3, false)),
      JSON.stringify(runKeys.inspect("a", 4, true)),
    ]);
  });

  it("an upload invalidates every runs list and nothing of a run", async () => {
    const { qc, invalidated, filters } = filledClient();
    await qc.invalidateQueries({ queryKey: runsKeys.all, refetchType: "none" });
    expect(invalidated()).toEqual([JSON.stringify(runsKeys.list(filters)), JSON.stringify(runsKeys.ofWorkflow("support-refund", 100))]);
  });

  it("everything of one run is under runKeys.all, and nothing of another run", () => {
    const { qc, perRun } = filledClient();
    const a = qc.getQueryCache().findAll({ queryKey: runKeys.all("a") });
    expect(a).toHaveLength(perRun);
    expect(a.every((q) => q.queryKey[1] === "a")).toBe(true);
  });
});
