import "server-only";
/** The tool and call id of the recorded tool call at `seq` (or of its result), as lib/live's plan reads them. */
import type { JournalEvent } from "../../journal/types";
import { previewReexecute } from "../../live/plan";

export function previewToolOf(events: readonly JournalEvent[], seq: number): { tool: string; call: string } {
  const p = previewReexecute({
    run: "",
    seq,
    events,
    branchReconciles: [],
    executor: { id: "", environment: "", name: "", url: "" },
    earlierExecutions: 0,
  });
  return { tool: p.tool, call: p.call };
}
