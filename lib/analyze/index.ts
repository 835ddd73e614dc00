/**
 * `analyze`: the journal format's 15 rules as an incremental fold (see README.md).
 * Pure TypeScript: runs in the browser, the CLI, the server and tests alike.
 */
export {
  analyzeEvents,
  analyzeJournal,
  compareFindings,
  createAnalyzer,
  groupByRun,
  orderEvents,
  type Analyzer,
  type AnalyzerOptions,
  type AnalyzerSnapshot,
  type PushHints,
  type WriteCallRecord,
} from "./analyzer";
export { chainHash, verifyLink, type ChainVerdict, type Sha256Hex } from "./chain";
export { quote, RULE_SEVERITY, safePath, secretName } from "./describe";
export { readPolicy } from "./policy";
export { epochNanos, secondsToNanos } from "./time";
