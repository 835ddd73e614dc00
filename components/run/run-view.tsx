"use client";
import dynamic from "next/dynamic";
import { useEffect, useMemo, useState } from "react";
import { useStore } from "zustand";
import type { RunIndex } from "@/lib/graph";
import type { NoteItem } from "@/lib/evidence/notes";
import type { RunDetail } from "@/lib/view/api-types";
import { findingSeqs, firstMostSevere } from "@/lib/view/findings";
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
import { TimesRecordedProvider } from "./times-recorded";

// recharts is only needed when the Charts tab is opened
const StepCharts = dynamic(() => import("@/components/charts/step-charts").then((m) => m.StepCharts), {
  ssr: false,
  loading: () => <div className="skeleton">Loading charts…</div>,
});

export interface RunPowers {
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
}) {
  const [store] = useState(() => createRunViewStore(initialSeq, initialSeq === null && initialDetail.live, initialTab));
  // warm the layout worker while the summary is on its way
  useEffect(() => void getLayoutWorker(), []);
  return (
    <RunStoreContext.Provider value={store}>
      <RunViewBody runId={runId} initialDetail={initialDetail} initialNotes={notes} may={may} hold={hold} />
    </RunStoreContext.Provider>
  );
}

function RunViewBody({
  runId,
  initialDetail,
  initialNotes,
  may,
  hold,
}: {
  runId: string;
  initialDetail: RunDetail;
  initialNotes: NoteItem[];
  may: RunPowers;
  hold: { held: boolean; canSet: boolean };
}) {
  const detail = useRunDetail(runId, initialDetail).data ?? initialDetail;
  const [notes, setNotes] = useState(initialNotes);
  const marks = useNoteMarks(notes);
  const indexQuery = useRunIndex(runId);
  const index = indexQuery.data;
  const liveMode = useLiveRun(runId, true);
  const api = useRunStoreApi();
  const graphReady = useRunStore((s) => s.graphReady);
  const timelineReady = useRunStore((s) => s.timelineReady);
  const sideTab = useRunStore((s) => s.sideTab);
  const bottomTab = useRunStore((s) => s.bottomTab);

  const seqsWithFindings = useMemo(() => findingSeqs(detail.findings), [detail.findings]);
  useInitialSelection(index, detail.findings);
  useFollowTail(index);
  useUrlSync();
  useRunKeyboard(index, seqsWithFindings);
  useSearchMatches(runId, index);

  const findingsBySeq = useMemo(() => {
    const m = new Map<number, number>();
    for (const f of detail.findings) m.set(f.seq, (m.get(f.seq) ?? 0) + 1);
    return m;
  }, [detail.findings]);

  const ready = !!index && graphReady && timelineReady;

  return (
    <TimesRecordedProvider value={detail.timesRecorded !== false}>
      <div className="run-view" data-testid="run-view" data-ready={ready ? "true" : "false"} data-live={liveMode}>
        <RunHeader
          detail={detail}
          index={index}
          liveMode={liveMode}
          actions={
            <>
              <LegalHold runId={runId} initiallyHeld={hold.held} canSet={hold.canSet} />
              {may.export ? <ExportBundle runId={runId} /> : null}
            </>
          }
        />
        <ShortcutsDialog page="run" />
        <div className="run-body">
          <aside className="side" aria-label="Events and findings">
            <div className="tabs" role="tablist" aria-label="Side panel">
              <button type="button" role="tab" aria-selected={sideTab === "events"} onClick={() => api.getState().setSideTab("events")}>
                Events {index ? `(${index.n.toLocaleString("en-US")})` : ""}
              </button>
              <button type="button" role="tab" aria-selected={sideTab === "findings"} onClick={() => api.getState().setSideTab("findings")}>
                Findings ({detail.findings.length})
              </button>
              <button type="button" role="tab" aria-selected={sideTab === "notes"} onClick={() => api.getState().setSideTab("notes")}>
                Notes ({notes.length})
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
                onAdded={(n) => setNotes((all) => [...all, n])}
              />
            )}
          </aside>
          <section className="center" aria-label="Graph and timeline">
            {index ? (
              <GraphPane index={index} findings={findingsBySeq} notes={marks.bySeq} />
            ) : (
              <div className="graph-pane skeleton">Loading graph…</div>
            )}
            <div className="bottom-pane">
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
              </div>
              {index ? (
                bottomTab === "timeline" ? (
                  <Timeline index={index} findings={findingsBySeq} notes={marks.bySeq} />
                ) : (
                  <StepCharts index={index} />
                )
              ) : null}
            </div>
          </section>
          <aside className="inspector" aria-label="Selected event">
            <Inspector runId={runId} detail={detail} index={index} />
          </aside>
        </div>
      </div>
    </TimesRecordedProvider>
  );
}

/**
 * No `?event=`: start where it went wrong, at the first of the most severe findings (an
 * error before a warning); without findings at the first event; following a live run, at
 * the newest.
 */
function useInitialSelection(index: RunIndex | undefined, findings: RunDetail["findings"]) {
  const api = useRunStoreApi();
  useEffect(() => {
    if (!index || index.n === 0) return;
    const s = api.getState();
    if (s.selectedSeq !== null) return;
    if (s.follow) return s.select(index.summary.seq[index.n - 1], { follow: true });
    const opening = firstMostSevere(findings);
    s.select(opening && index.rowOfSeq(opening.seq) >= 0 ? opening.seq : index.summary.seq[0]);
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
