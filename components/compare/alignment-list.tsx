"use client";
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useEffect, useMemo, useRef } from "react";
import type { AlignedRow, Alignment, CompareEvent, RowStatus } from "@/lib/compare";
import { Segments } from "@/components/ui/safe-text";
import { labelOf } from "@/components/replay/frame-rows";

const ROW = 28;

export const STATUS_TEXT: Record<RowStatus, { sign: string; word: string }> = {
  same: { sign: "=", word: "same" },
  changed: { sign: "≠", word: "changed" },
  "only-a": { sign: "−", word: "only in a" },
  "only-b": { sign: "+", word: "only in b" },
};

type Item = { kind: "segment"; segment: number } | { kind: "row"; row: number };

/**
 * The two runs aligned, one line per pair, under a header per step. Virtualized; the
 * selected row is kept in view.
 */
export function AlignmentList({
  alignment,
  a,
  b,
  selected,
  onSelect,
  scrollNonce,
}: {
  alignment: Alignment;
  a: readonly CompareEvent[];
  b: readonly CompareEvent[];
  selected: number | null;
  onSelect: (row: number) => void;
  /** Changes when the selected row must be brought into view again. */
  scrollNonce: number;
}) {
  const items = useMemo(() => {
    const out: Item[] = [];
    let seg = -1;
    alignment.rows.forEach((r, i) => {
      if (r.segment !== seg) {
        seg = r.segment;
        out.push({ kind: "segment", segment: seg });
      }
      out.push({ kind: "row", row: i });
    });
    return out;
  }, [alignment]);
  const itemOfRow = useMemo(() => {
    const m = new Map<number, number>();
    items.forEach((it, i) => {
      if (it.kind === "row") m.set(it.row, i);
    });
    return m;
  }, [items]);
  const scroller = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({ count: items.length, getScrollElement: () => scroller.current, estimateSize: () => ROW, overscan: 12 });

  useEffect(() => {
    const at = selected === null ? undefined : itemOfRow.get(selected);
    if (at === undefined) return;
    // on the first render the list has no size yet: scroll once it is laid out
    const raf = requestAnimationFrame(() => v.scrollToIndex(at, { align: "center" }));
    return () => cancelAnimationFrame(raf);
  }, [selected, itemOfRow, v, scrollNonce]);

  return (
    <div className="cmp-list-wrap">
      <div className="cmp-list-head" aria-hidden="true">
        <div>Run a</div>
        <div style={{ textAlign: "center" }}>status</div>
        <div>Run b</div>
      </div>
      <div ref={scroller} className="cmp-list" role="listbox" aria-label="Aligned events" tabIndex={0}>
        <div style={{ height: v.getTotalSize(), position: "relative" }}>
          {v.getVirtualItems().map((vi) => {
            const it = items[vi.index];
            if (it.kind === "segment") {
              const seg = alignment.segments[it.segment];
              const la = seg.a?.label;
              const lb = seg.b?.label;
              const label = la !== undefined && lb !== undefined && la !== lb ? `${la} → ${lb}` : (la ?? lb ?? "");
              return (
                <div key={`s${it.segment}`} className="cmp-seg" role="presentation" style={{ transform: `translateY(${vi.start}px)` }}>
                  {seg.a?.stepId || seg.b?.stepId ? "step" : ""}
                  <span className="lbl">
                    <Segments text={label} />
                  </span>
                  {seg.a === null ? <span>only in run b</span> : seg.b === null ? <span>only in run a</span> : null}
                </div>
              );
            }
            const row = alignment.rows[it.row];
            return (
              <PairRow
                key={`r${it.row}`}
                index={it.row}
                row={row}
                a={row.a === null ? null : a[row.a]}
                b={row.b === null ? null : b[row.b]}
                top={vi.start}
                selected={selected === it.row}
                onSelect={onSelect}
              />
            );
          })}
        </div>
      </div>
    </div>
  );
}

function Side({ e, missing }: { e: CompareEvent | null; missing: string }) {
  if (!e) return <span className="cell missing">{missing}</span>;
  return (
    <span className="cell">
      <span className="seq">#{e.seq}</span>
      <span className="t">{e.type}</span>
      <span className="n">
        <Segments text={labelOf(e)} />
      </span>
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
  a: CompareEvent | null;
  b: CompareEvent | null;
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
