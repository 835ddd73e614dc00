"use client";
import { plural } from "@/lib/semantics";
import { Handle, Position, type Node, type NodeProps } from "@xyflow/react";
import { memo } from "react";
import { EVENT_KINDS, KIND_LABEL, type EventNodeData, type StepNodeData } from "@/lib/graph";
import { formatDuration } from "@/lib/view/format";
import { KindBadge } from "@/components/ui/kind-badge";
import { useRunStoreApi } from "@/components/run/run-store";
import { useTimesRecorded } from "@/components/run/times-recorded";

export type EventFlowNode = Node<{ node: EventNodeData; selected: boolean; matched: boolean }, "event">;
export type StepFlowNode = Node<{ node: StepNodeData; selected: boolean }, "step">;

const hidden = { opacity: 0, width: 1, height: 1, minWidth: 0, minHeight: 0, border: "none" } as const;

/** Events inside a step flow top to bottom, the top level left to right. */
function Handles({ vertical }: { vertical: boolean }) {
  return (
    <>
      <Handle type="target" position={vertical ? Position.Top : Position.Left} isConnectable={false} style={hidden} />
      <Handle type="source" position={vertical ? Position.Bottom : Position.Right} isConnectable={false} style={hidden} />
    </>
  );
}

export const EventNode = memo(function EventNode({ data }: NodeProps<EventFlowNode>) {
  const n = data.node;
  const detail = [n.name, n.status].filter(Boolean).join(" · ");
  return (
    <div
      className={`ev-node-box${n.failed ? " failed" : ""}${data.selected ? " selected" : ""}${data.matched ? " matched" : ""}`}
      data-seq={n.seq}
    >
      <Handles vertical={n.parent !== null} />
      {/* a retry or duplicate arcs out and back in on the right, clear of the order line */}
      <Handle id="rel-out" type="source" position={Position.Right} isConnectable={false} style={hidden} />
      <Handle id="rel-in" type="target" position={Position.Right} isConnectable={false} style={hidden} />
      <KindBadge kind={n.eventKind} />
      <span className="txt">
        <span className="t">
          #{n.seq} {n.type}
        </span>
        {detail ? <span className="n">{detail}</span> : null}
      </span>
      {n.findings > 0 ? (
        <span className="fbadge" title={plural(n.findings, "finding")}>
          !{n.findings > 1 ? n.findings : ""}
        </span>
      ) : null}
      {n.notes > 0 ? (
        <span className="nbadge" title={plural(n.notes, "note")}>
          ✎{n.notes > 1 ? n.notes : ""}
        </span>
      ) : null}
    </div>
  );
});

export const StepNode = memo(function StepNode({ data }: NodeProps<StepFlowNode>) {
  const n = data.node;
  const timed = useTimesRecorded();
  const api = useRunStoreApi();
  const toggle = (e: React.MouseEvent) => {
    e.stopPropagation();
    api.getState().toggleStep(n.stepId, n.collapsed);
  };
  if (!n.collapsed) {
    return (
      <div className="step-group">
        <Handles vertical={false} />
        <div className="step-head">
          <span className="nm" title={n.label}>
            {n.label}
          </span>
          {timed ? <span style={{ color: "var(--muted)" }}>{formatDuration(n.durationMs)}</span> : null}
          {n.failures > 0 ? <span className="badge bad">{n.failures} failed</span> : null}
          <button type="button" onClick={toggle} aria-label={`Collapse step ${n.label}`}>
            −
          </button>
        </div>
      </div>
    );
  }
  const kinds = EVENT_KINDS.filter((k) => k !== "step" && (n.kindCounts[k] ?? 0) > 0);
  return (
    <div className={`step-card${n.failures > 0 ? " failed" : ""}${data.selected ? " selected" : ""}`}>
      <Handles vertical={false} />
      <div className="row1">
        <span className="nm" title={n.label}>
          {n.label}
        </span>
        {n.findings > 0 ? <span className="badge bad">{n.findings}!</span> : null}
        {n.notes > 0 ? (
          <span className="badge note-count" title={plural(n.notes, "note")}>
            ✎{n.notes}
          </span>
        ) : null}
        <button type="button" onClick={toggle} aria-label={`Expand step ${n.label}`}>
          +
        </button>
      </div>
      <div className="chips">
        {kinds.slice(0, 4).map((k) => (
          <span
            key={k}
            title={`${n.kindCounts[k]} × ${KIND_LABEL[k]}`}
            style={{ display: "inline-flex", alignItems: "center", gap: 2, fontSize: 10.5 }}
          >
            <KindBadge kind={k} />×{n.kindCounts[k]}
          </span>
        ))}
        {kinds.length > 4 ? <span style={{ fontSize: 10.5, color: "var(--muted)" }}>+{kinds.length - 4}</span> : null}
      </div>
      <div className="sub">
        #{n.firstSeq}–#{n.lastSeq} · {plural(n.eventCount, "event")}
        {timed ? ` · ${formatDuration(n.durationMs)}` : ""}
        {n.status === "error" ? <span className="bad"> · error</span> : null}
      </div>
    </div>
  );
});
