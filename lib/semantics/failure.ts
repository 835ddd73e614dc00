/**
 * The one failure predicate, over the summary columns (type and status, see
 * lib/journal/summary.ts `eventColumns`): the timeline's failure marks and the runs
 * list's error count both use it, so they count the same events.
 */
export function isFailure(type: string, status: string | null): boolean {
  switch (type) {
    case "error":
      return true;
    case "tool.result":
      return status === "error" || status === "timeout" || status === "unknown";
    case "model.response":
    case "step.end":
      return status === "error";
    case "run.end":
      return status === "failed";
    case "approval.decision":
      return status === "denied";
    default:
      return false;
  }
}
