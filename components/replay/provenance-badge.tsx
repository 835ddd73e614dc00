import type { Provenance } from "@/lib/replay";

const PROVENANCE_TEXT: Record<Provenance, { glyph: string; label: string; title: string }> = {
  recorded: { glyph: "●", label: "recorded", title: "Recorded: taken from the journal as it is" },
  simulated: {
    glyph: "◆",
    label: "simulated",
    title: "Simulated: derived by the replay (an override, a stop the fork triggers, the fork's own state)",
  },
  blocked: {
    glyph: "⊘",
    label: "blocked",
    title: "Blocked: a tool call the replay did not perform (every write, and calls the fork no longer allows)",
  },
  stale: { glyph: "◌", label: "stale", title: "Stale: recorded, but downstream of the fork's change; not what would have happened" },
};

/** Provenance as a word and a glyph (colour and border only repeat it). */
export function ProvenanceBadge({ provenance }: { provenance: Provenance }) {
  const p = PROVENANCE_TEXT[provenance];
  return (
    <span className={`prov prov-${provenance}`} title={p.title}>
      <span aria-hidden="true">{p.glyph}</span>
      {p.label}
    </span>
  );
}
