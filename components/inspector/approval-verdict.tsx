import type { InspectAnswer } from "@/lib/view/api-types";
import { Jump, Value } from "./bits";

type ApprovalVerdict = NonNullable<InspectAnswer["verdicts"]["approval"]>;

/**
 * The fold's approval verdict on a tool call (lib/semantics, sent with the inspect answer),
 * in words, with the rule it is reported under: the pane says what the finding says and
 * judges nothing itself.
 */
export function ApprovalVerdictLine({ verdict }: { verdict: ApprovalVerdict | null }) {
  if (verdict === null)
    return (
      <p className="muted" data-testid="approval-verdict">
        No call was made on this approval.
      </p>
    );
  const call = (
    <Jump seq={verdict.seq}>
      #{verdict.seq} <Value v={verdict.tool} />
    </Jump>
  );
  const rule = (r: string) => <span className="mono">{r}</span>;
  let text: React.ReactNode;
  switch (verdict.status) {
    case "ok":
      text = verdict.approved ? (
        <>
          ✓ Call {call} was approved before it was made{verdict.required ? " (the policy requires it)" : ""}.
        </>
      ) : (
        <>No approval applies to call {call}: the policy does not require one and none was requested.</>
      );
      break;
    case "missing":
      text = (
        <>
          ✗ {rule("approval.missing")}: the policy requires approval for <Value v={verdict.tool} />, and call {call}{" "}
          {verdict.requested
            ? verdict.denied
              ? "was denied it"
              : "had no approved decision before it"
            : "was never submitted for approval"}
          .
        </>
      );
      break;
    case "undecided":
      text = (
        <>
          ✗ {rule("approval.undecided")}: call {call} was made while an approval requested for it had no decision.
        </>
      );
      break;
    case "denied":
      text = (
        <>
          ✗ {rule("approval.denied")}: call {call} was made although its approval was denied.
        </>
      );
      break;
    case "reused":
      text = (
        <>
          ✗ {rule("approval.reused")}: call {call} was made on the approval that call{" "}
          {verdict.usedBy !== null ? <Jump seq={verdict.usedBy}>#{verdict.usedBy}</Jump> : "?"} had already used.
        </>
      );
      break;
  }
  return (
    <p className={verdict.status === "ok" ? (verdict.approved ? "ok" : undefined) : "bad"} role="status" data-testid="approval-verdict">
      {text}
    </p>
  );
}
