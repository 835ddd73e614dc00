/**
 * Reviewer notes: on a run, an event (by seq) or a finding (by rule and seq), with a label.
 * Kept apart from the journal, which no note ever changes. Pure: shapes and rules that the
 * server, the UI and the bundle share.
 */
export const NOTE_LABELS = ["confirmed", "false positive", "needs fix", "question"] as const;
export type NoteLabel = (typeof NOTE_LABELS)[number];
export const isNoteLabel = (s: string): s is NoteLabel => (NOTE_LABELS as readonly string[]).includes(s);

export const NOTE_TARGETS = ["run", "event", "finding"] as const;
export type NoteTarget = (typeof NOTE_TARGETS)[number];

export const MAX_NOTE_LENGTH = 4000;

export interface NoteItem {
  id: string;
  run: string;
  target: NoteTarget;
  /** the event's seq (event), the finding's seq (finding); null for a run note */
  seq: number | null;
  /** the finding's rule; null unless target is finding */
  rule: string | null;
  label: NoteLabel;
  text: string;
  author: string;
  createdAt: string;
}

export const findingKey = (rule: string, seq: number): string => `${rule}@${seq}`;

/** Notes whose text or label holds `q` (case-insensitive, literal). */
export function searchNotes(notes: readonly NoteItem[], q: string): NoteItem[] {
  const needle = q.trim().toLowerCase();
  if (needle === "") return [...notes];
  return notes.filter((n) => n.text.toLowerCase().includes(needle) || n.label.includes(needle) || n.author.toLowerCase().includes(needle));
}
