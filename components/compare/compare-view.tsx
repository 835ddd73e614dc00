"use client";
import { useSearchParams } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { compareVersions, type Alignment } from "@/lib/compare";
import { actionFor, adjacentMark, isTyping } from "@/lib/view/keymap";
import { ShortcutsButton, ShortcutsDialog } from "@/components/ui/shortcuts-dialog";
import { AlignmentList, STATUS_TEXT } from "./alignment-list";
import { PairDetail } from "./pair-detail";
import { RunCard } from "./run-card";
import { useRunDetail } from "@/components/data/use-run-detail";
import { useAlignment } from "./use-alignment";
import { useRunEvents } from "./use-compare-data";
import { VersionsTable } from "./versions-table";

const ID = /^[A-Za-z0-9._:-]{1,128}$/;

function param(sp: URLSearchParams, name: string): string | null {
  const v = sp.get(name);
  return v !== null && ID.test(v) ? v : null;
}

function navigate(a: string | null, b: string | null) {
  const p = new URLSearchParams();
  if (a) p.set("a", a);
  if (b) p.set("b", b);
  window.history.pushState(null, "", `?${p.toString()}`);
}

function errorText(e: unknown): string | null {
  return e ? (e instanceof Error ? e.message : String(e)) : null;
}

/**
 * Run-to-run diff: two runs of one workflow aligned by step and call (lib/compare), the
 * first divergence, the versions that differ, and for any pair what changed, as text.
 */
export function CompareView() {
  const sp = useSearchParams();
  const query = sp.toString();
  const { a, b } = useMemo(() => {
    const p = new URLSearchParams(query);
    return { a: param(p, "a"), b: param(p, "b") };
  }, [query]);
  const detailA = useRunDetail(a);
  const detailB = useRunDetail(b);
  const eventsA = useRunEvents(a);
  const eventsB = useRunEvents(b);
  const aligned = useAlignment(eventsA.data, eventsB.data);
  const alignment = aligned.alignment;
  const versions = useMemo(
    () => (detailA.data && detailB.data ? compareVersions(detailA.data.header, detailB.data.header) : null),
    [detailA.data, detailB.data],
  );
  // `nonce` makes "Show it" scroll again to a row that is already selected
  const [picked, setPicked] = useState<{ key: string; row: number; nonce: number } | null>(null);
  const key = `${a}|${b}`;
  const selected = picked && picked.key === key ? picked.row : (alignment?.firstDivergence?.row ?? null);
  const first = alignment?.firstDivergence ?? null;
  const ready = alignment !== null && versions !== null;
  const row = alignment && selected !== null ? alignment.rows[selected] : null;
  const workflow = detailA.data?.workflow ?? null;
  useCompareKeyboard(alignment, selected, (r) => setPicked({ key, row: r, nonce: Date.now() }));
  const [inputA, setInputA] = useState(a ?? "");
  const [inputB, setInputB] = useState(b ?? "");

  return (
    <div
      className="cmp-page"
      data-testid="compare-view"
      data-ready={ready ? "true" : "false"}
      data-alignment={aligned.phase}
      data-a={a ?? ""}
      data-b={b ?? ""}
    >
      <div className="cmp-head">
        <h1>Compare two runs</h1>
        <span style={{ color: "var(--muted)", fontSize: 13 }}>
          aligned by step and by call; ids, timestamps, hashes and latencies are not compared
        </span>
        <ShortcutsDialog page="compare" />
        <ShortcutsButton />
        {a !== null && b !== null ? (
          <button type="button" onClick={() => navigate(b, a)} style={{ marginLeft: "auto" }}>
            Swap a ↔ b
          </button>
        ) : null}
      </div>
      {a === null ? (
        <form
          className="cmp-pick"
          aria-label="Runs to compare"
          onSubmit={(e) => {
            e.preventDefault();
            navigate(ID.test(inputA) ? inputA : null, ID.test(inputB) ? inputB : null);
          }}
        >
          <label>
            Run a (id)
            <input type="text" value={inputA} onChange={(e) => setInputA(e.target.value)} />
          </label>
          <label>
            Run b (id, or pick it next)
            <input type="text" value={inputB} onChange={(e) => setInputB(e.target.value)} />
          </label>
          <button type="submit" className="primary">
            Compare
          </button>
        </form>
      ) : null}
      <div className="cmp-runs">
        <RunCard side="a" id={a} detail={detailA.data} error={errorText(detailA.error ?? eventsA.error)} />
        <RunCard
          side="b"
          id={b}
          detail={detailB.data}
          error={errorText(detailB.error ?? eventsB.error)}
          workflow={workflow}
          other={a}
          onPick={(id) => navigate(a, id)}
        />
      </div>
      {a !== null && b !== null && aligned.phase === "idle" && !detailA.error && !detailB.error && !eventsA.error && !eventsB.error ? (
        <div role="status" style={{ color: "var(--muted)" }}>
          Loading both runs…
        </div>
      ) : null}
      {aligned.phase === "aligning" ? (
        <div role="status" data-testid="aligning" style={{ color: "var(--muted)" }}>
          Aligning…
        </div>
      ) : null}
      {aligned.phase === "error" ? (
        <div className="warnc" role="alert">
          The runs could not be aligned: {aligned.error}
        </div>
      ) : null}
      {detailA.data && detailB.data && detailA.data.workflow !== detailB.data.workflow ? (
        <div className="warnc" role="note">
          These runs are of different workflows ({detailA.data.workflow ?? "none"} and {detailB.data.workflow ?? "none"}): the alignment
          still works, but expect most of it to differ.
        </div>
      ) : null}
      {alignment ? (
        <section
          className={`cmp-card first${first ? "" : " none"}`}
          aria-label="First divergence"
          data-testid="first-divergence"
          data-a-seq={first?.aSeq ?? ""}
          data-b-seq={first?.bSeq ?? ""}
        >
          {first ? (
            <>
              <h2>
                First divergence: {first.aSeq !== null ? `a #${first.aSeq}` : "not in a"} {STATUS_TEXT[first.status].sign}{" "}
                {first.bSeq !== null ? `b #${first.bSeq}` : "not in b"}
                <span style={{ fontWeight: 400 }}>
                  in {first.segment === "(run)" ? "the run itself" : `step “${first.segment}”`}: {first.reason}
                </span>
                <button type="button" onClick={() => setPicked({ key, row: first.row, nonce: Date.now() })}>
                  Show it
                </button>
              </h2>
            </>
          ) : (
            <h2>No divergence: every event of both runs pairs with an equal one.</h2>
          )}
          <div className="cmp-counts" aria-label="Row counts">
            <span>
              <b>{alignment.rows.length.toLocaleString("en-US")}</b> aligned rows
            </span>
            <span>
              <b>{alignment.counts.same.toLocaleString("en-US")}</b> same
            </span>
            <span>
              <b>{alignment.counts.changed.toLocaleString("en-US")}</b> changed
            </span>
            <span>
              <b>{alignment.counts["only-a"].toLocaleString("en-US")}</b> only in a
            </span>
            <span>
              <b>{alignment.counts["only-b"].toLocaleString("en-US")}</b> only in b
            </span>
          </div>
        </section>
      ) : null}
      {alignment && eventsA.data && eventsB.data ? (
        <div className="cmp-body">
          <AlignmentList
            alignment={alignment}
            a={eventsA.data}
            b={eventsB.data}
            selected={selected}
            onSelect={(r) => setPicked({ key, row: r, nonce: 0 })}
            scrollNonce={picked?.nonce ?? 0}
          />
          <div className="cmp-right">
            {versions ? <VersionsTable rows={versions} /> : null}
            <PairDetail
              row={row}
              a={row && row.a !== null ? eventsA.data[row.a] : null}
              b={row && row.b !== null ? eventsB.data[row.b] : null}
            />
          </div>
        </div>
      ) : versions ? (
        <VersionsTable rows={versions} />
      ) : null}
    </div>
  );
}

/** The compare page's keys (lib/view/keymap.ts): j / k pairs, n / N differences, Home / End. */
function useCompareKeyboard(alignment: Alignment | null, selected: number | null, select: (row: number) => void) {
  const latest = useRef({ alignment, selected, select });
  useEffect(() => {
    latest.current = { alignment, selected, select };
  });
  const differing = useMemo(() => {
    const rows: number[] = [];
    alignment?.rows.forEach((r, i) => void (r.status !== "same" && rows.push(i)));
    return rows;
  }, [alignment]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const { alignment: al, selected: at, select: go } = latest.current;
      if (!al || al.rows.length === 0 || e.defaultPrevented || isTyping(e.target)) return;
      const action = actionFor("compare", e);
      const cur = at ?? -1;
      const last = al.rows.length - 1;
      let to: number | null = null;
      if (action === "next") to = Math.min(last, cur + 1);
      else if (action === "previous") to = Math.max(0, cur - 1);
      else if (action === "first") to = 0;
      else if (action === "last") to = last;
      else if (action === "next-mark") to = adjacentMark(differing, cur, 1);
      else if (action === "previous-mark") to = adjacentMark(differing, cur, -1);
      else return;
      e.preventDefault();
      if (to !== null) go(to);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [differing]);
}
