"use client";
import { usePayloadsDropped } from "@/components/run/payloads-dropped";
import { plural } from "@/lib/semantics";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo } from "react";
import { EVENT_KINDS, type RunIndex } from "@/lib/graph";
import type { InspectAnswer, RunDetail, StoredEvent } from "@/lib/view/api-types";
import { formatDuration, formatOffset, formatTimestamp } from "@/lib/view/format";
import { KindBadge } from "@/components/ui/kind-badge";
import { useRunStore, useRunStoreApi } from "@/components/run/run-store";
import { prefetchInspect, useInspect } from "@/components/run/use-run-data";
import { ApprovalPane } from "./approval-pane";
import { ContextPane } from "./context-pane";
import { ModelPane } from "./model-pane";
import { OverviewPane, RawPane } from "./raw-pane";
import { RetrievalPane } from "./retrieval-pane";
import { StatePane } from "./state-pane";
import { ToolPane } from "./tool-pane";
import { ResumeFromCheckpoint } from "@/components/live/resume-panel";
import { useTimesRecorded } from "@/components/run/times-recorded";
import { CopyLink } from "@/components/run/copy-link";
import { FindingCard } from "@/components/run/finding-card";
import { orderAtEvent } from "@/lib/view/findings";
import { relationsOf, type Relation } from "@/lib/view/relations";

type Tab = "overview" | "context" | "retrieval" | "model" | "tool" | "approval" | "state" | "raw";
const TAB_LABEL: Record<Tab, string> = {
  overview: "Overview",
  context: "Context",
  retrieval: "Retrieval",
  model: "Model",
  tool: "Tool call",
  approval: "Approval",
  state: "State",
  raw: "Raw JSON",
};

function tabsFor(type: string): Tab[] {
  if (type === "context") return ["context", "state", "raw"];
  if (type === "retrieval") return ["retrieval", "state", "raw"];
  if (type.startsWith("model.")) return ["model", "context", "state", "raw"];
  if (type.startsWith("tool.") || type === "reconcile") return ["tool", "approval", "state", "raw"];
  if (type.startsWith("approval.")) return ["approval", "tool", "state", "raw"];
  if (type === "state" || type === "checkpoint") return ["state", "raw"];
  return ["overview", "state", "raw"];
}

const STATEFUL = (type: string) => type === "state" || type === "checkpoint" || type.startsWith("approval.");

/** The selected event: a header at once from the summary, its panes when the payload arrives. */
export function Inspector({
  runId,
  detail,
  index,
  onCollapse,
}: {
  runId: string;
  detail: RunDetail;
  index: RunIndex | undefined;
  /** hides the inspector (the run page's panes) */
  onCollapse?: () => void;
}) {
  const api = useRunStoreApi();
  const qc = useQueryClient();
  const timed = useTimesRecorded();
  const seq = useRunStore((s) => s.selectedSeq);
  const chosen = useRunStore((s) => s.inspectorTab) as Tab | null;
  const row = index && seq !== null ? index.rowOfSeq(seq) : -1;
  const type = row >= 0 && index ? index.summary.type[row] : "";
  const tabs = tabsFor(type);
  const tab: Tab = chosen && tabs.includes(chosen) ? chosen : tabs[0];
  const withState = tab === "state" && !STATEFUL(type);
  const q = useInspect(runId, row >= 0 ? seq : null, withState);
  const relations = useMemo(() => relationsOf(detail.findings), [detail.findings]);
  const dropped = usePayloadsDropped();

  // the neighbours' payloads, so j/k show them without waiting
  useEffect(() => {
    if (!index || row < 0 || !q.isSuccess) return;
    for (const r of [row + 1, row - 1]) if (r >= 0 && r < index.n) prefetchInspect(qc, runId, index.summary.seq[r]);
  }, [q.isSuccess, row, index, qc, runId]);

  if (!index) return <div className="skeleton">Loading…</div>;
  if (row < 0)
    return (
      <div className="empty-pane">
        {seq !== null ? `Event #${seq} is not in this run.` : "Select an event in the list, the graph or the timeline."}
      </div>
    );

  const s = index.summary;
  const kind = EVENT_KINDS[index.kindOfRow[row]];
  const parent = s.parent[row];
  // errors first, an effect before the approval it lacked: the reason the run opened here
  const findings = orderAtEvent(detail.findings.filter((f) => f.seq === seq));
  const ready = q.isSuccess && q.data.seq === seq;
  const policy = (detail.header.policy ?? null) as Record<string, unknown> | null;

  return (
    <div
      style={{ display: "flex", flexDirection: "column", minHeight: 0, height: "100%" }}
      data-testid="inspector"
      data-ready={ready ? "true" : "false"}
      data-seq={seq ?? undefined}
    >
      <div className="inspector-head">
        <div className="line1">
          <KindBadge kind={kind} />
          <h2>
            #{seq} {type}
            {s.name[row] ? <span style={{ fontWeight: 400, color: "var(--muted)" }}> {s.name[row]}</span> : null}
          </h2>
        </div>
        <div className="meta">
          {timed ? (
            <span title={formatTimestamp(s.tsMs[row])}>{formatOffset(s.tsMs[row] - index.startMs)}</span>
          ) : (
            <span title="The source recorded no times">no time recorded</span>
          )}
          {s.step[row] ? <span>step {s.step[row]}</span> : null}
          {s.status[row] ? <span className={index.failed[row] ? "bad" : ""}>{s.status[row]}</span> : null}
          {!Number.isNaN(s.latencyMs[row]) ? <span>{formatDuration(s.latencyMs[row])}</span> : null}
          {parent >= 0 ? (
            <button type="button" className="link" onClick={() => api.getState().select(parent)}>
              caused by #{parent}
            </button>
          ) : null}
          <span title="recorder chain at this event">chain {s.chain[row]}</span>
          {seq !== null ? <CopyLink runId={runId} seq={seq} what={`event #${seq}`} /> : null}
          {s.redactions[row] > 0 ? <span className="warnc">{plural(s.redactions[row], "secret")} redacted</span> : null}
        </div>
        {type === "checkpoint" && ready ? (
          <ResumeFromCheckpoint
            runId={runId}
            status={detail.status}
            id={typeof q.data.event.event.data.id === "string" ? q.data.event.event.data.id : ""}
            durable={q.data.event.event.data.durable === true}
          />
        ) : null}
        {findings.length > 0 ? (
          <div className="inspector-findings" aria-label={`Findings at #${seq}`}>
            {findings.map((f) => (
              <FindingCard
                key={f.rule}
                runId={runId}
                finding={f}
                policy={policy}
                compact={f.severity === "warning" && findings.some((o) => o.severity === "error")}
              />
            ))}
          </div>
        ) : null}
      </div>
      <div className="tabs" role="tablist" aria-label="Event panes">
        {tabs.map((t) => (
          <button key={t} type="button" role="tab" aria-selected={t === tab} onClick={() => api.getState().setInspectorTab(t)}>
            {TAB_LABEL[t]}
          </button>
        ))}
        {onCollapse ? (
          <button type="button" className="pane-collapse" aria-label="Hide the inspector" onClick={onCollapse}>
            »
          </button>
        ) : null}
      </div>
      <div className="tab-panel" role="tabpanel" aria-label={TAB_LABEL[tab]}>
        {dropped ? (
          <div className="empty-pane" data-testid="payload-dropped">
            Payload dropped on {dropped.slice(0, 10)} by the retention policy. Kept: the event&apos;s type, time, step, names, status,
            latency and chain hash (above); its content is gone.
          </div>
        ) : q.isError ? (
          <div className="empty-pane bad">
            Could not load event #{seq}: {q.error.message}
          </div>
        ) : !ready ? (
          <div className="skeleton">Loading event #{seq}…</div>
        ) : (
          <Pane tab={tab} answer={q.data} policy={policy} relations={relations} />
        )}
      </div>
    </div>
  );
}

function Pane({
  tab,
  answer,
  policy,
  relations,
}: {
  tab: Tab;
  answer: InspectAnswer;
  policy: Record<string, unknown> | null;
  relations: readonly Relation[];
}) {
  const all: StoredEvent[] = [answer.event, ...answer.related].sort((a, b) => a.seq - b.seq);
  switch (tab) {
    case "context":
      return <ContextPane answer={answer} all={all} policy={policy} />;
    case "retrieval":
      return <RetrievalPane answer={answer} policy={policy} />;
    case "model":
      return <ModelPane answer={answer} all={all} />;
    case "tool":
      return <ToolPane answer={answer} all={all} relations={relations} />;
    case "approval":
      return <ApprovalPane answer={answer} all={all} />;
    case "state":
      return <StatePane answer={answer} />;
    case "raw":
      return <RawPane answer={answer} />;
    default:
      return <OverviewPane answer={answer} />;
  }
}
