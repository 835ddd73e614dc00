/**
 * The recorder's testing entry (`@retrace/recorder/testing`): assertions for an agent's
 * tests. The append server beside it is this repository's own test fixture, not exported.
 */
export { AgentDivergedError, describeDivergence, expectAgentToMatchJournal } from "./expect-agent";
