import type { Finding } from "../journal/types";

/** The one finding order: seq, then rule id in code-unit order (locale-independent, so every process sorts alike). */
export function compareFindings(a: Pick<Finding, "seq" | "rule">, b: Pick<Finding, "seq" | "rule">): number {
  return a.seq - b.seq || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0);
}
