"use client";
import { useMemo } from "react";
import { comparable, diffLineText, jsonDiff, type AlignedRow, type CompareEvent } from "@/lib/compare";
import { JsonTree } from "@/components/ui/json-tree";
import { Segments } from "@/components/ui/safe-text";
import { labelOf } from "@/components/replay/frame-rows";
import { STATUS_TEXT } from "./alignment-list";

/**
 * One aligned pair: what changed between the two events (as text), and both payloads. The
 * events are fetched when the pair is selected (`loading` meanwhile).
 */
export function PairDetail({
  row,
  a,
  b,
  loading,
}: {
  row: AlignedRow | null;
  a: CompareEvent | null;
  b: CompareEvent | null;
  loading: boolean;
}) {
  const lines = useMemo(() => (a && b ? jsonDiff(comparable(a), comparable(b)).map(diffLineText) : []), [a, b]);
  const dataLines = useMemo(() => (a && b && row?.status === "changed" ? jsonDiff(a.data, b.data).map(diffLineText) : []), [a, b, row]);
  if (!row)
    return (
      <section className="cmp-detail" aria-label="Selected pair" data-testid="pair-detail">
        Select a row to see what changed.
      </section>
    );
  const st = STATUS_TEXT[row.status];
  if (loading)
    return (
      <section className="cmp-detail" aria-label="Selected pair" data-testid="pair-detail" aria-busy="true">
        <h2 style={{ fontSize: 15 }}>
          {st.sign} {st.word}
        </h2>
        <div style={{ color: "var(--muted)" }}>Loading the pair’s events…</div>
      </section>
    );
  return (
    <section
      className="cmp-detail"
      aria-label="Selected pair"
      data-testid="pair-detail"
      data-status={row.status}
      data-a-seq={a?.seq}
      data-b-seq={b?.seq}
    >
      <h2 style={{ fontSize: 15 }}>
        {st.sign} {st.word}
        {row.reason ? <span style={{ fontWeight: 400, color: "var(--muted)", marginLeft: 8 }}>{row.reason}</span> : null}
      </h2>
      <div className="pair">
        {[
          ["Run a", a],
          ["Run b", b],
        ].map(([label, e]) => {
          const ev = e as CompareEvent | null;
          return (
            <div key={label as string}>
              <h3>{label as string}</h3>
              {ev ? (
                <div>
                  <b>
                    #{ev.seq} {ev.type}
                  </b>{" "}
                  <span style={{ color: "var(--muted)" }}>
                    <Segments text={labelOf(ev)} />
                  </span>
                </div>
              ) : (
                <i style={{ color: "var(--faint)" }}>no counterpart</i>
              )}
            </div>
          );
        })}
      </div>
      {a && b ? (
        <section aria-label="What changed">
          <h3>What changed (a → b)</h3>
          <pre className="cmp-diff" aria-label="Diff of the compared fields">
            {lines.length > 0 ? lines.join("\n") : "(nothing: the compared fields are equal)"}
          </pre>
          {dataLines.length > lines.length ? (
            <details>
              <summary style={{ cursor: "pointer", color: "var(--muted)", fontSize: 12.5 }}>
                Every field of data, ids and timings included ({dataLines.length} lines)
              </summary>
              <pre className="cmp-diff">{dataLines.join("\n")}</pre>
            </details>
          ) : null}
        </section>
      ) : null}
      <div className="pair">
        <div>
          <h3>Run a data</h3>
          {a ? <JsonTree value={a.data} label="Run a event data" openDepth={1} /> : <i style={{ color: "var(--faint)" }}>—</i>}
        </div>
        <div>
          <h3>Run b data</h3>
          {b ? <JsonTree value={b.data} label="Run b event data" openDepth={1} /> : <i style={{ color: "var(--faint)" }}>—</i>}
        </div>
      </div>
    </section>
  );
}
