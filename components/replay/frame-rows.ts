/**
 * One line per frame for the side-by-side list: what the replay shows and what the run
 * recorded there, labelled from the event's own fields. Pure; runs in the worker.
 */
import { kindOf, type EventKind } from "@/lib/graph/kind";
import type { JournalEvent } from "@/lib/journal/types";
import { str } from "@/lib/journal/values";
import type { Replay, ReplayFrame } from "@/lib/replay";
import { frameMode } from "@/lib/live/mode";
import type { FrameRow } from "./protocol";

const cut = (s: string, n = 80) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** The fields of an event a label reads (a JournalEvent, or an event as the API sends it). */
interface LabelledEvent {
  type: string;
  step?: string;
  data: { [key: string]: unknown };
}

/** A short, plain-text name for an event (rendered as text, never markup). */
export function labelOf(e: LabelledEvent): string {
  const d = e.data;
  switch (e.type) {
    case "run.start": {
      const wf = d.workflow as { name?: unknown } | undefined;
      return str(wf?.name) ?? "";
    }
    case "run.end":
      return str(d.status) ?? "";
    case "step.start":
      return str(d.name) ?? e.step ?? "";
    case "step.end":
      return str(d.status) ?? "";
    case "tool.call":
      return `${str(d.tool) ?? "?"}${d.effect === "write" ? " (write)" : ""}`;
    case "tool.result":
      return `${str(d.status) ?? "?"}${d.partial === true ? " partial" : ""}`;
    case "model.request":
      return str(d.model) ?? "";
    case "model.response": {
      const out = d.output as { text?: unknown; toolCalls?: unknown } | undefined;
      if (Array.isArray(out?.toolCalls) && out.toolCalls.length > 0) {
        const names = out.toolCalls.map((c) => str((c as { name?: unknown }).name) ?? "?");
        return `→ ${names.join(", ")}`;
      }
      return typeof out?.text === "string" ? cut(out.text, 60) : (str(d.finishReason) ?? "");
    }
    case "approval.request":
      return `${str(d.approval) ?? "?"} for ${str(d.call) ?? "?"}`;
    case "approval.decision":
      return `${str(d.approval) ?? "?"} ${str(d.decision) ?? "?"}`;
    case "state":
      return "set" in d ? "set" : Array.isArray(d.patch) ? `patch, ${d.patch.length} op${d.patch.length === 1 ? "" : "s"}` : "";
    case "checkpoint":
      return str(d.id) ?? "";
    case "decision":
      return `${str(d.action) ?? "?"}${typeof d.reason === "string" ? `: ${cut(d.reason, 60)}` : ""}`;
    case "error":
      return cut(str(d.message) ?? "");
    case "input":
      return cut(typeof d.content === "string" ? d.content : (str(d.source) ?? ""), 60);
    case "retrieval":
      return cut(str(d.query) ?? "", 60);
    case "reconcile":
      return `${str(d.call) ?? "?"} ${str(d.outcome) ?? ""}`;
    case "note":
      return cut(str(d.text) ?? "", 60);
    default:
      return "";
  }
}

/** Rows for every frame of a replay. */
export function buildRows(replay: Replay): FrameRow[] {
  const kinds = createKindTracker();
  kinds.note(replay.events);
  return replay.frames.map((f) => rowOf(f, kinds.of(f.event), f.recorded === null ? null : kinds.of(f.recorded)));
}

/**
 * The kind of each event as a run's events arrive in seq order: a tool result's kind is
 * its call's effect (call id → effect from the tool.call events noted so far), so a
 * result's kind is known without its call's event at hand. `note` the events of a chunk
 * before asking the kinds of its frames.
 */
export function createKindTracker(): { note(events: readonly JournalEvent[]): void; of(e: JournalEvent): EventKind } {
  const effects = new Map<string, string>();
  return {
    note(events) {
      for (const e of events)
        if (e.type === "tool.call" && typeof e.data.call === "string" && typeof e.data.effect === "string")
          effects.set(e.data.call, e.data.effect);
    },
    of(e) {
      const call = str(e.data.call);
      const effect =
        e.type === "tool.call"
          ? (str(e.data.effect) ?? null)
          : e.type === "tool.result" && call !== undefined
            ? (effects.get(call) ?? null)
            : null;
      return kindOf(e.type, effect);
    },
  };
}

/** One frame's row, with the kinds of its replayed and recorded events. */
export function rowOf(f: ReplayFrame, kind: EventKind, recordedKind: EventKind | null): FrameRow {
  return {
    index: f.index,
    eventIndex: f.eventIndex,
    seq: f.seq,
    type: f.event.type,
    label: labelOf(f.event),
    kind,
    provenance: f.provenance,
    stale: f.stale,
    substituted: f.substituted,
    note: f.note,
    simulated: f.recorded === null || f.event !== f.recorded,
    recorded: f.recorded === null ? null : { type: f.recorded.type, label: labelOf(f.recorded), kind: recordedKind ?? kind },
    mode: frameMode(f.recorded ?? f.event),
  };
}
