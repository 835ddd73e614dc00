/**
 * What each rule means to a person reviewing a run: a plain title, why it matters and what
 * to check. Shown beside the analyzer's exact message (which stays the precise record), and
 * searched by the runs list, so "twice" or "approval" finds the runs those rules flagged.
 */
import { RULE_IDS, type RuleId } from "../journal/types";

interface RuleText {
  /** what went wrong, in words a reviewer uses */
  title: string;
  /** the consequence, one sentence */
  why: string;
  /** where to look first, one sentence */
  check: string;
}

export const RULE_TEXT: Readonly<Record<RuleId, RuleText>> = {
  "journal.gap": {
    title: "Events are missing from the record",
    why: "What happened in the missing events is unknown, so every conclusion drawn after the gap is uncertain.",
    check: "Whether the recorder lost its connection or crashed there, and whether the missing seqs arrive later.",
  },
  "journal.chain": {
    title: "The record was altered after it was written",
    why: "An event or the hash before it changed, so this journal cannot be trusted as evidence from this point on.",
    check: "Who had write access to the journal, and compare this event with another copy of it.",
  },
  "context.missing": {
    title: "What the model saw is not recorded",
    why: "Without the context or messages the model's decision cannot be explained or replayed.",
    check: "The recorder's integration: the model call should reference its context event or carry its messages.",
  },
  "context.instruction-omitted": {
    title: "A required instruction was left out of the prompt",
    why: "The model decided without a rule the policy says it must always be given.",
    check: "The context assembly of this step, and which prompt version was in force.",
  },
  "retrieval.stale": {
    title: "The agent relied on an out-of-date document",
    why: "A document older than the policy allows may state rules or facts that no longer hold.",
    check: "The document's indexedAt against the allowed age, and whether a newer version exists.",
  },
  "tool.partial": {
    title: "A tool returned incomplete data",
    why: "Later steps worked on a partial answer, so their decisions may be based on missing facts.",
    check: "What the partial result lacked, and which later steps used it.",
  },
  "approval.missing": {
    title: "Money or data was touched without the required approval",
    why: "The policy requires a person to approve this tool, and no approval covered this call.",
    check: "Whether an approval was ever requested for this call, and what the call did.",
  },
  "approval.stale-state": {
    title: "The approval was given for a different situation",
    why: "The approver saw a state that had changed by the time the action ran.",
    check: "The state the approval names against the state in force, and what changed in between.",
  },
  "approval.undecided": {
    title: "The agent acted before its approval was decided",
    why: "An approval was asked for and the call went ahead without waiting for the answer.",
    check: "The approval request and whether a decision came later.",
  },
  "approval.denied": {
    title: "The agent acted although approval was denied",
    why: "A person said no, and the call was made anyway.",
    check: "The denied decision, who made it, and what the call did.",
  },
  "approval.reused": {
    title: "One approval was used for two actions",
    why: "An approval covers one call; a second call on it was never approved by anyone.",
    check: "The first call that used the approval, and whether the second was meant to happen.",
  },
  "loop.past-stop": {
    title: "The agent kept going after deciding to stop",
    why: "Work done after a stop decision was not meant to happen and may have had effects.",
    check: "The stop decision, and what the run did after it.",
  },
  "loop.max-steps": {
    title: "The run took more steps than allowed",
    why: "Running past the step limit suggests a loop that did not reach its stop condition.",
    check: "The steps that repeat, and the stop condition they should have met.",
  },
  "effect.no-idempotency": {
    title: "A write has no idempotency key",
    why: "If this call is retried, the external system cannot tell it is the same request and may do it twice.",
    check: "Whether the tool supports an idempotency key, and whether this call was retried.",
  },
  "effect.retry-after-unknown": {
    title: "A write (such as a refund) may have been issued twice",
    why: "The earlier call's outcome was unknown (it may have succeeded), and it was retried without reconciling or an idempotency key.",
    check: "The earlier call's result and its error text, then the external system (e.g. the payment) for two effects.",
  },
  "effect.duplicate": {
    title: "The same write happened twice",
    why: "Two calls with the same arguments both succeeded: the effect (a payment, a message) was done twice.",
    check: "Both results and their external ids, then undo one of them in the external system.",
  },
  "state.hash-mismatch": {
    title: "The run's state does not match what was recorded",
    why: "The state rebuilt from the events differs from the recorded one: an update was lost or the record was changed.",
    check: "The state events before this one, in the State tab's diff.",
  },
  "secret.exposed": {
    title: "A secret appeared in the record",
    why: "A credential reached the journal; it was redacted on storage, but the source still leaks it.",
    check: "Which field held it, and rotate that credential.",
  },
  "tool.args-invalid": {
    title: "A tool was called with arguments its contract refuses",
    why: "The call did not meet the argument schema the policy declares for the tool, so the tool may have acted on malformed input.",
    check: "The failing keyword and path in the message, against the tool's declared schema.",
  },
  "policy.requires-before": {
    title: "The agent acted before a required earlier step",
    why: "The policy lets this tool run only after another tool succeeded, and it had not.",
    check: "The invariant named in the message, and whether the required call was made at all or for another argument.",
  },
  "policy.state-precondition": {
    title: "The agent acted on an object whose state forbids it",
    why: "The object's state, as the agent last read it, is not one the policy allows this action in.",
    check: "The read at the evidence seq, and the field the invariant names.",
  },
  "policy.once-per": {
    title: "An action the policy allows once was done again",
    why: "A second write for the same object, after one that did not fail, breaks the policy's at-most-once rule.",
    check: "The earlier call at the evidence seq, and whether both took effect.",
  },
  "policy.confirmed-by-input": {
    title: "A write was made without the user's confirmation",
    why: "The last thing the user said before this write was not the confirmation the policy requires.",
    check: "The user's last input at the evidence seq, and what the agent asked just before.",
  },
  "policy.arg-from-input": {
    title: "An argument came from nowhere the user or a tool gave it",
    why: "The value was not in any earlier user input or tool result the policy allows it from, so the agent made it up or took it from elsewhere.",
    check: "The argument path in the message, against the user's messages and the tool results before the call.",
  },
};

/** The plain text of a rule id; an id the table does not know keeps its id as title. */
export function ruleText(rule: string): RuleText {
  return (RULE_TEXT as Record<string, RuleText | undefined>)[rule] ?? { title: rule, why: "", check: "" };
}

/** Rules whose id or plain text contains `q` (case-insensitive): the runs list's search adds them. */
export function rulesMatching(q: string): RuleId[] {
  const needle = q.trim().toLowerCase();
  if (!needle) return [];
  return RULE_IDS.filter((id) => {
    const t = RULE_TEXT[id];
    return [id, t.title, t.why].some((s) => s.toLowerCase().includes(needle));
  });
}

/** A part of a finding's message: text, or a seq it names (shown as a link to that event). */
type MessagePart = { text: string } | { seq: number; text: string };

/**
 * The message cut into text and the seqs it names: "seq 26", "seq 32–34", "at seq 7",
 * "#27". A range links both ends; anything else stays text.
 */
export function messageParts(message: string): MessagePart[] {
  const parts: MessagePart[] = [];
  const re = /\b(seq\s+)(\d{1,10})(?:([–-])(\d{1,10}))?|#(\d{1,10})\b/g;
  let at = 0;
  for (let m = re.exec(message); m !== null; m = re.exec(message)) {
    if (m.index > at) parts.push({ text: message.slice(at, m.index) });
    if (m[5] !== undefined) parts.push({ seq: Number(m[5]), text: m[0] });
    else {
      parts.push({ text: m[1] });
      parts.push({ seq: Number(m[2]), text: m[2] });
      if (m[4] !== undefined) {
        parts.push({ text: m[3] });
        parts.push({ seq: Number(m[4]), text: m[4] });
      }
    }
    at = m.index + m[0].length;
  }
  if (at < message.length) parts.push({ text: message.slice(at) });
  return parts;
}

/** The seqs a message names, in order of appearance, each once. */
export function seqsNamed(message: string): number[] {
  const out: number[] = [];
  for (const p of messageParts(message)) if ("seq" in p && !out.includes(p.seq)) out.push(p.seq);
  return out;
}

/** Seconds for a person: 2592000 → "30 days", 5400 → "1.5 hours", 45 → "45 seconds". */
export function humanSeconds(s: number): string {
  if (!Number.isFinite(s)) return String(s);
  const units: Array<[number, string]> = [
    [86_400, "day"],
    [3_600, "hour"],
    [60, "minute"],
  ];
  for (const [size, name] of units) {
    if (Math.abs(s) >= size) {
      const v = Math.round((s / size) * 10) / 10;
      return `${v} ${name}${v === 1 ? "" : "s"}`;
    }
  }
  return `${s} second${s === 1 ? "" : "s"}`;
}
