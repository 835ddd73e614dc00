"use client";
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useEffect, useRef } from "react";
import { EVENT_KINDS, type RunIndex } from "@/lib/graph";
import { formatDuration, formatOffset } from "@/lib/view/format";
import { KindBadge } from "@/components/ui/kind-badge";
import { useRunStore, useRunStoreApi } from "./run-store";
import { useTimesRecorded } from "./times-recorded";

const ROW = 28;

/**
 * Every event of the run (or the search matches), virtualized: only the rows on screen
 * exist in the DOM, so 100,000 events scroll like 100. The selection is kept in view.
 */
export function EventList({
  index,
  findings,
  notes = new Map(),
  live,
}: {
  index: RunIndex;
  findings: ReadonlyMap<number, number>;
  notes?: ReadonlyMap<number, number>;
  live: boolean;
}) {
  const api = useRunStoreApi();
  const selectedSeq = useRunStore((s) => s.selectedSeq);
  const search = useRunStore((s) => s.search);
  const matches = useRunStore((s) => s.matches);
  const follow = useRunStore((s) => s.follow);
  const filtered = search.trim() !== "";
  const count = filtered ? matches.length : index.n;
  const rowAt = (i: number) => (filtered ? matches[i] : i);
  const scroller = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({ count, getScrollElement: () => scroller.current, estimateSize: () => ROW, overscan: 12 });
  const selectedRow = selectedSeq === null ? -1 : index.rowOfSeq(selectedSeq);
  const selectedPos = filtered ? matches.indexOf(selectedRow) : selectedRow;

  useEffect(() => {
    if (selectedPos >= 0) v.scrollToIndex(selectedPos, { align: "auto" });
  }, [selectedPos, v, count]);

  return (
    <>
      <div
        ref={scroller}
        className="event-list"
        role="listbox"
        aria-label="Events"
        aria-activedescendant={selectedRow >= 0 ? `ev-${index.summary.seq[selectedRow]}` : undefined}
        tabIndex={0}
        onWheel={(e) => {
          // reading back through a live run stops following its tail
          if (e.deltaY < 0 && follow) api.getState().setFollow(false);
        }}
      >
        <div style={{ height: v.getTotalSize(), position: "relative" }}>
          {v.getVirtualItems().map((item) => {
            const row = rowAt(item.index);
            return (
              <EventRow
                key={row}
                index={index}
                row={row}
                top={item.start}
                selected={row === selectedRow}
                findings={findings.get(index.summary.seq[row]) ?? 0}
                notes={notes.get(index.summary.seq[row]) ?? 0}
                onSelect={(seq) => api.getState().select(seq, { follow: live && row === index.n - 1 })}
              />
            );
          })}
        </div>
      </div>
      <div className="list-footer">
        <span>{filtered ? `${matches.length.toLocaleString("en-US")} matches` : `${index.n.toLocaleString("en-US")} events`}</span>
        {live ? (
          <label style={{ display: "flex", gap: 4, alignItems: "center" }}>
            <input type="checkbox" checked={follow} onChange={(e) => api.getState().setFollow(e.target.checked)} />
            follow live tail
          </label>
        ) : (
          <span title="j or ↓ next event, k or ↑ previous, ] next step, [ previous step, / search">j/k · [ ] · /</span>
        )}
      </div>
    </>
  );
}

const EventRow = memo(function EventRow({
  index,
  row,
  top,
  selected,
  findings,
  notes,
  onSelect,
}: {
  index: RunIndex;
  row: number;
  top: number;
  selected: boolean;
  findings: number;
  notes: number;
  onSelect: (seq: number) => void;
}) {
  const timed = useTimesRecorded();
  const s = index.summary;
  const seq = s.seq[row];
  const kind = EVENT_KINDS[index.kindOfRow[row]];
  const failed = index.failed[row] === 1;
  const lat = s.latencyMs[row];
  const name = s.name[row];
  const status = s.status[row];
  return (
    <div
      id={`ev-${seq}`}
      role="option"
      aria-selected={selected}
      aria-label={`#${seq} ${s.type[row]}${name ? ` ${name}` : ""}`}
      className={`event-row${failed ? " failed" : ""}`}
      style={{ transform: `translateY(${top}px)` }}
      onClick={() => onSelect(seq)}
      title={
        [timed ? formatOffset(s.tsMs[row] - index.startMs) : "", s.step[row] ? `step ${s.step[row]}` : ""].filter(Boolean).join(" · ") ||
        undefined
      }
    >
      <span className="seq">#{seq}</span>
      <KindBadge kind={kind} />
      <span className="label">
        {s.type[row]}
        {name ? <span className="name">{name}</span> : null}
      </span>
      <span className="marks">
        {status && status !== "ok" ? <span className={failed ? "bad" : ""}>{status}</span> : null}
        {!Number.isNaN(lat) ? <span>{formatDuration(lat)}</span> : null}
        {findings > 0 ? <span className="finding-dot" title={`${findings} finding(s)`} /> : null}
        {notes > 0 ? (
          <span className="note-mark" title={`${notes} note(s)`} aria-label={`${notes} note(s)`}>
            ✎
          </span>
        ) : null}
      </span>
    </div>
  );
});
