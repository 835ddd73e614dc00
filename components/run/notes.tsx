"use client";
import { useMemo, useState } from "react";
import { addNote } from "@/app/actions/notes";
import { findingKey, NOTE_LABELS, searchNotes, type NoteItem, type NoteLabel } from "@/lib/evidence/notes";
import type { FindingItem } from "@/lib/view/api-types";
import { visibleText } from "@/lib/view/text";
import { useRunStore, useRunStoreApi } from "./run-store";

export function NoteLabelBadge({ label }: { label: NoteLabel }) {
  return <span className={`note-label note-${label.replace(/ /g, "-")}`}>{label}</span>;
}

function where(n: NoteItem): string {
  if (n.target === "run") return "run";
  if (n.target === "event") return `event #${n.seq}`;
  return `${n.rule} at #${n.seq}`;
}

/** The run's notes (searchable) and, for a reviewer, the form that adds one. */
export function NotesPanel({
  runId,
  notes,
  findings,
  canWrite,
  onAdded,
  readOnly,
}: {
  runId: string;
  notes: NoteItem[];
  findings: FindingItem[];
  canWrite: boolean;
  onAdded: (n: NoteItem) => void;
  /** why no note may be written here (a run opened from a bundle) */
  readOnly?: string;
}) {
  const api = useRunStoreApi();
  const selected = useRunStore((s) => s.selectedSeq);
  const [q, setQ] = useState("");
  const shown = useMemo(() => searchNotes(notes, q), [notes, q]);
  return (
    <div className="tab-panel notes-panel">
      {canWrite ? <NoteForm runId={runId} selected={selected} findings={findings} onAdded={onAdded} /> : null}
      {readOnly ? <p className="muted notes-readonly">{readOnly}</p> : null}
      <input
        className="notes-search"
        type="search"
        placeholder="Search notes"
        aria-label="Search notes"
        value={q}
        onChange={(e) => setQ(e.target.value)}
      />
      {shown.length === 0 ? (
        <div className="empty-pane">{notes.length === 0 ? "No notes yet." : "No note matches."}</div>
      ) : (
        <ul className="notes-list" aria-label="Notes">
          {shown.map((n) => (
            <li key={n.id}>
              <button type="button" onClick={() => (n.seq !== null ? api.getState().select(n.seq) : undefined)}>
                <NoteLabelBadge label={n.label} /> <span className="note-where">{where(n)}</span>
                <div className="note-text">{visibleText(n.text)}</div>
                <div className="note-by">
                  {visibleText(n.author)} · {n.createdAt.slice(0, 16).replace("T", " ")}
                </div>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function NoteForm({
  runId,
  selected,
  findings,
  onAdded,
}: {
  runId: string;
  selected: number | null;
  findings: FindingItem[];
  onAdded: (n: NoteItem) => void;
}) {
  const [target, setTarget] = useState("event");
  const [label, setLabel] = useState<NoteLabel>("question");
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const here = findings.filter((f) => f.seq === selected);
  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const f = target.startsWith("finding:") ? here.find((x) => `finding:${x.rule}` === target) : undefined;
    const r = await addNote({
      run: runId,
      target: f ? "finding" : target === "run" ? "run" : "event",
      seq: target === "run" ? null : selected,
      rule: f ? f.rule : null,
      label,
      text,
    });
    setBusy(false);
    if (!r.ok) return setError(r.error);
    setText("");
    onAdded(r.value);
  }
  return (
    <form className="note-form" onSubmit={submit} aria-label="Add a note">
      <div className="note-form-row">
        <select aria-label="Note on" value={target} onChange={(e) => setTarget(e.target.value)}>
          <option value="run">the run</option>
          <option value="event" disabled={selected === null}>
            event #{selected ?? "?"}
          </option>
          {here.map((f) => (
            <option key={f.rule} value={`finding:${f.rule}`}>
              finding {f.rule} at #{f.seq}
            </option>
          ))}
        </select>
        <select aria-label="Label" value={label} onChange={(e) => setLabel(e.target.value as NoteLabel)}>
          {NOTE_LABELS.map((l) => (
            <option key={l} value={l}>
              {l}
            </option>
          ))}
        </select>
      </div>
      <textarea aria-label="Note" rows={3} value={text} onChange={(e) => setText(e.target.value)} placeholder="What did you find?" />
      <div className="note-form-row">
        <button type="submit" disabled={busy}>
          Add note
        </button>
        {error ? (
          <span className="form-error" role="alert">
            {error}
          </span>
        ) : null}
      </div>
    </form>
  );
}

/** Labels in force per finding and the seqs that carry notes, for the lists, graph and timeline. */
export function useNoteMarks(notes: NoteItem[]) {
  return useMemo(() => {
    const labels = new Map<string, NoteLabel>();
    const bySeq = new Map<number, number>();
    const sorted = [...notes].sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1));
    for (const n of sorted) {
      if (n.target === "finding" && n.rule !== null && n.seq !== null) labels.set(findingKey(n.rule, n.seq), n.label);
      if (n.seq !== null) bySeq.set(n.seq, (bySeq.get(n.seq) ?? 0) + 1);
    }
    return { labels, bySeq };
  }, [notes]);
}

/**
 * Export an audit bundle of this run (a download; the server logs it). A form POST, not a
 * link: an export is written to the privileged-action log, so a page of another site must
 * not be able to make one with a navigation (the edge refuses a cross-origin POST).
 */
export function ExportBundle({ runId }: { runId: string }) {
  const [profile, setProfile] = useState("reviewer");
  return (
    <form className="export-bundle" method="post" action={`/api/runs/${encodeURIComponent(runId)}/bundle?profile=${profile}`}>
      <select aria-label="Bundle profile" value={profile} onChange={(e) => setProfile(e.target.value)}>
        <option value="secrets">secrets</option>
        <option value="reviewer">reviewer</option>
        <option value="public">public</option>
      </select>
      <button type="submit">Export bundle</button>
    </form>
  );
}
