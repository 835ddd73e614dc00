"use client";
import type { InspectAnswer, StoredEvent } from "@/lib/view/api-types";
import { formatDuration } from "@/lib/view/format";
import { relatedAt, type Relation } from "@/lib/view/relations";
import { JsonTree } from "@/components/ui/json-tree";
import { LiveActions } from "@/components/live/live-actions";
import { asStr, dataOf, ErrorBlock, Fields, findType, Jump, Value } from "./bits";
import { PolicyVerdictBlock } from "./policy-verdict";

/** A tool call paired with its result by `call`: what was asked, with what effect, and what came back. */
export function ToolPane({ answer, all, relations = [] }: { answer: InspectAnswer; all: StoredEvent[]; relations?: readonly Relation[] }) {
  const self = answer.event;
  const call = asStr(dataOf(self).call);
  const callEv = self.event.type === "tool.call" ? self : findType(all, "tool.call", (d) => d.call === call);
  const results = all.filter((e) => e.event.type === "tool.result" && dataOf(e).call === call);
  const reconciles = all.filter((e) => e.event.type === "reconcile" && dataOf(e).call === call);
  const approval = findType(all, "approval.request", (d) => d.call === call);
  const c = dataOf(callEv);
  // the call ledger's verdict, sent with the answer (lib/semantics): the live actions and the findings read the same
  const verdict = answer.verdicts.call;
  const write = verdict ? verdict.effect === "write" : c.effect !== "read";
  const idem = asStr(c.idempotencyKey);
  const unknownOutcome = verdict?.open === true;
  // other calls this one is related to by a finding, both ways (lib/view/relations.ts)
  const rel = callEv ? relatedAt(relations, callEv.seq) : null;
  const relRows: [string, React.ReactNode][] = rel
    ? (
        [
          ["retried by", rel.retriedBy],
          ["retries", rel.retries],
          ["repeated by", rel.duplicatedBy],
          ["repeats", rel.duplicates],
        ] as const
      )
        .filter(([, seqs]) => seqs.length > 0)
        .map(([label, seqs]) => [
          label,
          <span key={label} className="bad">
            {seqs.map((q, i) => (
              <span key={q}>
                {i > 0 ? ", " : ""}
                <Jump seq={q}>{`${label} #${q}`}</Jump>
              </span>
            ))}
          </span>,
        ])
    : [];
  return (
    <div className="pane">
      <h3>Call {callEv ? <Jump seq={callEv.seq} /> : null}</h3>
      {callEv ? <LiveMark data={c} /> : null}
      {callEv ? (
        <>
          <Fields
            rows={[
              [
                "tool",
                <span key="t" className="mono">
                  <Value v={c.tool} />
                  {c.version !== undefined ? (
                    <>
                      @<Value v={c.version} />
                    </>
                  ) : null}
                </span>,
              ],
              ["call id", <Value key="c" v={c.call} />],
              [
                "effect",
                <span key="e">
                  <span className={`badge ${write ? "warn" : ""}`}>{asStr(c.effect) ?? "—"}</span>
                  {/* an importer guessed it from the tool's name or arguments: the source did not say */}
                  {c.effectInferred === true ? (
                    <span
                      className="muted"
                      title={asStr(c.effectReason) ?? "guessed from the tool's name or arguments"}
                      data-testid="effect-inferred"
                    >
                      {" "}
                      inferred
                    </span>
                  ) : null}
                </span>,
              ],
              [
                "idempotency key",
                idem ? (
                  <Value key="i" v={idem} />
                ) : (
                  <span key="i" className={write ? "bad" : ""}>
                    {write ? "missing (a write without one)" : "—"}
                  </span>
                ),
              ],
              ["target", <Value key="g" v={c.target} />],
              [
                "approval",
                approval ? (
                  <Jump key="a" seq={approval.seq}>
                    requested at #{approval.seq}
                  </Jump>
                ) : (
                  "—"
                ),
              ],
              ...(verdict
                ? ([
                    [
                      "outcome",
                      <span key="o" className={verdict.open ? "bad" : verdict.confirmed ? "ok" : undefined} data-testid="call-outcome">
                        {outcomeText(verdict)}
                      </span>,
                    ],
                  ] as [string, React.ReactNode][])
                : []),
              ...(verdict && verdict.retryOf !== null
                ? ([
                    [
                      "retry after unknown",
                      <span key="r" className="bad">
                        retries <Jump seq={verdict.retryOf}>{`#${verdict.retryOf}`}</Jump>, whose outcome nobody knew
                      </span>,
                    ],
                  ] as [string, React.ReactNode][])
                : []),
              ...relRows,
            ]}
          />
          {answer.verdicts.policy ? <PolicyVerdictBlock verdict={answer.verdicts.policy} /> : null}
          <h3>Arguments</h3>
          <JsonTree value={c.args} label="Arguments" />
        </>
      ) : (
        <p className="warnc">The call was not found in this run.</p>
      )}
      {results.length === 0 ? <p className="warnc">No result recorded (yet) for this call.</p> : null}
      {results.map((r) => {
        const d = dataOf(r);
        const status = asStr(d.status);
        return (
          <div key={r.seq} style={{ display: "flex", flexDirection: "column", gap: 8 }}>
            <h3>
              Result <Jump seq={r.seq} />
            </h3>
            <LiveMark data={d} />
            <Fields
              rows={[
                [
                  "status",
                  <span key="s" className={`badge ${status === "ok" ? "good" : "bad"}`}>
                    {status ?? "—"}
                  </span>,
                ],
                ["latency", typeof d.latencyMs === "number" ? formatDuration(d.latencyMs) : "—"],
                ["external id", <Value key="x" v={d.externalId} />],
                [
                  "partial",
                  d.partial === true ? (
                    <span key="p" className="warnc">
                      yes: the result is incomplete
                    </span>
                  ) : (
                    "no"
                  ),
                ],
              ]}
            />
            {d.error !== undefined ? <ErrorBlock error={d.error} /> : null}
            {d.result !== undefined ? <JsonTree value={d.result} label="Result" /> : null}
          </div>
        );
      })}
      {reconciles.map((r) => {
        const d = dataOf(r);
        return (
          <div key={r.seq}>
            <h3>
              Reconciled <Jump seq={r.seq} />
            </h3>
            <LiveMark data={d} />
            <Fields
              rows={[
                ["outcome", <Value key="o" v={d.outcome} />],
                ["by", <Value key="b" v={d.by} />],
                ["evidence", <Value key="e" v={d.evidence} />],
              ]}
            />
          </div>
        );
      })}
      {callEv ? <LiveActions key={callEv.seq} seq={callEv.seq} unknownOutcome={unknownOutcome} /> : null}
    </div>
  );
}

/** An event a live action wrote (data.live, docs/journal-format.md): said so, with who, where and why. */
function LiveMark({ data }: { data: Record<string, unknown> }) {
  const live = data.live;
  if (!live || typeof live !== "object" || Array.isArray(live)) return null;
  const m = live as Record<string, unknown>;
  return (
    <p className="live-event" data-testid="live-event">
      <span className="badge live-mark">live</span> {asStr(m.action) ?? "live action"} on <b>{asStr(m.environment) ?? "?"}</b> by{" "}
      {asStr(m.actor) ?? "?"} at {asStr(m.at) ?? "?"}: <Value v={m.reason} />
    </p>
  );
}

/** The call ledger's verdict in words: open, confirmed, or settled otherwise. */
function outcomeText(v: NonNullable<InspectAnswer["verdicts"]["call"]>): string {
  const settled = v.reconciled
    ? `reconciled as ${v.reconciled.outcome}${v.reconciled.seq !== null ? ` at #${v.reconciled.seq}` : ` on branch ${v.reconciled.where}`}`
    : null;
  if (v.open)
    return v.status === null ? "open: no result came, nobody knows whether it acted" : `open: ${v.status}, nobody knows whether it acted`;
  if (v.confirmed) return settled ?? "confirmed: it acted";
  return settled ?? (v.status === null ? "no result (a read: nothing to settle)" : `ended ${v.status}`);
}
