/** The one finding order: seq, then rule id in code-unit order (locale-independent, so every process and database sorts alike). */
export function compareFindings(a: { seq: number; rule: string }, b: { seq: number; rule: string }): number {
  return a.seq - b.seq || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0);
}
