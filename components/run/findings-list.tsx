"use client";
import { useState } from "react";
import { ruleText } from "@/lib/analyze";
import { findingKey, type NoteItem, type NoteLabel } from "@/lib/evidence/notes";
import { plural } from "@/lib/semantics";
import type { FindingItem } from "@/lib/view/api-types";
import { groupFindings } from "@/lib/view/findings";
import { visibleText } from "@/lib/view/text";
import { CopyLink } from "./copy-link";
import { NoteLabelBadge } from "./notes";
import { useRunStore, useRunStoreApi } from "./run-store";

/** How many findings of one group are listed before "show all". */
const SHOWN = 20;

/**
 * The analyzer's findings, one group per rule with its count (100 identical
 * `secret.exposed` are one group), errors first, filterable by severity; each jumps to its
 * event, and those at the selected event are marked. A finding's reviewers' label shows
 * beside it; one marked false positive stays listed, struck through.
 */
export function FindingsList({
  runId,
  findings,
  labels = new Map(),
  notes = [],
}: {
  /** gives each finding a "copy link" to it */
  runId?: string;
  findings: FindingItem[];
  labels?: ReadonlyMap<string, NoteLabel>;
  notes?: NoteItem[];
}) {
  const api = useRunStoreApi();
  const selected = useRunStore((s) => s.selectedSeq);
  const [severity, setSeverity] = useState<"" | "error" | "warning">("");
  const [open, setOpen] = useState<Record<string, boolean>>({});
  if (findings.length === 0) return <div className="empty-pane">No findings: every analysis rule passed.</div>;
  const errors = findings.filter((f) => f.severity === "error").length;
  const groups = groupFindings(findings, severity);
  return (
    <div className="tab-panel">
      <div className="findings-filter" role="radiogroup" aria-label="Severity">
        {(
          [
            ["", `all ${findings.length}`],
            ["error", plural(errors, "error")],
            ["warning", plural(findings.length - errors, "warning")],
          ] as const
        ).map(([v, label]) => (
          <label key={v}>
            <input type="radio" name="finding-severity" checked={severity === v} onChange={() => setSeverity(v)} /> {label}
          </label>
        ))}
      </div>
      <div aria-label="Findings" role="list">
        {groups.map((g) => {
          const t = ruleText(g.rule);
          const all = open[g.rule] === true;
          const shown = all ? g.findings : g.findings.slice(0, SHOWN);
          return (
            <section
              key={g.rule}
              className="finding-group"
              role="listitem"
              aria-label={`${t.title}: ${plural(g.findings.length, "finding")}`}
            >
              <button type="button" className="fgroup-head" onClick={() => api.getState().select(g.findings[0].seq)}>
                <span className={`rule sev-${g.severity}`}>{t.title}</span>{" "}
                <span className="badge fcount">{g.findings.length.toLocaleString("en-US")}</span>
                <div className="mono frule">{g.rule}</div>
              </button>
              <ul className="findings-list">
                {shown.map((f) => {
                  const label = labels.get(findingKey(f.rule, f.seq));
                  const mine = notes.filter((n) => n.target === "finding" && n.rule === f.rule && n.seq === f.seq);
                  return (
                    <li key={`${f.rule}:${f.seq}`} className={label === "false positive" ? "false-positive" : undefined} data-label={label}>
                      <button
                        type="button"
                        aria-current={f.seq === selected ? "true" : undefined}
                        onClick={() => api.getState().select(f.seq)}
                      >
                        <span className={`sev-${f.severity}`}>#{f.seq}</span> <span className="fmsg">{visibleText(f.message)}</span>
                        {label ? (
                          <>
                            {" "}
                            <NoteLabelBadge label={label} />
                          </>
                        ) : null}
                        {mine.map((n) => (
                          <div key={n.id} className="finding-note">
                            {visibleText(n.text)} <span className="note-by">({visibleText(n.author)})</span>
                          </div>
                        ))}
                      </button>
                      {runId ? (
                        <CopyLink runId={runId} seq={f.seq} tab="findings" what={`finding #${f.seq}: ${ruleText(f.rule).title}`} short />
                      ) : null}
                    </li>
                  );
                })}
              </ul>
              {g.findings.length > shown.length ? (
                <button type="button" className="link fmore" onClick={() => setOpen({ ...open, [g.rule]: true })}>
                  show all {g.findings.length.toLocaleString("en-US")}
                </button>
              ) : null}
            </section>
          );
        })}
      </div>
    </div>
  );
}
