"use client";
import { findingKey, type NoteItem, type NoteLabel } from "@/lib/evidence/notes";
import type { FindingItem } from "@/lib/view/api-types";
import { visibleText } from "@/lib/view/text";
import { NoteLabelBadge } from "./notes";
import { useRunStoreApi } from "./run-store";

/**
 * The analyzer's findings; each jumps to its event. A finding's reviewers' label shows
 * beside it; one marked false positive stays listed, struck through.
 */
export function FindingsList({
  findings,
  labels = new Map(),
  notes = [],
}: {
  findings: FindingItem[];
  labels?: ReadonlyMap<string, NoteLabel>;
  notes?: NoteItem[];
}) {
  const api = useRunStoreApi();
  if (findings.length === 0) return <div className="empty-pane">No findings: every analysis rule passed.</div>;
  return (
    <div className="tab-panel">
      <ul className="findings-list" aria-label="Findings">
        {findings.map((f) => {
          const label = labels.get(findingKey(f.rule, f.seq));
          const fp = label === "false positive";
          const mine = notes.filter((n) => n.target === "finding" && n.rule === f.rule && n.seq === f.seq);
          return (
            <li key={`${f.rule}:${f.seq}`} className={fp ? "false-positive" : undefined} data-label={label}>
              <button type="button" onClick={() => api.getState().select(f.seq)}>
                <span className={`rule sev-${f.severity}`}>{f.rule}</span> <span style={{ color: "var(--muted)" }}>at #{f.seq}</span>
                {label ? (
                  <>
                    {" "}
                    <NoteLabelBadge label={label} />
                  </>
                ) : null}
                <div className="fmsg">{visibleText(f.message)}</div>
                {mine.map((n) => (
                  <div key={n.id} className="finding-note">
                    {visibleText(n.text)} <span className="note-by">({visibleText(n.author)})</span>
                  </div>
                ))}
              </button>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
