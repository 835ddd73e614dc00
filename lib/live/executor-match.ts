/**
 * Whether a project's tool executors can carry out a recorded tool call: the one verdict
 * the inspector (offer a re-execute or say why not) and the live actions (refuse) read.
 *
 * An executor named for the tool serves it. An executor for every tool (`*`) is a service
 * endpoint: it serves the tools of runs that called services (the recorder SDK's, OTLP
 * traces), not those a coding agent ran on its own machine (a Claude Code `Edit`, a Codex
 * `shell`: files and commands there, which no service can run again). An agent's own
 * bookkeeping (a todo list, a plan; lib/importers/effects.ts) changes nothing and is never
 * re-executed, whatever the executors.
 */
import { isBookkeeping } from "../importers/effects";
import type { JournalEvent } from "../journal/types";

/** Coding agents, as their importers name them in `run.start` (`agent.name`): their tools run on the agent's machine. */
const LOCAL_TOOL_AGENTS: readonly RegExp[] = [
  /^claude-code$/,
  /^codex/,
  /^gemini-cli$/,
  /^qwen-code$/,
  /^opencode$/,
  /^swe-agent$/,
  /^mini-swe-agent$/,
  /^openhands/,
];

/** What the verdict reads of a call: its tool, and the agent of its run. */
export interface CallToServe {
  tool: string;
  /** `run.start` data.agent.name; null when the run names none */
  agent: string | null;
}

export type ServeVerdict = { ok: true } | { ok: false; reason: string };

/** The call's tool and its run's agent, from the run's events. */
export function callToServe(events: readonly JournalEvent[], tool: string): CallToServe {
  const start = events.find((e) => e.type === "run.start");
  const agent = start?.data.agent;
  const name = agent && typeof agent === "object" && !Array.isArray(agent) ? (agent as { name?: unknown }).name : undefined;
  return { tool, agent: typeof name === "string" ? name : null };
}

/** Whether the call ran on the coding agent's own machine. */
export const runsLocally = (call: CallToServe): boolean => call.agent !== null && LOCAL_TOOL_AGENTS.some((p) => p.test(call.agent!));

/** Whether one executor (its `name`: a tool name or `*`) carries out the call, and why not. */
export function executorServes(executor: { id?: string; name: string }, call: CallToServe): ServeVerdict {
  if (isBookkeeping(call.tool)) return { ok: false, reason: bookkeeping(call.tool) };
  if (executor.name === call.tool) return { ok: true };
  if (executor.name !== "*")
    return { ok: false, reason: `executor ${executor.id ?? executor.name} carries out ${executor.name}, not ${call.tool}` };
  if (runsLocally(call)) return { ok: false, reason: local(call) };
  return { ok: true };
}

/**
 * The executors of a project that carry out the call, or why none does (null when some
 * do): the inspector offers a re-execute only with one, and shows the reason instead.
 */
export function servingExecutors<E extends { id?: string; name: string }>(
  executors: readonly E[],
  call: CallToServe,
): { executors: E[]; reason: string | null } {
  if (isBookkeeping(call.tool)) return { executors: [], reason: bookkeeping(call.tool) };
  const serving = executors.filter((e) => executorServes(e, call).ok);
  if (serving.length > 0) return { executors: serving, reason: null };
  if (runsLocally(call)) return { executors: [], reason: local(call) };
  return {
    executors: [],
    reason: `No executor of this project carries out ${call.tool}, so it cannot be re-executed (an admin adds one in Admin → Executors).`,
  };
}

const bookkeeping = (tool: string) =>
  `${tool} only keeps the agent's own notes (a todo list, a plan): it changed nothing outside the agent, so there is nothing to re-execute.`;

const local = (call: CallToServe) =>
  `${call.tool} ran on the agent's own machine (a ${call.agent} session): no executor of this project carries it out, so it cannot be re-executed (an executor for every tool serves service calls, not an agent's local tools; an admin can add one named ${call.tool} in Admin → Executors).`;
