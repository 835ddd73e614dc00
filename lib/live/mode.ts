/**
 * A frame's mode on a branch run (docs/live-actions.md): recorded (the agent's event,
 * copied from the original), simulated (a what-if edit, `data.whatIf`) or live (written by
 * a live action, `data.live`). Its own file so the replay worker reads it without the
 * continuation engine.
 */
export type FrameMode = "recorded" | "simulated" | "live";

/** How a frame of a branch run came to be: copied from the original, edited by the what-if, or recorded by a live action. */
export function frameMode(e: { data: Record<string, unknown> }): FrameMode {
  if (e.data.live !== undefined && e.data.live !== null) return "live";
  if (e.data.whatIf !== undefined && e.data.whatIf !== null) return "simulated";
  return "recorded";
}
