"use client";
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useEffect, useMemo, useRef } from "react";
import type { Divergence, ForkChange } from "@/lib/replay";
import { KindBadge } from "@/components/ui/kind-badge";
import { Segments } from "@/components/ui/safe-text";
import type { FrameRow } from "./protocol";
import { ModeBadge } from "@/components/live/mode-badge";
import { ProvenanceBadge } from "./provenance-badge";
import { useFrameRows } from "./use-frame-rows";
import { useReplayStore, useReplayStoreApi } from "./replay-store";

const ROW = 30;

function groupBySeq<T extends { seq: number }>(items: readonly T[]): Map<number, T[]> {
  const m = new Map<number, T[]>();
  for (const it of items) {
    const list = m.get(it.seq);
    if (list) list.push(it);
    else m.set(it.seq, [it]);
  }
  return m;
}

/**
 * The recorded run and the replay side by side, one row per replay frame: a frame the
 * replay inserted has an empty recorded cell, so both columns stay aligned by construction
 * and scroll as one. Virtualized: only the rows on screen exist in the DOM.
 */
export function FrameGrid() {
  const api = useReplayStoreApi();
  const result = useReplayStore((s) => s.result);
  const frameOfSeq = useReplayStore((s) => s.frameOfSeq);
  const count = result?.frames.count ?? 0;
  const divergences = useMemo(() => groupBySeq(result?.divergences ?? []), [result]);
  const changes = useMemo(() => groupBySeq(result?.changes ?? []), [result]);
  // a branch run (a live action's) declares each frame's mode; a run the agent recorded alone has one mode only
  const showMode = result?.branch ?? false;
  const scroller = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({ count, getScrollElement: () => scroller.current, estimateSize: () => ROW, overscan: 10 });
  const items = v.getVirtualItems();
  const rowAt = useFrameRows(items[0]?.index ?? 0, items[items.length - 1]?.index ?? 0);

  useEffect(() => {
    // Rows have one fixed height, so the row's offset is known without asking the layout:
    // the scroll is written once per animation frame (the virtualizer's scrollToIndex reads
    // the layout back on every call, which stalls a fast drag).
    let raf = 0;
    let from = -10;
    let to = api.getState().cursor;
    // the viewport's height and offset are kept from events, never read back in the loop
    const el = scroller.current;
    let height = el?.clientHeight ?? 0;
    const resize = new ResizeObserver((entries) => {
      height = entries[0]?.contentRect.height ?? height;
    });
    if (el) resize.observe(el);
    const apply = () => {
      raf = 0;
      if (!el || to < 0 || to >= count) return;
      // the virtualizer already follows the scroll offset; reading it here costs no layout
      let scrollTop = v.scrollOffset ?? 0;
      const top = to * ROW;
      if (top >= scrollTop && top + ROW <= scrollTop + height) return;
      // a step keeps the list still until the row leaves it; a jump puts the row mid-list
      const jump = Math.abs(to - from) > 2;
      scrollTop = Math.max(0, jump ? top - (height - ROW) / 2 : top < scrollTop ? top : top + ROW - height);
      el.scrollTop = scrollTop;
    };
    const follow = (cursor: number, prev: number) => {
      if (raf === 0) from = prev;
      to = cursor;
      if (raf === 0) raf = requestAnimationFrame(apply);
    };
    follow(to, -10);
    const unsubscribe = api.subscribe((s, prev) => {
      if (s.cursor !== prev.cursor) follow(s.cursor, prev.cursor);
    });
    return () => {
      unsubscribe();
      if (raf !== 0) cancelAnimationFrame(raf);
      resize.disconnect();
    };
  }, [api, count, v]);

  return (
    <div className="rp-grid-wrap">
      <div className="rp-grid-head" aria-hidden="true">
        <div style={{ textAlign: "right" }}>seq</div>
        <div>Recorded run</div>
        <div>Replay (simulated)</div>
      </div>
      <div ref={scroller} className="rp-grid" role="listbox" aria-label="Frames: recorded run and replay" tabIndex={0}>
        <div style={{ height: v.getTotalSize(), position: "relative" }}>
          {items.map((item) => {
            const row = rowAt(item.index);
            if (!row) return <PendingRow key={item.index} index={item.index} seq={result?.frames.seq[item.index] ?? 0} top={item.start} />;
            return (
              <FrameRowView
                key={item.index}
                row={row}
                top={item.start}
                divergences={row.recorded !== null ? divergences.get(row.seq) : undefined}
                changes={frameOfSeq.get(row.seq) === row.index ? changes.get(row.seq) : undefined}
                showMode={showMode}
              />
            );
          })}
        </div>
      </div>
    </div>
  );
}

/** A row whose frame the worker is still rebuilding: its seq, and the place it will fill. */
function PendingRow({ index, seq, top }: { index: number; seq: number; top: number }) {
  const selected = useReplayStore((s) => s.cursor === index);
  return (
    <div role="option" aria-selected={selected} aria-busy="true" className="rp-row pending" style={{ transform: `translateY(${top}px)` }}>
      <span className="seq">#{seq}</span>
      <span className="rp-cell recorded">…</span>
      <span className="rp-cell replay">…</span>
    </div>
  );
}

const FrameRowView = memo(function FrameRowView({
  row,
  top,
  divergences,
  changes,
  showMode,
}: {
  row: FrameRow;
  top: number;
  divergences: Divergence[] | undefined;
  changes: ForkChange[] | undefined;
  showMode: boolean;
}) {
  const api = useReplayStoreApi();
  const selected = useReplayStore((s) => s.cursor === row.index);
  const rec = row.recorded;
  const label = `#${row.seq}${showMode ? ` [${row.mode}]` : ""} ${rec ? `${rec.type} ${rec.label}` : "(inserted by the replay)"} | replay ${row.provenance}${row.stale && row.provenance !== "stale" ? " (stale)" : ""}: ${row.type} ${row.label}${divergences ? ` | ${divergences.length} divergence${divergences.length > 1 ? "s" : ""}` : ""}${changes ? ` | ${changes.length} fork change${changes.length > 1 ? "s" : ""}` : ""}`;
  return (
    <div
      role="option"
      aria-selected={selected}
      aria-label={label}
      className="rp-row"
      style={{ transform: `translateY(${top}px)` }}
      onClick={() => {
        const s = api.getState();
        s.setPlaying(false);
        s.setCursor(row.index);
        // a row is "show me this frame"; the fork form keeps its place, as it may be picking the seq
        if (s.tab !== "fork") s.setTab("frame");
      }}
    >
      <span className="seq">#{row.seq}</span>
      {rec ? (
        <span className="rp-cell recorded">
          {showMode ? <ModeBadge mode={row.mode} /> : null}
          <KindBadge kind={rec.kind} />
          <span className="t">{rec.type}</span>
          <span className="n">
            <Segments text={rec.label} />
          </span>
          {divergences?.map((d, i) => (
            <span key={i} className={`div-badge${d.meaningful ? "" : " follow"}`} title={d.reason}>
              ≠ {d.kind}
            </span>
          ))}
        </span>
      ) : (
        <span className="rp-cell empty">inserted by the replay</span>
      )}
      <span className={`rp-cell replay ${row.provenance}${row.stale ? " stale" : ""}`} title={row.note ?? undefined}>
        <ProvenanceBadge provenance={row.provenance} />
        {row.stale && row.provenance !== "stale" ? <span className="sub-mark">stale</span> : null}
        {row.substituted ? <span className="sub-mark">substituted</span> : null}
        {rec === null || rec.kind !== row.kind ? <KindBadge kind={row.kind} /> : null}
        <span className="t">{row.type}</span>
        <span className="n">
          <Segments text={row.label} />
        </span>
        {changes?.map((c, i) => (
          <span key={i} className={`chg-badge${c.hypothetical ? " hypo" : ""}`} title={c.reason}>
            Δ {c.kind}
          </span>
        ))}
      </span>
    </div>
  );
});
