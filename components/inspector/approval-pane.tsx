"use client";
import type { InspectAnswer, StoredEvent } from "@/lib/view/api-types";
import { asObj, asStr, dataOf, Fields, findType, Jump, Value } from "./bits";

/** An approval: what was asked against what was decided, and whether both saw the same state. */
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
  if (!request && decisions.length === 0) return <div className="empty-pane">No approval was requested for this call.</div>;
  const rq = dataOf(request);
  const policy = asObj(rq.policy);
  const requestHash = asStr(rq.stateHash);
  // The hash in force at this event, as analysis reads it (lib/semantics): the last recorded
  // state hash, or the rebuilt state's when that event recorded none.
  const runHash = answer.state?.hashAtSeq ?? null;
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
      {decisions.length === 0 ? <p className="warnc">No decision recorded for this request.</p> : null}
      {decisions.map((dEv) => {
        const d = dataOf(dEv);
        const decisionHash = asStr(d.stateHash);
        const same = requestHash !== null && decisionHash !== null && requestHash === decisionHash;
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
            <p className={same ? "ok" : "bad"} role="status">
              {requestHash === null || decisionHash === null
                ? "A state hash is missing: cannot compare."
                : same
                  ? "✓ Request and decision saw the same state."
                  : "✗ The decision was made on a different state than the request."}
            </p>
            {answer.state && self.seq === dEv.seq && decisionHash !== null ? (
              answer.state.redacted && answer.state.recordedHash === null ? (
                <p>
                  The run state holds secrets replaced at ingest and recorded no hash here, so the approver&apos;s state cannot be checked.
                </p>
              ) : (
                <p className={runHash === decisionHash ? "ok" : "bad"}>
                  {runHash === decisionHash
                    ? "✓ The approver's state hash matches the run state at the decision."
                    : `✗ The run state at the decision was ${runHash}: the approver looked at a stale state.`}
                </p>
              )
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
