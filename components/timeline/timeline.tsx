"use client";
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { RunIndex } from "@/lib/graph";
import { formatDuration, formatOffset } from "@/lib/view/format";
import { clampViewport, panViewport, revealTime, zoomViewport, type Viewport } from "@/lib/view/timeline";
import { idleText, LABEL_W, layoutLanes, lodOf, pickRow } from "@/lib/view/timeline-layout";
import { idleWarp, NO_WARP, warpRunIndex } from "@/lib/view/time-warp";
import { useIsDark } from "@/components/theme/theme-toggle";
import { useRunStore, useRunStoreApi } from "@/components/run/run-store";
import { useTimesRecorded } from "@/components/run/times-recorded";
import { paintTimeline, readColors, type Colors } from "./paint";

const NO_NOTES: ReadonlyMap<number, number> = new Map();

/**
 * Steps, model calls, tool calls and events on a time axis, drawn on a canvas: each frame
 * visits only what is in view (binary search on time) and at most one mark per pixel and
 * lane, so 100,000 events draw in a few ms. Wheel zooms, drag pans, click selects.
 * The viewport lives in a ref and is drawn directly; React only holds the selection.
 */
export function Timeline({
  index: recorded,
  findings,
  notes = NO_NOTES,
}: {
  index: RunIndex;
  findings: ReadonlyMap<number, number>;
  /** reviewers' notes per seq, marked in their own lane */
  notes?: ReadonlyMap<number, number>;
}) {
  const api = useRunStoreApi();
  const selectedSeq = useRunStore((s) => s.selectedSeq);
  const dark = useIsDark();
  const timed = useTimesRecorded();
  // long idle waits drawn short (lib/view/time-warp.ts): everything below draws on `index`,
  // the run on the warped axis; labels read the recorded times
  const warp = useMemo(() => (timed ? idleWarp(recorded.summary.tsMs, recorded.byTime) : NO_WARP), [recorded, timed]);
  const index = useMemo(() => warpRunIndex(recorded, warp), [recorded, warp]);
  const warpRef = useRef(warp);
  const canvas = useRef<HTMLCanvasElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const bounds = useRef<Viewport>({ startMs: index.startMs, endMs: index.endMs });
  const view = useRef<Viewport>({ startMs: index.startMs, endMs: index.endMs });
  const colors = useRef<Colors | null>(null);
  const frame = useRef(0);
  const [hover, setHover] = useState<{ x: number; text: string } | null>(null);
  const findingRows = useRef<Array<{ row: number; count: number }>>([]);
  const noteRows = useRef<number[]>([]);
  const selectedRef = useRef<number>(-1);

  const indexRef = useRef(index);
  const lanes = useMemo(() => layoutLanes(index), [index]);
  const lanesRef = useRef(lanes);
  const lod = useMemo(() => lodOf(index, lanes), [index, lanes]);
  const lodRef = useRef(lod);
  const paintRef = useRef<() => void>(() => {});

  useEffect(() => {
    const rows: Array<{ row: number; count: number }> = [];
    for (const [seq, count] of findings) {
      const r = index.rowOfSeq(seq);
      if (r >= 0) rows.push({ row: r, count });
    }
    findingRows.current = rows;
    const marked: number[] = [];
    for (const seq of notes.keys()) {
      const r = index.rowOfSeq(seq);
      if (r >= 0) marked.push(r);
    }
    noteRows.current = marked;
  }, [findings, notes, index]);

  // draw is stable and paints from refs on the next frame, so handlers installed once stay correct
  const draw = useCallback(() => {
    cancelAnimationFrame(frame.current);
    frame.current = requestAnimationFrame(() => paintRef.current());
  }, []);

  const paint = () => {
    const c = canvas.current;
    if (!c) return;
    const painted = paintTimeline(c, {
      index: indexRef.current,
      lanes: lanesRef.current,
      lod: lodRef.current,
      view: view.current,
      warp: warpRef.current,
      timed,
      colors: (colors.current ??= readColors()),
      findingRows: findingRows.current,
      noteRows: noteRows.current,
      selectedRow: selectedRef.current,
    });
    if (painted && !api.getState().timelineReady) api.getState().setTimelineReady(true);
  };

  // the latest render's values, in place before the effects below draw
  useLayoutEffect(() => {
    indexRef.current = index;
    warpRef.current = warp;
    lanesRef.current = lanes;
    lodRef.current = lod;
    selectedRef.current = selectedSeq === null ? -1 : index.rowOfSeq(selectedSeq);
    paintRef.current = paint;
  });

  // the data changed (a live run grew): extend the bounds, keep the user's zoom
  useEffect(() => {
    const old = bounds.current;
    bounds.current = { startMs: index.startMs, endMs: index.endMs };
    const wasFull = view.current.startMs <= old.startMs && view.current.endMs >= old.endMs;
    view.current = wasFull ? { startMs: index.startMs, endMs: index.endMs } : clampViewport(view.current, bounds.current);
    draw();
  }, [index, draw]);

  // keep the selection visible
  useEffect(() => {
    const row = selectedSeq === null ? -1 : index.rowOfSeq(selectedSeq);
    if (row >= 0) view.current = revealTime(view.current, index.summary.tsMs[row], bounds.current);
    draw();
  }, [selectedSeq, index, draw]);

  useEffect(() => {
    colors.current = null;
    draw();
  }, [dark, findings, notes, draw]);

  useEffect(() => {
    const el = box.current;
    const c = canvas.current;
    if (!el || !c) return;
    const ro = new ResizeObserver(() => draw());
    ro.observe(el);
    // wheel must be non-passive to keep the page from scrolling
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const rect = c.getBoundingClientRect();
      const frac = Math.min(1, Math.max(0, (e.clientX - rect.left - LABEL_W) / Math.max(1, rect.width - LABEL_W)));
      const v = view.current;
      if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
        const d = (e.shiftKey ? e.deltaY : e.deltaX) / Math.max(1, rect.width - LABEL_W);
        view.current = panViewport(v, d * (v.endMs - v.startMs), bounds.current);
      } else {
        view.current = zoomViewport(v, Math.exp(e.deltaY * 0.002), frac, bounds.current);
      }
      draw();
    };
    c.addEventListener("wheel", onWheel, { passive: false });
    return () => {
      ro.disconnect();
      c.removeEventListener("wheel", onWheel);
      cancelAnimationFrame(frame.current);
    };
  }, [draw]);

  const drag = useRef<{ x: number; start: Viewport; moved: boolean } | null>(null);

  const pick = (clientX: number, clientY: number): number => {
    const rect = canvas.current!.getBoundingClientRect();
    return pickRow(index, lanes, view.current, clientX - rect.left, clientY - rect.top, rect.width);
  };

  const zoomBy = (f: number) => {
    view.current = zoomViewport(view.current, f, 0.5, bounds.current);
    draw();
  };

  return (
    <div className="timeline" ref={box} data-selected-seq={selectedSeq ?? undefined}>
      <canvas
        ref={canvas}
        style={{ minHeight: lanes.height }}
        role="img"
        data-idle-gaps={warp.gaps.length}
        aria-label={`Timeline of ${index.n.toLocaleString("en-US")} events ${timed ? `over ${formatDuration(recorded.endMs - recorded.startMs)}` : "in recorded order (the source has no times)"}${warp.gaps.length > 0 ? ` (${idleText(warp)} not drawn to scale)` : ""}${notes.size > 0 ? `, ${notes.size} with reviewers' notes` : ""}: wheel to zoom, drag to pan, click to select`}
        onPointerDown={(e) => {
          (e.target as HTMLElement).setPointerCapture(e.pointerId);
          drag.current = { x: e.clientX, start: view.current, moved: false };
        }}
        onPointerMove={(e) => {
          const d = drag.current;
          const c = canvas.current!;
          if (d) {
            const dx = e.clientX - d.x;
            if (Math.abs(dx) > 3) d.moved = true;
            if (d.moved) {
              const plotW = Math.max(1, c.clientWidth - LABEL_W);
              view.current = panViewport(d.start, (-dx / plotW) * (d.start.endMs - d.start.startMs), bounds.current);
              draw();
            }
            return;
          }
          const row = pick(e.clientX, e.clientY);
          const rect = c.getBoundingClientRect();
          if (row >= 0) {
            const s = recorded.summary;
            setHover({
              x: Math.min(e.clientX - rect.left + 10, (box.current?.clientWidth ?? 400) - 260),
              text: `#${s.seq[row]} ${s.type[row]}${s.name[row] ? ` ${s.name[row]}` : ""}${timed ? ` ${formatOffset(s.tsMs[row] - recorded.startMs)}` : ""}`,
            });
          } else setHover(null);
        }}
        onPointerLeave={() => setHover(null)}
        onPointerUp={(e) => {
          const d = drag.current;
          drag.current = null;
          if (d && !d.moved) {
            const row = pick(e.clientX, e.clientY);
            if (row >= 0) api.getState().select(index.summary.seq[row]);
          }
        }}
      />
      {hover ? (
        <div
          style={{
            position: "absolute",
            left: hover.x,
            bottom: 4,
            background: "var(--bg)",
            border: "1px solid var(--border)",
            borderRadius: 4,
            padding: "1px 6px",
            fontSize: 11,
            pointerEvents: "none",
            whiteSpace: "nowrap",
          }}
        >
          {hover.text}
        </div>
      ) : null}
      <div className="timeline-tools">
        <button type="button" aria-label="Zoom in" onClick={() => zoomBy(0.5)}>
          +
        </button>
        <button type="button" aria-label="Zoom out" onClick={() => zoomBy(2)}>
          −
        </button>
        <button
          type="button"
          onClick={() => {
            view.current = { ...bounds.current };
            draw();
          }}
        >
          Fit
        </button>
      </div>
    </div>
  );
}
