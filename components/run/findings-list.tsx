"use client";
import type { FindingItem } from "@/lib/view/api-types";
import { visibleText } from "@/lib/view/text";
import { useRunStoreApi } from "./run-store";

/** The analyzer's findings; each jumps to its event. */
export function FindingsList({ findings }: { findings: FindingItem[] }) {
  const api = useRunStoreApi();
  if (findings.length === 0) return <div className="empty-pane">No findings: every analysis rule passed.</div>;
  return (
    <div className="tab-panel">
      <ul className="findings-list" aria-label="Findings">
        {findings.map((f) => (
          <li key={`${f.rule}:${f.seq}`}>
            <button type="button" onClick={() => api.getState().select(f.seq)}>
              <span className={`rule sev-${f.severity}`}>{f.rule}</span> <span style={{ color: "var(--muted)" }}>at #{f.seq}</span>
              <div className="fmsg">{visibleText(f.message)}</div>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
