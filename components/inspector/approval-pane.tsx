"use client";
import type { InspectAnswer, StoredEvent } from "@/lib/view/api-types";
import { ApprovalVerdictLine } from "./approval-verdict";
import { asObj, asStr, dataOf, Fields, findType, Jump, Value } from "./bits";

/**
 * An approval: what was asked and what was decided, with each state hash as recorded. Whether
 * the approver saw the run's state (`approval.stale-state`) and whether the call was approved
 * (`approval.missing`, `.undecided`, `.denied`, `.reused`) are the fold's verdicts, sent with
 * the inspect answer; the pane compares nothing itself.
 */
export function ApprovalPane({ answer, all }: { answer: InspectAnswer; all: StoredEvent[] }) {
  const self = answer.event;
  const selfData = dataOf(self);
  const approvalId = asStr(selfData.approval);
  const call = asStr(selfData.call);
  const request =
    self.event.type === "approval.request"
      ? self
      : findType(all, "approval.request", (d) => (approvalId ? d.approval === approvalId : d.call === call));
  const id = approvalId ?? asStr(dataOf(request).approval);
  const decisions = all.filter((e) => e.event.type === "approval.decision" && dataOf(e).approval === id);
  const gated = findType(all, "tool.call", (d) => d.call === (asStr(dataOf(request).call) ?? call));
  const callVerdict = answer.verdicts.approval;
  if (!request && decisions.length === 0)
    return (
      <div className="pane">
        <p className="muted">No approval was requested for this call.</p>
        {callVerdict ? <ApprovalVerdictLine verdict={callVerdict} /> : null}
      </div>
    );
  const rq = dataOf(request);
  const policy = asObj(rq.policy);
  const requestHash = asStr(rq.stateHash);
  const verdict = answer.verdicts.decision;
  return (
    <div className="pane">
      <Fields
        rows={[
          ["approval", <Value key="a" v={id} />],
          [
            "policy",
            policy ? (
              <span key="p" className="mono">
                <Value v={policy.id} />@<Value v={policy.version} />
              </span>
            ) : (
              "—"
            ),
          ],
          [
            "gates call",
            gated ? (
              <Jump key="g" seq={gated.seq}>
                #{gated.seq} <Value v={dataOf(gated).tool} />
              </Jump>
            ) : (
              <Value key="g" v={rq.call} />
            ),
          ],
        ]}
      />
      <ApprovalVerdictLine verdict={callVerdict} />
      {decisions.length === 0 ? <p className="warnc">No decision recorded for this request.</p> : null}
      {decisions.map((dEv) => {
        const d = dataOf(dEv);
        const decisionHash = asStr(d.stateHash);
        return (
          <div key={dEv.seq} style={{ display: "flex", flexDirection: "column", gap: 8 }}>
            <h3>Request against decision</h3>
            <div className="compare">
              <div>
                <b>Request</b> {request ? <Jump seq={request.seq} /> : null}
                <div className="hash">state {requestHash ?? "—"}</div>
              </div>
              <div>
                <b>Decision</b> <Jump seq={dEv.seq} />:{" "}
                <span className={d.decision === "approved" ? "ok" : "bad"}>{asStr(d.decision) ?? "—"}</span> by <Value v={d.by} />
                <div className="hash">state {decisionHash ?? "—"}</div>
              </div>
            </div>
            {verdict && self.seq === dEv.seq ? (
              <p className={verdict.stale === false ? "ok" : verdict.stale ? "bad" : undefined} role="status">
                {verdict.stateHash === null
                  ? "The decision recorded no state hash: which state the approver saw is not known."
                  : verdict.stale === null
                    ? "The run state holds secrets replaced at ingest and recorded no hash here, so the approver's state cannot be checked."
                    : verdict.stale
                      ? `✗ The run state at the decision was ${verdict.hashInForce ?? "?"}: the approver looked at a stale state.`
                      : "✓ The approver's state hash matches the run state at the decision."}
              </p>
            ) : self.seq !== dEv.seq ? (
              <p className="muted">Select the decision to see whether the approver saw the run&apos;s state.</p>
            ) : null}
            {d.reason !== undefined ? (
              <div>
                reason: <Value v={d.reason} limit={1000} />
              </div>
            ) : null}
          </div>
        );
      })}
    </div>
  );
}
