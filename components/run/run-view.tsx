"use client";
import dynamic from "next/dynamic";
import { useEffect, useMemo, useState, type CSSProperties } from "react";
import { useStore } from "zustand";
import type { RunIndex } from "@/lib/graph";
import type { NoteItem } from "@/lib/evidence/notes";
import type { BundleProvenance } from "@/lib/evidence/opened";
import { chainVerdict } from "@/lib/evidence/chain-verdict";
import { BundleBanner } from "@/components/evidence/bundle-banner";
import { PayloadsDroppedBanner, PayloadsDroppedContext, usePayloadsDropped } from "./payloads-dropped";
import type { RunDetail } from "@/lib/view/api-types";
import { findingSeqs, markSeqs, openingSeq } from "@/lib/view/findings";
import { relationsOf } from "@/lib/view/relations";
import { ShortcutsDialog } from "@/components/ui/shortcuts-dialog";
import { EventList } from "./event-list";
import { FindingsList } from "./findings-list";
import { LegalHold } from "./legal-hold";
import { ExportBundle, NotesPanel, useNoteMarks } from "./notes";
import { RunHeader } from "./run-header";
import { createRunViewStore, RunStoreContext, useRunStore, useRunStoreApi, type SideTab } from "./run-store";
import { useRunKeyboard } from "./use-run-keyboard";
import { useRunDetail } from "@/components/data/use-run-detail";
import { useLiveRun, useRunIndex } from "./use-run-data";
import { useSearchMatches } from "./use-search";
import { GraphPane } from "@/components/graph/graph-pane";
import { getLayoutWorker } from "@/components/graph/layout-worker";
import { Timeline } from "@/components/timeline/timeline";
import { Inspector } from "@/components/inspector/inspector";
import { LiveProvider, type LivePowers } from "@/components/live/live-context";
import { BranchBar, type Branches } from "@/components/live/branch-bar";
import { ResumePanel } from "@/components/live/resume-panel";
import { TimesRecordedProvider } from "./times-recorded";
import { PANE_BOUNDS, usePaneSizes, type PaneName } from "./pane-sizes";
import { Splitter } from "@/components/ui/splitter";

/** The graph keeps at least this width when a side pane is dragged wider. */
const GRAPH_MIN = 400;
const COLLAPSED_W = 30;

// recharts is only needed when the Charts tab is opened
const StepCharts = dynamic(() => import("@/components/charts/step-charts").then((m) => m.StepCharts), {
  ssr: false,
  loading: () => <div className="skeleton">Loading charts…</div>,
});

interface RunPowers {
  note: boolean;
  export: boolean;
}

export function RunView({
  runId,
  initialDetail,
  initialSeq,
  initialTab,
  notes = [],
  may = { note: false, export: false },
  hold = { held: false, canSet: false },
  bundle = null,
  payloadsDropped = null,
  live = { offer: false, signedIn: true },
  branches = { of: null, children: [] },
}: {
  runId: string;
  initialDetail: RunDetail;
  initialSeq: number | null;
  /** the side panel a link asked for (`?tab=`) */
  initialTab?: SideTab;
  /** legal hold: whether the run is held, and whether this viewer (an admin) may change it */
  hold?: { held: boolean; canSet: boolean };
  notes?: NoteItem[];
  may?: RunPowers;
  /** opened from an audit bundle: read-only, with its provenance on a banner */
  bundle?: BundleProvenance | null;
  /** when retention dropped the run's payloads (ISO time) */
  payloadsDropped?: string | null;
  /** live actions this viewer may be offered (the server decides again on each) */
  live?: Omit<LivePowers, "runId">;
  /** branch runs made by live actions: the original this one branches from, and its own branches */
  branches?: Branches;
}) {
  const [store] = useState(() => createRunViewStore(initialSeq, initialSeq === null && initialDetail.live, initialTab));
  // warm the layout worker while the summary is on its way
  useEffect(() => void getLayoutWorker(), []);
  return (
    <RunStoreContext.Provider value={store}>
      <PayloadsDroppedContext.Provider value={payloadsDropped}>
        <LiveProvider value={{ ...live, runId }}>
          <RunViewBody
            runId={runId}
            initialDetail={initialDetail}
            initialNotes={notes}
            may={may}
            hold={hold}
            bundle={bundle}
            branches={branches}
          />
        </LiveProvider>
      </PayloadsDroppedContext.Provider>
    </RunStoreContext.Provider>
  );
}

function RunViewBody({
  runId,
  initialDetail,
  initialNotes,
  may,
  hold,
  bundle,
  branches,
}: {
  runId: string;
  initialDetail: RunDetail;
  initialNotes: NoteItem[];
  may: RunPowers;
  hold: { held: boolean; canSet: boolean };
  bundle: BundleProvenance | null;
  branches: Branches;
}) {
  const detail = useRunDetail(runId, initialDetail).data ?? initialDetail;
  const dropped = usePayloadsDropped();
  const [notes, setNotes] = useState(initialNotes);
  const marks = useNoteMarks(notes);
  const indexQuery = useRunIndex(runId);
  const index = indexQuery.data;
  // a finished run changes no more: no stream for it (a live run's stream closes at its run.end)
  const liveMode = useLiveRun(runId, detail.live);
  const api = useRunStoreApi();
  const graphReady = useRunStore((s) => s.graphReady);
  const timelineReady = useRunStore((s) => s.timelineReady);
  const sideTab = useRunStore((s) => s.sideTab);
  const bottomTab = useRunStore((s) => s.bottomTab);

  const seqsWithFindings = useMemo(() => findingSeqs(detail.findings), [detail.findings]);
  // `n` / `N` step through failures and findings alike
  const stepMarks = useMemo(() => (index ? markSeqs(seqsWithFindings, index) : seqsWithFindings), [index, seqsWithFindings]);
  useInitialSelection(index, detail.findings);
  useFollowTail(index);
  useUrlSync();
  useRunKeyboard(index, stepMarks);
  useSearchMatches(runId, index);

  const findingsBySeq = useMemo(() => {
    const m = new Map<number, number>();
    for (const f of detail.findings) m.set(f.seq, (m.get(f.seq) ?? 0) + 1);
    return m;
  }, [detail.findings]);

  const relations = useMemo(() => relationsOf(detail.findings), [detail.findings]);
  // one verdict for the header's chain chip and a bundle's banner
  const chain = chainVerdict(detail, bundle);
  const panes = usePanes();
  // a collapsed timeline draws nothing, so it has nothing to wait for
  const ready = !!index && graphReady && (timelineReady || panes.collapsed.bottom);

  return (
    <TimesRecordedProvider value={detail.timesRecorded !== false}>
      <div
        className={["run-view", bundle ? "from-bundle" : "", dropped ? "payloads-dropped" : ""].filter(Boolean).join(" ")}
        data-testid="run-view"
        data-ready={ready ? "true" : "false"}
        data-live={liveMode}
        data-source={bundle ? "bundle" : undefined}
      >
        {bundle ? <BundleBanner bundle={bundle} chain={chain} /> : null}
        {dropped ? <PayloadsDroppedBanner at={dropped} /> : null}
        <RunHeader
          detail={detail}
          index={index}
          liveMode={liveMode}
          chain={chain}
          actions={
            <>
              <LegalHold runId={runId} initiallyHeld={hold.held} canSet={hold.canSet} />
              {may.export ? <ExportBundle runId={runId} /> : null}
            </>
          }
        />
        {/* the resume plan shares the branch bar, for a failed or cancelled run only (others get no empty bar) */}
        <BranchBar branches={branches}>
          {!bundle && (detail.status === "failed" || detail.status === "cancelled") ? (
            <ResumePanel runId={runId} status={detail.status} />
          ) : null}
        </BranchBar>
        <ShortcutsDialog page="run" />
        <div className="run-body" style={panes.style} data-collapsed={panes.collapsedNames}>
          <aside className="side" aria-label="Events and findings">
            {panes.collapsed.side ? (
              <button type="button" className="pane-expand" aria-label="Show the events panel" onClick={() => panes.toggle("side")}>
                »
              </button>
            ) : (
              <>
                <div className="tabs" role="tablist" aria-label="Side panel">
                  <button type="button" role="tab" aria-selected={sideTab === "events"} onClick={() => api.getState().setSideTab("events")}>
                    Events {index ? `(${index.n.toLocaleString("en-US")})` : ""}
                  </button>
                  <button
                    type="button"
                    role="tab"
                    aria-selected={sideTab === "findings"}
                    onClick={() => api.getState().setSideTab("findings")}
                  >
                    Findings ({detail.findings.length})
                  </button>
                  <button type="button" role="tab" aria-selected={sideTab === "notes"} onClick={() => api.getState().setSideTab("notes")}>
                    Notes ({notes.length})
                  </button>
                  <button type="button" className="pane-collapse" aria-label="Hide the events panel" onClick={() => panes.toggle("side")}>
                    «
                  </button>
                </div>
                {sideTab === "events" ? (
                  index ? (
                    <EventList index={index} findings={findingsBySeq} notes={marks.bySeq} live={detail.live} />
                  ) : (
                    <div className="skeleton">
                      {indexQuery.isError ? `Could not load events: ${indexQuery.error.message}` : "Loading events…"}
                    </div>
                  )
                ) : sideTab === "findings" ? (
                  <FindingsList runId={runId} findings={detail.findings} labels={marks.labels} notes={notes} />
                ) : (
                  <NotesPanel
                    runId={runId}
                    notes={notes}
                    findings={detail.findings}
                    canWrite={may.note}
                    readOnly={bundle ? "Read-only: these notes came with the bundle. Write notes on the original run." : undefined}
                    onAdded={(n) => setNotes((all) => [...all, n])}
                  />
                )}
              </>
            )}
            <PaneSplitter pane="side" />
          </aside>
          <section className="center" aria-label="Graph and timeline">
            {index ? (
              <GraphPane index={index} findings={findingsBySeq} relations={relations} notes={marks.bySeq} />
            ) : (
              <div className="graph-pane skeleton">Loading graph…</div>
            )}
            <div className="bottom-pane">
              <PaneSplitter pane="bottom" />
              <div className="tabs" role="tablist" aria-label="Bottom panel">
                <button
                  type="button"
                  role="tab"
                  aria-selected={bottomTab === "timeline"}
                  onClick={() => api.getState().setBottomTab("timeline")}
                >
                  Timeline
                </button>
                <button
                  type="button"
                  role="tab"
                  aria-selected={bottomTab === "charts"}
                  onClick={() => api.getState().setBottomTab("charts")}
                >
                  Charts
                </button>
                <button
                  type="button"
                  className="pane-collapse"
                  aria-label={panes.collapsed.bottom ? "Show the timeline panel" : "Hide the timeline panel"}
                  onClick={() => panes.toggle("bottom")}
                >
                  {panes.collapsed.bottom ? "▴" : "▾"}
                </button>
              </div>
              {!index || panes.collapsed.bottom ? null : bottomTab === "timeline" ? (
                <Timeline index={index} findings={findingsBySeq} notes={marks.bySeq} />
              ) : (
                <StepCharts index={index} />
              )}
            </div>
          </section>
          <aside className="inspector" aria-label="Selected event">
            <PaneSplitter pane="inspector" />
            {panes.collapsed.inspector ? (
              <button type="button" className="pane-expand" aria-label="Show the inspector" onClick={() => panes.toggle("inspector")}>
                «
              </button>
            ) : (
              <Inspector runId={runId} detail={detail} index={index} onCollapse={() => panes.toggle("inspector")} />
            )}
          </aside>
        </div>
      </div>
    </TimesRecordedProvider>
  );
}

/**
 * No `?event=`: start where it went wrong (lib/view/findings `openingSeq`: the first error
 * finding, else the first failed event, else the first warning); when nothing went wrong
 * at the first event; following a live run, at the newest.
 */
function useInitialSelection(index: RunIndex | undefined, findings: RunDetail["findings"]) {
  const api = useRunStoreApi();
  useEffect(() => {
    if (!index || index.n === 0) return;
    const s = api.getState();
    if (s.selectedSeq !== null) return;
    if (s.follow) return s.select(index.summary.seq[index.n - 1], { follow: true });
    const failedRow = index.failed.indexOf(1);
    const opening = openingSeq(findings, failedRow >= 0 ? index.summary.seq[failedRow] : null);
    s.select(opening !== null && index.rowOfSeq(opening) >= 0 ? opening : index.summary.seq[0]);
  }, [index, api, findings]);
}

/** Following a live run: each new last event becomes the selection. */
function useFollowTail(index: RunIndex | undefined) {
  const api = useRunStoreApi();
  const follow = useStore(api, (s) => s.follow);
  useEffect(() => {
    if (!index || index.n === 0 || !follow) return;
    const last = index.summary.seq[index.n - 1];
    if (api.getState().selectedSeq !== last) api.getState().select(last, { follow: true });
  }, [index, follow, api]);
}

/** `?event=SEQ` follows the selection, so a reload or a shared link restores it. */
function useUrlSync() {
  const seq = useRunStore((s) => s.selectedSeq);
  useEffect(() => {
    if (seq === null) return;
    const t = setTimeout(() => {
      const url = new URL(window.location.href);
      if (url.searchParams.get("event") === String(seq)) return;
      url.searchParams.set("event", String(seq));
      window.history.replaceState(window.history.state, "", url);
    }, 150);
    return () => clearTimeout(t);
  }, [seq]);
}

const PANE_LABEL: Record<PaneName, string> = {
  side: "Resize the events panel",
  inspector: "Resize the inspector",
  bottom: "Resize the timeline",
};
const DEFAULT_PX: Record<PaneName, number> = { side: 300, inspector: 440, bottom: 205 };

/**
 * Resizable, collapsible panes (sizes in pane-sizes.ts, remembered): the grid's widths and
 * the bottom pane's height as CSS variables, and collapse toggles.
 */
function usePanes() {
  const size = usePaneSizes((s) => s.size);
  const collapsed = usePaneSizes((s) => s.collapsed);
  // the remembered sizes are read after mount, so the server's HTML matches the first render
  useEffect(() => void usePaneSizes.persist.rehydrate(), []);
  const toggle = (pane: PaneName) => usePaneSizes.getState().setCollapsed(pane, !usePaneSizes.getState().collapsed[pane]);
  const px = (pane: PaneName) => (collapsed[pane] ? `${COLLAPSED_W}px` : size[pane] !== null ? `${size[pane]}px` : undefined);
  const style = {
    ...(px("side") ? { "--side-w": px("side") } : {}),
    ...(px("inspector") ? { "--insp-w": px("inspector") } : {}),
    ...(collapsed.bottom ? { "--bottom-h": "31px" } : size.bottom !== null ? { "--bottom-h": `${size.bottom}px` } : {}),
  } as CSSProperties;
  const collapsedNames = (Object.keys(collapsed) as PaneName[]).filter((p) => collapsed[p]).join(" ") || undefined;
  return { style, collapsed, collapsedNames, toggle };
}

/** The handle of one pane; a side pane dragged wider stops where the graph would fall under GRAPH_MIN. */
function PaneSplitter({ pane }: { pane: PaneName }) {
  const size = usePaneSizes((s) => s.size[pane]);
  const collapsed = usePaneSizes((s) => s.collapsed[pane]);
  const resize = (px: number, handle: HTMLElement) => {
    let max = PANE_BOUNDS[pane].max;
    const body = handle.closest(".run-body");
    if (pane !== "bottom" && body) {
      const other = body.querySelector(pane === "side" ? ".inspector" : ".side")?.getBoundingClientRect().width ?? 0;
      max = Math.min(max, body.getBoundingClientRect().width - other - GRAPH_MIN);
    }
    usePaneSizes.getState().setSize(pane, Math.min(px, Math.max(PANE_BOUNDS[pane].min, max)));
  };
  return (
    <Splitter
      label={PANE_LABEL[pane]}
      orientation={pane === "bottom" ? "horizontal" : "vertical"}
      size={size ?? DEFAULT_PX[pane]}
      min={PANE_BOUNDS[pane].min}
      max={PANE_BOUNDS[pane].max}
      // the side pane grows to the right, the inspector to the left, the timeline upwards
      sign={pane === "side" ? 1 : -1}
      collapsed={collapsed}
      onResize={resize}
      onToggle={() => usePaneSizes.getState().setCollapsed(pane, !collapsed)}
      onReset={() => usePaneSizes.getState().setSize(pane, null)}
    />
  );
}
