"use client";
import { useMemo } from "react";
import type { InspectAnswer } from "@/lib/view/api-types";
import { diffLineText, jsonDiff } from "@/lib/compare/json-diff";
import { JsonTree } from "@/components/ui/json-tree";
import { Segments } from "@/components/ui/safe-text";
import { Fields, Jump } from "./bits";

const MAX_LINES = 500;

/** The run state at this event, its change from the state before, and the hash check. */
export function StatePane({ answer }: { answer: InspectAnswer }) {
  const st = answer.state;
  const lines = useMemo(() => (st ? jsonDiff(st.before, st.after) : []), [st]);
  if (!st) return <div className="skeleton">Rebuilding the state…</div>;
  const own = st.changedAt === answer.seq;
  const hashOk = st.recordedHash === null || st.recordedHash === st.rebuiltHash;
  const verdict = st.redacted
    ? {
        className: "",
        text: "The state holds secrets replaced at ingest, so its hash cannot be checked here: the recorder hashed the original.",
      }
    : hashOk
      ? { className: "ok", text: "✓ The rebuilt state matches the recorded hash." }
      : { className: "bad", text: "✗ The rebuilt state does not match the recorded hash." };
  return (
    <div className="pane">
      <Fields
        rows={[
          [
            "last change",
            st.changedAt === null ? (
              "none: the state is still {}"
            ) : own ? (
              "this event"
            ) : (
              <Jump key="c" seq={st.changedAt}>
                #{st.changedAt}
              </Jump>
            ),
          ],
          [
            "rebuilt from",
            st.fromCheckpoint === null ? (
              "{} at the start of the run"
            ) : (
              <Jump key="f" seq={st.fromCheckpoint}>
                checkpoint #{st.fromCheckpoint}
              </Jump>
            ),
          ],
          [
            "recorded hash",
            <span key="r" className="hash">
              {st.recordedHash ?? "—"}
            </span>,
          ],
          [
            "rebuilt hash",
            <span key="b" className="hash">
              {st.rebuiltHash}
            </span>,
          ],
        ]}
      />
      {st.changedAt !== null ? (
        <p className={verdict.className} role="status">
          {verdict.text}
        </p>
      ) : null}
      {st.error ? <p className="bad">The last state event could not be applied: {st.error}</p> : null}
      <h3>{own ? "Change made by this event" : st.changedAt !== null ? `Change made by #${st.changedAt}` : "Change"}</h3>
      {lines.length === 0 ? (
        <p style={{ color: "var(--muted)" }}>No change.</p>
      ) : (
        <pre className="diff" aria-label="State diff">
          {lines.slice(0, MAX_LINES).map((l, i) => (
            <div key={i} className={l.op}>
              <Segments text={diffLineText(l)} />
            </div>
          ))}
          {lines.length > MAX_LINES ? <div>… {lines.length - MAX_LINES} more changes</div> : null}
        </pre>
      )}
      <h3>State at #{answer.seq}</h3>
      <JsonTree value={st.after} label="State" />
    </div>
  );
}
