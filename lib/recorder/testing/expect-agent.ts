/**
 * `expectAgentToMatchJournal(agent, file)`: a test assertion (vitest, or any runner that
 * fails on a thrown error) that an agent, replayed against a recorded journal in `recorded`
 * mode, makes the recorded model and tool calls: it resolves with the replay's result when
 * it matches and throws an AgentDivergedError naming the recorded seq, the kind, the path
 * and both values when it does not.
 */
import { replayAgainst, type ReplayableAgent, type ReplayOptions, type ReplayResult } from "../replay";
import { isPolicyDivergence, type RequestDivergence } from "../../playback";

const VALUE_LIMIT = 400;

function shown(v: unknown): string {
  const s = JSON.stringify(v) ?? "undefined";
  return s.length > VALUE_LIMIT ? `${s.slice(0, VALUE_LIMIT)}…` : s;
}

/** The divergence as people read it: where, what kind (a refusal's rule), and the two values side by side. */
export function describeDivergence(d: RequestDivergence): string {
  const refused = isPolicyDivergence(d) ? `\n  refused: ${d.message}` : "";
  return `recorded seq ${d.seq}: ${d.kind}${d.path ? ` at ${d.path}` : ""}${refused}\n  - recorded: ${shown(d.recorded)}\n  + replayed: ${shown(d.replayed)}`;
}

/** Thrown when the agent departs from the journal; `result` is the whole replay (the branch included). */
export class AgentDivergedError extends Error {
  constructor(
    message: string,
    readonly result: ReplayResult,
  ) {
    super(message);
    this.name = "AgentDivergedError";
  }
}

export async function expectAgentToMatchJournal(
  agent: ReplayableAgent,
  file: string,
  opts: Omit<ReplayOptions, "mode" | "model" | "liveReads"> = {},
): Promise<ReplayResult> {
  const result = await replayAgainst(file, agent, { ...opts, mode: "recorded" });
  if (result.divergence === null) return result;
  const branch = result.branch.file ? `\n  branch journal: ${result.branch.file}` : "";
  throw new AgentDivergedError(
    `agent diverged from ${file} (run ${result.run}) at ${describeDivergence(result.divergence)}${branch}`,
    result,
  );
}
