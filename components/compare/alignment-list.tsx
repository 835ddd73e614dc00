"use client";
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useEffect, useMemo, useRef } from "react";
import type { AlignedRow, CompareEvent, RowStatus } from "@/lib/compare";
import { rowAt, type CompactAlignment } from "@/lib/compare/compact";
import { Segments } from "@/components/ui/safe-text";
import { labelOf } from "@/components/replay/frame-rows";
import { useEventBlocks } from "./use-event-blocks";

const ROW = 28;

export const STATUS_TEXT: Record<RowStatus, { sign: string; word: string }> = {
  same: { sign: "=", word: "same" },
  changed: { sign: "≠", word: "changed" },
  "only-a": { sign: "−", word: "only in a" },
  "only-b": { sign: "+", word: "only in b" },
};

/**
 * The list's items as one column: a row index (≥ 0), or -(segment + 1) for a step's
 * header; and each row's item. Typed arrays: a million rows as objects would be the
 * largest thing the page holds.
 */
function itemsOf(al: CompactAlignment): { items: Int32Array; itemOfRow: Int32Array } {
  let segments = 0;
  for (let i = 0; i < al.rowCount; i++) if (i === 0 || al.segment[i] !== al.segment[i - 1]) segments++;
  const items = new Int32Array(al.rowCount + segments);
  const itemOfRow = new Int32Array(al.rowCount);
  let n = 0;
  for (let i = 0; i < al.rowCount; i++) {
    if (i === 0 || al.segment[i] !== al.segment[i - 1]) items[n++] = -(al.segment[i] + 1);
    itemOfRow[i] = n;
    items[n++] = i;
  }
  return { items, itemOfRow };
}

/** What a side of a row shows before its event's block arrived: seq and type. */
interface SideEvent {
  seq: number;
  type: string;
  event: CompareEvent | null;
}

/**
 * The two runs aligned, one line per pair, under a header per step. Virtualized; the
 * selected row is kept in view. The events of the rows on screen are fetched by block
 * (use-event-blocks.ts) for their labels.
 */
export function AlignmentList({
  alignment,
  runA,
  runB,
  selected,
  onSelect,
  scrollNonce,
}: {
  alignment: CompactAlignment;
  runA: string;
  runB: string;
  selected: number | null;
  onSelect: (row: number) => void;
  /** Changes when the selected row must be brought into view again. */
  scrollNonce: number;
}) {
  const { items, itemOfRow } = useMemo(() => itemsOf(alignment), [alignment]);
  const scroller = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({ count: items.length, getScrollElement: () => scroller.current, estimateSize: () => ROW, overscan: 12 });

  useEffect(() => {
    const at = selected === null || selected >= itemOfRow.length ? undefined : itemOfRow[selected];
    if (at === undefined) return;
    // on the first render the list has no size yet: scroll once it is laid out
    const raf = requestAnimationFrame(() => v.scrollToIndex(at, { align: "center" }));
    return () => cancelAnimationFrame(raf);
  }, [selected, itemOfRow, v, scrollNonce]);

  const visible = v.getVirtualItems();
  const onScreen = visible.map((vi) => items[vi.index]).filter((r) => r >= 0);
  const wantA = useMemo(() => onScreen.map((r) => alignment.rowA[r]), [onScreen.join(","), alignment]); // eslint-disable-line react-hooks/exhaustive-deps
  const wantB = useMemo(() => onScreen.map((r) => alignment.rowB[r]), [onScreen.join(","), alignment]); // eslint-disable-line react-hooks/exhaustive-deps
  const eventA = useEventBlocks(runA, alignment.seqA, wantA);
  const eventB = useEventBlocks(runB, alignment.seqB, wantB);
  const side = (index: number, which: "a" | "b"): SideEvent | null => {
    if (index < 0) return null;
    const seqs = which === "a" ? alignment.seqA : alignment.seqB;
    const types = which === "a" ? alignment.typeA : alignment.typeB;
    return { seq: seqs[index], type: alignment.typeNames[types[index]], event: (which === "a" ? eventA : eventB)(index) };
  };

  return (
    <div className="cmp-list-wrap">
      <div className="cmp-list-head" aria-hidden="true">
        <div>Run a</div>
        <div style={{ textAlign: "center" }}>status</div>
        <div>Run b</div>
      </div>
      <div ref={scroller} className="cmp-list" role="listbox" aria-label="Aligned events" tabIndex={0}>
        <div style={{ height: v.getTotalSize(), position: "relative" }}>
          {visible.map((vi) => {
            const it = items[vi.index];
            if (it < 0) {
              const segment = -it - 1;
              const seg = alignment.segments[segment];
              const la = seg.a?.label;
              const lb = seg.b?.label;
              const label = la !== undefined && lb !== undefined && la !== lb ? `${la} → ${lb}` : (la ?? lb ?? "");
              return (
                <div key={`s${segment}`} className="cmp-seg" role="presentation" style={{ transform: `translateY(${vi.start}px)` }}>
                  {seg.a?.stepId || seg.b?.stepId ? "step" : ""}
                  <span className="lbl">
                    <Segments text={label} />
                  </span>
                  {seg.a === null ? <span>only in run b</span> : seg.b === null ? <span>only in run a</span> : null}
                </div>
              );
            }
            const row = rowAt(alignment, it);
            return (
              <PairRow
                key={`r${it}`}
                index={it}
                row={row}
                a={side(alignment.rowA[it], "a")}
                b={side(alignment.rowB[it], "b")}
                top={vi.start}
                selected={selected === it}
                onSelect={onSelect}
              />
            );
          })}
        </div>
      </div>
    </div>
  );
}

function Side({ e, missing }: { e: SideEvent | null; missing: string }) {
  if (!e) return <span className="cell missing">{missing}</span>;
  return (
    <span className="cell">
      <span className="seq">#{e.seq}</span>
      <span className="t">{e.type}</span>
      <span className="n">{e.event ? <Segments text={labelOf(e.event)} /> : null}</span>
    </span>
  );
}

const PairRow = memo(function PairRow({
  index,
  row,
  a,
  b,
  top,
  selected,
  onSelect,
}: {
  index: number;
  row: AlignedRow;
  a: SideEvent | null;
  b: SideEvent | null;
  top: number;
  selected: boolean;
  onSelect: (row: number) => void;
}) {
  const st = STATUS_TEXT[row.status];
  const name = `${a ? `a #${a.seq} ${a.type}` : "not in a"} ${st.word} ${b ? `b #${b.seq} ${b.type}` : "not in b"}`;
  return (
    <div
      role="option"
      aria-selected={selected}
      aria-label={name}
      className="cmp-row"
      style={{ transform: `translateY(${top}px)` }}
      onClick={() => onSelect(index)}
      title={row.reason ?? undefined}
    >
      <Side e={a} missing="(not in run a)" />
      <span className={`st ${row.status}`}>
        {st.sign} {row.status === "same" ? "" : st.word}
      </span>
      <Side e={b} missing="(not in run b)" />
    </div>
  );
});
