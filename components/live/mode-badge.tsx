import type { FrameMode } from "@/lib/live/mode";

const MODE_GLYPH: Record<FrameMode, string> = { recorded: "●", simulated: "◆", live: "⚡" };
const MODE_TITLE: Record<FrameMode, string> = {
  recorded: "recorded: the agent's event, as the original run recorded it",
  simulated: "simulated: the what-if fork's edit, not what happened",
  live: "live: recorded by a live action (an executor was called)",
};

/** A frame's mode as a word with a glyph (recorded, simulated, live): colour repeats it, never carries it alone. */
export function ModeBadge({ mode }: { mode: FrameMode }) {
  return (
    <span className={`mode-badge mode-${mode}`} data-mode={mode} title={MODE_TITLE[mode]}>
      {MODE_GLYPH[mode]} {mode}
    </span>
  );
}
