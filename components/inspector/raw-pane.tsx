"use client";
import type { InspectAnswer } from "@/lib/view/api-types";
import { visibleText } from "@/lib/view/text";
import { JsonTree } from "@/components/ui/json-tree";
import { ErrorBlock, Fields, Jump, Value } from "./bits";

/** Any event's data as a tree, with the events that belong with it. */
export function OverviewPane({ answer }: { answer: InspectAnswer }) {
  const e = answer.event.event;
  // an error event is its own error; a run or step that ended with one carries it in `error`
  const error = e.type === "error" ? e.data : e.data.error;
  return (
    <div className="pane">
      {error !== undefined ? <ErrorBlock error={error} /> : null}
      <h3>Data</h3>
      <JsonTree value={e.data} label="Event data" />
      {answer.related.length > 0 ? (
        <>
          <h3>Related events</h3>
          <Fields
            rows={answer.related.map((r) => [
              `#${r.seq}`,
              <Jump key={r.seq} seq={r.seq}>
                {visibleText(r.event.type)}
              </Jump>,
            ])}
          />
        </>
      ) : null}
    </div>
  );
}

/** The stored event exactly as kept (redacted), with both chains. */
export function RawPane({ answer }: { answer: InspectAnswer }) {
  const ev = answer.event;
  return (
    <div className="pane">
      <Fields
        rows={[
          [
            "recorder chain",
            <span key="c" className={ev.chain === "ok" ? "ok" : ev.chain === "fail" ? "bad" : ""}>
              {ev.chain}
            </span>,
          ],
          [
            "recorded hash",
            <span key="r" className="hash">
              <Value v={ev.recordedHash ?? undefined} />
            </span>,
          ],
          [
            "server hash",
            <span key="s" className="hash">
              <Value v={ev.event.hash} />
            </span>,
          ],
          ["redactions", String(ev.redactions)],
        ]}
      />
      <JsonTree value={ev.event} label="Stored event" openDepth={3} />
    </div>
  );
}
