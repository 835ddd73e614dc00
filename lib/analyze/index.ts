/**
 * `analyze`: the journal format's rules, reported over the run semantics fold (see README.md).
 * Pure TypeScript: runs in the browser, the CLI, the server and tests alike.
 */
export {
  analyzeEvents,
  analyzeJournal,
  compareFindings,
  createAnalyzer,
  type Analyzer,
  type AnalyzerSnapshot,
  type EarlyResult,
  type PushHints,
  type WriteCallRecord,
} from "./analyzer";
export type { ChainVerdict } from "../journal/chain";
export { quote, RULE_SEVERITY, safePath, secretName } from "./describe";
export { readPolicy } from "./policy";
export { epochNanos, secondsToNanos } from "../semantics";
export { humanSeconds, messageParts, RULE_TEXT, ruleText, rulesMatching, seqsNamed } from "./rule-text";
