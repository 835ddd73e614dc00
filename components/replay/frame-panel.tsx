"use client";
import { memo, useDeferredValue, useMemo } from "react";
import { diffLineText, jsonDiff, jsonText } from "@/lib/compare/json-diff";
import { JsonTree } from "@/components/ui/json-tree";
import { Segments } from "@/components/ui/safe-text";
import { labelOf } from "./frame-rows";
import { ModeBadge } from "@/components/live/mode-badge";
import { frameMode } from "@/lib/live/mode";
import { ProvenanceBadge } from "./provenance-badge";
import type { FrameView, ReplayResult } from "./protocol";
import { useReplayStore } from "./replay-store";

const NOTE_CLASS = { recorded: "", simulated: "", blocked: "blocked", stale: "stale" } as const;

/**
 * The frame under the playhead: what the replay shows there and why (its provenance and
 * note), what was recorded, the divergences and fork changes at its seq, and the run
 * state after it (with, in a fork, how it differs from the recorded run's).
 */
export function FramePanel() {
  // rendered at a lower priority than the playhead: a frame arriving mid-drag never blocks the next input
  const view = useDeferredValue(useReplayStore((s) => s.view));
  const cursor = useReplayStore((s) => s.cursor);
  const result = useReplayStore((s) => s.result);
  const ready = view !== null && view.index === cursor;
  return (
    <div
      data-testid="frame-panel"
      data-frame={view?.index}
      data-seq={view?.frame.seq}
      data-provenance={view?.frame.provenance}
      data-mode={view ? frameMode(view.frame.recorded ?? view.frame.event) : undefined}
      data-ready={ready ? "true" : "false"}
    >
      <FrameBody view={view} result={result} />
    </div>
  );
}

const FrameBody = memo(function FrameBody({ view, result }: { view: FrameView | null; result: ReplayResult | null }) {
  const frame = view?.frame ?? null;
  const divergences = useMemo(() => (frame && result ? result.divergences.filter((d) => d.seq === frame.seq) : []), [frame, result]);
  const changes = useMemo(() => (frame && result ? result.changes.filter((c) => c.seq === frame.seq) : []), [frame, result]);
  const eventDiff = useMemo(
    () =>
      frame && frame.recorded && frame.recorded !== frame.event ? jsonDiff(frame.recorded.data, frame.event.data).map(diffLineText) : [],
    [frame],
  );
  const stateDiff = useMemo(
    () =>
      view && view.recordedState !== null && view.recordedStateHash !== view.frame.stateHash
        ? jsonDiff(view.recordedState, view.state).map(diffLineText)
        : [],
    [view],
  );

  if (!view || !frame) {
    return (
      <div className="rp-panel">
        <div className="rp-loading">Loading the frame…</div>
      </div>
    );
  }
  const staleAt = frame.stale ? /seq (\d+)/.exec(frame.note ?? "")?.[1] : undefined;
  const mode = frameMode(frame.recorded ?? frame.event);
  const branch = result?.branch ?? false;
  return (
    <div className="rp-panel">
      <h2>
        <span>
          #{frame.seq} {frame.event.type}
        </span>
        <span className="n" style={{ fontWeight: 400, color: "var(--muted)" }}>
          <Segments text={labelOf(frame.event)} />
        </span>
        <ProvenanceBadge provenance={frame.provenance} />
        {frame.substituted ? <span className="sub-mark">recorded result substituted</span> : null}
        {branch || mode !== "recorded" ? <ModeBadge mode={mode} /> : null}
      </h2>
      <div className="meta">
        <span>
          frame {(view.index + 1).toLocaleString("en-US")} of {(result?.frames.count ?? 0).toLocaleString("en-US")}
        </span>
        {frame.event.step ? <span>step {frame.event.step}</span> : null}
        <span>{frame.event.ts}</span>
      </div>

      {frame.stale ? (
        <div className="rp-note stale" role="note">
          <span className="what">Stale: not what would have happened.</span> This event was recorded, but it comes after the fork&apos;s
          change
          {staleAt ? ` at seq ${staleAt}` : ""}; the fork&apos;s run would have gone differently from there. It is shown only for reference.
        </div>
      ) : null}
      {frame.note && !frame.stale ? (
        <div className={`rp-note ${NOTE_CLASS[frame.provenance]}`}>
          <span className="what">
            {frame.provenance === "blocked" ? "Blocked: " : frame.provenance === "simulated" ? "Simulated: " : ""}
          </span>
          <Segments text={frame.note} />
        </div>
      ) : null}
      {frame.stale && frame.note ? (
        <div className="hint" style={{ color: "var(--muted)", fontSize: 12 }}>
          {frame.note}
        </div>
      ) : null}

      {divergences.map((d, i) => (
        <div key={`d${i}`} className="rp-note divergence" data-testid="frame-divergence">
          <span className="what">
            Divergence ({d.kind}){d.meaningful ? "" : `, follows from seq ${d.causedBy}`}:
          </span>{" "}
          <Segments text={d.reason} />
          <div className="rp-hash">
            replay derived {jsonText(d.expected, 120)} · journal recorded {jsonText(d.actual, 120)}
          </div>
        </div>
      ))}
      {changes.map((c, i) => (
        <div key={`c${i}`} className="rp-note change" data-testid="frame-change">
          <span className="what">
            Fork change ({c.kind}){c.hypothetical ? ", hypothetical: it assumes the run went as recorded after an earlier change" : ""}:
          </span>{" "}
          <Segments text={c.reason} />
          <div className="rp-hash">
            recorded {jsonText(c.recorded, 160)} → fork {jsonText(c.forked, 160)}
          </div>
        </div>
      ))}

      <section aria-label="Event">
        <h3>
          {frame.recorded === null
            ? "Inserted by the replay"
            : frame.recorded !== frame.event
              ? "The replay's version of the event"
              : frame.stale
                ? "Event as recorded (stale)"
                : "Event"}
        </h3>
        <JsonTree value={frame.event.data} label="Replayed event data" openDepth={2} />
      </section>
      {frame.recorded && frame.recorded !== frame.event ? (
        <section aria-label="Recorded event">
          <h3>What the run recorded here</h3>
          <pre className="rp-diff" aria-label="Changes from the recorded event">
            {eventDiff.length > 0 ? eventDiff.join("\n") : "(no difference in data)"}
          </pre>
          <JsonTree value={frame.recorded.data} label="Recorded event data" openDepth={1} />
        </section>
      ) : null}

      <section aria-label="Run state">
        <h3>Run state after this frame</h3>
        <div className="rp-hash">{frame.stateHash}</div>
        {view.recordedState !== null ? (
          stateDiff.length > 0 ? (
            <>
              <div className="rp-note change">The fork&apos;s state differs from the recorded run&apos;s here:</div>
              <pre className="rp-diff" aria-label="State difference from the recorded run">
                {stateDiff.join("\n")}
              </pre>
            </>
          ) : (
            <div className="hint" style={{ color: "var(--muted)", fontSize: 12.5 }}>
              Same state as the recorded run here.
            </div>
          )
        ) : null}
        <JsonTree value={view.state} label="Run state" openDepth={1} />
      </section>
    </div>
  );
});
