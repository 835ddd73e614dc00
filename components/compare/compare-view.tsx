"use client";
import { useSearchParams } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { compareVersions, type Divergence } from "@/lib/compare";
import { ROW_STATUSES, rowAt, type CompactAlignment } from "@/lib/compare/compact";
import { actionFor, adjacentMark, isTyping } from "@/lib/view/keymap";
import { ShortcutsButton, ShortcutsDialog } from "@/components/ui/shortcuts-dialog";
import { AlignmentList, STATUS_TEXT } from "./alignment-list";
import { PairDetail } from "./pair-detail";
import { RunCard } from "./run-card";
import { useRunDetail } from "@/components/data/use-run-detail";
import { useAlignment } from "./use-alignment";
import { useEventBlocks } from "./use-event-blocks";
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

/** The selected pair as `ea` / `eb` (its seq in run a / run b), so a link reopens at it. */
function pairParam(sp: URLSearchParams, name: "ea" | "eb"): number | null {
  const v = sp.get(name);
  return v !== null && /^\d{1,9}$/.test(v) ? Number(v) : null;
}

function writePair(aSeq: number | null, bSeq: number | null) {
  const p = new URLSearchParams(window.location.search);
  p.delete("ea");
  p.delete("eb");
  if (aSeq !== null) p.set("ea", String(aSeq));
  if (bSeq !== null) p.set("eb", String(bSeq));
  window.history.replaceState(window.history.state, "", `?${p.toString()}`);
}

/** The row whose events have these seqs (either may be null for an only-a / only-b row). */
function rowOfPair(al: CompactAlignment, ea: number | null, eb: number | null) {
  if (ea === null && eb === null) return null;
  const seqOf = (index: number, seqs: Float64Array) => (index < 0 ? null : seqs[index]);
  for (let i = 0; i < al.rowCount; i++) if (seqOf(al.rowA[i], al.seqA) === ea && seqOf(al.rowB[i], al.seqB) === eb) return i;
  // a link naming one side only, or a pair the alignment no longer makes: the row of that event
  for (let i = 0; i < al.rowCount; i++)
    if ((ea !== null && seqOf(al.rowA[i], al.seqA) === ea) || (eb !== null && seqOf(al.rowB[i], al.seqB) === eb)) return i;
  return null;
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
  const { a, b, ea, eb } = useMemo(() => {
    const p = new URLSearchParams(query);
    return { a: param(p, "a"), b: param(p, "b"), ea: pairParam(p, "ea"), eb: pairParam(p, "eb") };
  }, [query]);
  const detailA = useRunDetail(a);
  const detailB = useRunDetail(b);
  const aligned = useAlignment(a, b);
  const alignment = aligned.alignment;
  const versions = useMemo(
    () => (detailA.data && detailB.data ? compareVersions(detailA.data.header, detailB.data.header) : null),
    [detailA.data, detailB.data],
  );
  // `nonce` makes "Show it" scroll again to a row that is already selected
  const [picked, setPicked] = useState<{ key: string; row: number; nonce: number } | null>(null);
  const key = `${a}|${b}`;
  const linked = useMemo(
    () => (alignment ? rowOfPair(alignment, ea, eb) : null),
    // the link is read when the alignment arrives; later selections write it
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [alignment],
  );
  // what the runs did differently first; the first difference of any kind (the input text,
  // usually) is shown beside it
  const first: Divergence | null = alignment?.firstMeaningful ?? alignment?.firstDivergence ?? null;
  const anyFirst = alignment?.firstDivergence ?? null;
  const selected = picked && picked.key === key ? picked.row : (linked ?? first?.row ?? null);
  const ready = alignment !== null && versions !== null;
  const row = alignment && selected !== null && selected < alignment.rowCount ? rowAt(alignment, selected) : null;
  // the selected pair's whole events (its diff and payloads), fetched when it is selected
  const pairA = useEventBlocks(
    a,
    alignment?.seqA ?? null,
    useMemo(() => [row?.a ?? -1], [row?.a]),
  );
  const pairB = useEventBlocks(
    b,
    alignment?.seqB ?? null,
    useMemo(() => [row?.b ?? -1], [row?.b]),
  );
  const workflow = detailA.data?.workflow ?? null;
  const pick = (r: number, nonce: number) => {
    setPicked({ key, row: r, nonce });
    if (alignment && r < alignment.rowCount)
      writePair(
        alignment.rowA[r] < 0 ? null : alignment.seqA[alignment.rowA[r]],
        alignment.rowB[r] < 0 ? null : alignment.seqB[alignment.rowB[r]],
      );
  };
  useCompareKeyboard(alignment, selected, (r) => pick(r, Date.now()));

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
      <div className="cmp-runs">
        <RunCard side="a" id={a} detail={detailA.data} error={errorText(detailA.error)} other={b} onPick={(id) => navigate(id, b)} />
        <RunCard
          side="b"
          id={b}
          detail={detailB.data}
          error={errorText(detailB.error)}
          workflow={workflow}
          other={a}
          onPick={(id) => navigate(a, id)}
        />
      </div>
      {aligned.phase === "aligning" ? (
        <div role="status" style={{ color: "var(--muted)" }}>
          <span data-testid="aligning">Aligning…</span>
          {aligned.progress ? (
            <span data-testid="align-progress">
              {" "}
              (events read: {aligned.progress.a.toLocaleString("en-US")} of run a, {aligned.progress.b.toLocaleString("en-US")} of run b)
            </span>
          ) : null}
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
      {alignment?.approximate ? <ApproximateNotice message={alignment.approximate.message} /> : null}
      {alignment ? (
        <section
          className={`cmp-card first${first ? "" : " none"}`}
          aria-label="First divergence"
          data-testid="first-divergence"
          data-a-seq={first?.aSeq ?? ""}
          data-b-seq={first?.bSeq ?? ""}
          data-kind={alignment.firstMeaningful?.kind ?? ""}
        >
          {first ? (
            <>
              <h2>
                {alignment.firstMeaningful ? "First divergence" : "First difference"}:{" "}
                {first.aSeq !== null ? `a #${first.aSeq}` : "not in a"} {STATUS_TEXT[first.status].sign}{" "}
                {first.bSeq !== null ? `b #${first.bSeq}` : "not in b"}
                <span style={{ fontWeight: 400 }}>
                  in {first.segment === "(run)" ? "the run itself" : `step “${first.segment}”`}: {first.reason}
                </span>
                <button type="button" onClick={() => pick(first.row, Date.now())}>
                  Show it
                </button>
              </h2>
              {!alignment.firstMeaningful ? (
                <div className="cmp-first-any" data-testid="only-text">
                  The runs did the same things: they differ only in what they read and wrote (input, context, results, state).
                </div>
              ) : anyFirst && anyFirst.row !== first.row ? (
                <div className="cmp-first-any" data-testid="first-any">
                  Before it they differ only in what they read and wrote, from {anyFirst.aSeq !== null ? `a #${anyFirst.aSeq}` : "not in a"}{" "}
                  / {anyFirst.bSeq !== null ? `b #${anyFirst.bSeq}` : "not in b"} on ({anyFirst.reason}).{" "}
                  <button type="button" className="linklike" onClick={() => pick(anyFirst.row, Date.now())}>
                    Show the first difference
                  </button>
                </div>
              ) : null}
            </>
          ) : (
            <h2>No divergence: every event of both runs pairs with an equal one.</h2>
          )}
          <div className="cmp-counts" aria-label="Row counts">
            <span>
              <b>{alignment.rowCount.toLocaleString("en-US")}</b> aligned rows
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
      {alignment && a !== null && b !== null ? (
        <div className="cmp-body">
          <AlignmentList
            alignment={alignment}
            runA={a}
            runB={b}
            selected={selected}
            onSelect={(r) => pick(r, 0)}
            scrollNonce={picked?.nonce ?? 0}
          />
          <div className="cmp-right">
            {versions ? <VersionsTable rows={versions} /> : null}
            <PairDetail
              row={row}
              a={row && row.a !== null ? pairA(row.a) : null}
              b={row && row.b !== null ? pairB(row.b) : null}
              loading={row !== null && ((row.a !== null && !pairA(row.a)) || (row.b !== null && !pairB(row.b)))}
            />
          </div>
        </div>
      ) : versions ? (
        <VersionsTable rows={versions} />
      ) : null}
    </div>
  );
}

/**
 * Two long runs that differ in too many places are aligned by a banded search
 * (lib/compare/lcs.ts), not exactly: the page says so above the alignment, in the words
 * of the alignment itself.
 */
function ApproximateNotice({ message }: { message: string }) {
  const [head, ...rest] = message.split(": ");
  return (
    <div className="cmp-approx" role="note" data-testid="approximate-alignment">
      <strong>{rest.length > 0 ? `${head}:` : message}</strong> {rest.join(": ")}
    </div>
  );
}

/** The compare page's keys (lib/view/keymap.ts): j / k pairs, n / N differences, Home / End. */
function useCompareKeyboard(alignment: CompactAlignment | null, selected: number | null, select: (row: number) => void) {
  const latest = useRef({ alignment, selected, select });
  useEffect(() => {
    latest.current = { alignment, selected, select };
  });
  const differing = useMemo(() => {
    if (!alignment) return new Int32Array(0);
    const same = ROW_STATUSES.indexOf("same");
    let n = 0;
    for (let i = 0; i < alignment.rowCount; i++) if (alignment.status[i] !== same) n++;
    const rows = new Int32Array(n);
    n = 0;
    for (let i = 0; i < alignment.rowCount; i++) if (alignment.status[i] !== same) rows[n++] = i;
    return rows;
  }, [alignment]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const { alignment: al, selected: at, select: go } = latest.current;
      if (!al || al.rowCount === 0 || e.defaultPrevented || isTyping(e.target)) return;
      const action = actionFor("compare", e);
      const cur = at ?? -1;
      const last = al.rowCount - 1;
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
