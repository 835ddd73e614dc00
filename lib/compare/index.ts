/** Run-to-run comparison (see README.md). Pure TypeScript: runs in the browser, node and tests. */
export {
  alignRuns,
  changedFields,
  comparable,
  segmentsOf,
  type AlignedRow,
  type Alignment,
  type AlignRunsOptions,
  type CompareEvent,
  type Divergence,
  type RowStatus,
  type Segment,
  type SegmentPair,
} from "./align";
export { firstMeaningfulDivergence, type DivergenceKind, type MeaningfulDivergence } from "./meaningful";
export { alignSequences, type ApproximateSpan, type Pair } from "./sequence-align";
export { LCS_BUDGET, type LcsBudget } from "./lcs";
export { compareVersions, VERSION_GROUPS, type VersionRow } from "./versions";
export { diffLineText, jsonDiff, jsonText, type DiffLine } from "./json-diff";
