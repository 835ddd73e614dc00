"use client";
import { useEffect, useMemo, useRef } from "react";
import { nextMark, useReplayStore, useReplayStoreApi } from "./replay-store";

const SPEEDS = [1, 2, 4, 8, 16, 32, 60];
const MAX_MARKERS = 400;

/**
 * Play, pause, step, jump between divergences, and the scrubber. The scrubber and the
 * position read-out follow the playhead by writing to the DOM (they subscribe to the
 * store), so dragging through 10,000 frames re-renders nothing here.
 */
export function ReplayControls() {
  const api = useReplayStoreApi();
  const result = useReplayStore((s) => s.result);
  const playing = useReplayStore((s) => s.playing);
  const speed = useReplayStore((s) => s.speed);
  const pauseAtMarks = useReplayStore((s) => s.pauseAtMarks);
  const marks = useReplayStore((s) => s.marks);
  const frameOfSeq = useReplayStore((s) => s.frameOfSeq);
  const range = useRef<HTMLInputElement>(null);
  const pos = useRef<HTMLSpanElement>(null);
  const n = result?.frames.count ?? 0;

  useEffect(() => {
    const write = (cursor: number) => {
      const frames = api.getState().result?.frames;
      if (range.current && range.current.value !== String(cursor)) range.current.value = String(cursor);
      if (pos.current && frames && cursor < frames.count) {
        pos.current.textContent = `frame ${(cursor + 1).toLocaleString("en-US")} of ${frames.count.toLocaleString("en-US")} · seq ${frames.seq[cursor]}`;
      }
    };
    write(api.getState().cursor);
    return api.subscribe((s, prev) => {
      if (s.cursor !== prev.cursor || s.result !== prev.result) write(s.cursor);
    });
  }, [api, result]);

  const markers = useMemo(() => {
    if (!result || n < 2) return [];
    const out: Array<{ frame: number; kind: "divergence" | "change"; label: string }> = [];
    const seen = new Set<string>();
    const add = (seq: number, kind: "divergence" | "change", what: string) => {
      const frame = frameOfSeq.get(seq);
      if (frame === undefined || seen.has(`${kind}${frame}`)) return;
      seen.add(`${kind}${frame}`);
      out.push({ frame, kind, label: `${kind === "divergence" ? "Divergence" : "Fork change"} at seq ${seq}: ${what}` });
    };
    for (const d of result.divergences) add(d.seq, "divergence", d.kind);
    for (const c of result.changes) add(c.seq, "change", c.kind);
    return out.slice(0, MAX_MARKERS);
  }, [result, frameOfSeq, n]);

  const go = (index: number | null) => {
    if (index === null) return;
    api.getState().setPlaying(false);
    api.getState().setCursor(index);
  };
  const disabled = n === 0;
  return (
    <div className="rp-controls" role="toolbar" aria-label="Playback">
      <div className="buttons">
        <button type="button" aria-label="First frame" title="First frame (Home)" disabled={disabled} onClick={() => go(0)}>
          |◀
        </button>
        <button
          type="button"
          aria-label="Previous frame"
          title="Previous frame (←)"
          disabled={disabled}
          onClick={() => go(api.getState().cursor - 1)}
        >
          ◀
        </button>
        <button
          type="button"
          className="primary"
          aria-label={playing ? "Pause" : "Play"}
          title={playing ? "Pause (space)" : "Play (space)"}
          disabled={disabled}
          onClick={() => {
            const s = api.getState();
            if (!s.playing && s.cursor >= n - 1) s.setCursor(0);
            s.setPlaying(!s.playing);
          }}
        >
          {playing ? "❚❚ Pause" : "▶ Play"}
        </button>
        <button
          type="button"
          aria-label="Next frame"
          title="Next frame (→)"
          disabled={disabled}
          onClick={() => go(api.getState().cursor + 1)}
        >
          ▶
        </button>
        <button type="button" aria-label="Last frame" title="Last frame (End)" disabled={disabled} onClick={() => go(n - 1)}>
          ▶|
        </button>
        <button
          type="button"
          title="Previous divergence or fork change (shift+N)"
          disabled={marks.length === 0}
          onClick={() => go(nextMark(marks, api.getState().cursor, -1))}
        >
          ◁ Previous divergence
        </button>
        <button
          type="button"
          title="Next divergence or fork change (N)"
          disabled={marks.length === 0}
          onClick={() => go(nextMark(marks, api.getState().cursor, 1))}
        >
          Next divergence ▷
        </button>
        <label className="inline">
          speed
          <select aria-label="Playback speed" value={speed} onChange={(e) => api.getState().setSpeed(Number(e.target.value))}>
            {SPEEDS.map((s) => (
              <option key={s} value={s}>
                {s} frames/s
              </option>
            ))}
          </select>
        </label>
        <label className="inline">
          <input type="checkbox" checked={pauseAtMarks} onChange={(e) => api.getState().setPauseAtMarks(e.target.checked)} />
          stop at divergences
        </label>
      </div>
      <div className="rp-scrub">
        <input
          ref={range}
          type="range"
          aria-label="Scrub through frames"
          min={0}
          max={Math.max(0, n - 1)}
          step={1}
          defaultValue={0}
          disabled={disabled}
          onInput={(e) => {
            const s = api.getState();
            if (s.playing) s.setPlaying(false);
            s.setCursor(Number((e.target as HTMLInputElement).value));
          }}
        />
        <div className="rp-marks">
          {markers.map((m) => (
            <button
              key={`${m.kind}${m.frame}`}
              type="button"
              tabIndex={-1}
              className={`rp-mark ${m.kind}`}
              style={{ left: `${(m.frame / (n - 1)) * 100}%` }}
              aria-label={m.label}
              title={m.label}
              onClick={() => go(m.frame)}
            />
          ))}
        </div>
      </div>
      <span className="pos" ref={pos} aria-live="off" data-testid="playhead" />
    </div>
  );
}
