/**
 * A run summary's health verdict (lib/semantics/health `runHealth`) with its top finding
 * named by the run page's rule title: the one reading the runs list, the run header and
 * compare show.
 */
import { ruleText } from "../analyze";
import { runHealth, type RunHealth } from "../semantics";
import type { RunListItem } from "./api-types";

export type HealthOf = Pick<RunListItem, "status" | "live" | "findingCount" | "errorFindings" | "errorCount" | "topRule">;

export function healthOf(r: HealthOf): RunHealth {
  return runHealth({
    status: r.status,
    live: r.live,
    findingCount: r.findingCount,
    errorFindings: r.errorFindings,
    failedEvents: r.errorCount,
    topFinding: r.topRule !== null ? ruleText(r.topRule).title : null,
  });
}
