"use client";
import { plural } from "@/lib/semantics";
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Fidelity, JsonValue } from "@/lib/journal/types";
import { obj } from "@/lib/journal/values";
import type { ForkSpec } from "@/lib/replay";
import type { BundleProvenance } from "@/lib/evidence/opened";
import type { RunDetail } from "@/lib/view/api-types";
import { BundleBanner } from "@/components/evidence/bundle-banner";
import { chainVerdict } from "@/lib/evidence/chain-verdict";
import { PayloadsDroppedBanner } from "@/components/run/payloads-dropped";
import { useRunDetail } from "@/components/data/use-run-detail";
import { FrameGrid } from "./frame-grid";
import { FramePanel } from "./frame-panel";
import { ForkPanel } from "./fork-panel";
import { readForkParams, writeForkParams } from "./fork-params";
import { ChangeList, DivergenceList } from "./mark-lists";
import type { ReplayResult } from "./protocol";
import { ReplayBanner } from "./replay-banner";
import { ReplayControls } from "./replay-controls";
import { createReplayStore, ReplayStoreContext, useReplayStore, useReplayStoreApi, type SideTab } from "./replay-store";
import { useCursorUrl, usePlayback, useReplayKeyboard } from "./use-playback";
import { ShortcutsButton, ShortcutsDialog } from "@/components/ui/shortcuts-dialog";
import { useReplaySession } from "./use-replay-session";

const FIDELITIES = new Set(["replayable", "trace", "partial"]);

export function ReplayView({
  runId,
  initialDetail,
  bundle = null,
  payloadsDropped = null,
  openAt,
  live = null,
}: {
  runId: string;
  initialDetail: RunDetail;
  /** opened from an audit bundle: its provenance on a banner above every frame */
  bundle?: BundleProvenance | null;
  /** when retention dropped the run's payloads: said above every frame (they replay as lengths) */
  payloadsDropped?: string | null;
  /** what the server decided this viewer may do live from a fork (null: nothing offered) */
  live?: { offer: boolean; signedIn: boolean } | null;
  /** the seq to open at when the URL names none (a replay of the agent opens at its first divergence) */
  openAt?: number;
}) {
  const [store] = useState(createReplayStore);
  return (
    <ReplayStoreContext.Provider value={store}>
      <ReplayBody runId={runId} initialDetail={initialDetail} bundle={bundle} dropped={payloadsDropped} live={live} openAt={openAt} />
    </ReplayStoreContext.Provider>
  );
}

function ReplayBody({
  runId,
  initialDetail,
  bundle,
  dropped,
  live,
  openAt,
}: {
  runId: string;
  initialDetail: RunDetail;
  bundle: BundleProvenance | null;
  dropped: string | null;
  live: { offer: boolean; signedIn: boolean } | null;
  /** the seq to open at when the URL names none (a replay of the agent opens at its first divergence) */
  openAt?: number;
}) {
  const api = useReplayStoreApi();
  const detail = useRunDetail(runId, initialDetail).data ?? initialDetail;
  const fidelity = FIDELITIES.has(detail.fidelity) ? (detail.fidelity as Fidelity) : undefined;
  const searchParams = useSearchParams();
  const query = searchParams.toString();
  const { fork, error: urlError } = useMemo(() => readForkParams(new URLSearchParams(query)), [query]);
  const initialEvent = useRef<number | null>(null);
  const firstResult = useRef(true);
  // the event the URL names when the page opens: results arrive from the worker after this runs
  useEffect(() => {
    if (!firstResult.current || initialEvent.current !== null) return;
    const raw = new URLSearchParams(query).get("event");
    if (raw !== null && /^\d{1,10}$/.test(raw)) initialEvent.current = Number(raw);
    else if (openAt !== undefined) initialEvent.current = openAt;
  }, [query, openAt]);

  const onResult = useCallback(
    (r: ReplayResult) => {
      const s = api.getState();
      const first = r.summary.fork?.firstChange;
      if (firstResult.current) {
        firstResult.current = false;
        const at = initialEvent.current === null ? undefined : s.frameOfSeq.get(initialEvent.current);
        // a shared fork link without a position opens at what the fork changes
        if (at === undefined && first) {
          s.setCursor(s.frameOfSeq.get(first.seq) ?? 0);
          s.setTab("changes");
        } else if (at !== undefined) s.setCursor(at);
        // otherwise the cursor stays where the streamed frames let the reader put it
        return;
      }
      if (first) {
        s.setCursor(s.frameOfSeq.get(first.seq) ?? s.cursor);
        s.setTab("changes");
      }
    },
    [api],
  );
  // a policy attached to the run judges the replay as it judged the findings (RunDetail.judgedBy)
  const attached = detail.judgedBy !== null && "policy" in detail.judgedBy ? detail.judgedBy.policy : undefined;
  const session = useReplaySession(runId, fidelity, attached === undefined ? null : JSON.stringify(attached), fork, onResult);
  usePlayback();
  useReplayKeyboard();
  useCursorUrl();

  const applyFork = useCallback((spec: ForkSpec | null) => {
    const params = writeForkParams(new URLSearchParams(window.location.search), spec);
    const q = params.toString();
    window.history.pushState(null, "", q ? `?${q}` : window.location.pathname);
  }, []);

  const result = useReplayStore((s) => s.result);
  const tab = useReplayStore((s) => s.tab);
  const policy = obj((attached as JsonValue | undefined) ?? detail.header.policy) ?? null;
  const forkError = urlError ?? result?.forkError ?? null;
  const tabs: Array<{ id: SideTab; label: string }> = [
    { id: "frame", label: "Frame" },
    { id: "fork", label: "Fork" },
    { id: "divergences", label: `Divergences (${result?.divergences.length ?? "…"})` },
    { id: "changes", label: `Changes (${result ? (result.summary.fork ? result.changes.length : 0) : "…"})` },
  ];

  // Nothing here reads the cursor: the parts that follow it (the ready signal, the link to
  // the run viewer) subscribe on their own, so a scrub never re-renders the whole page.
  return (
    <ReadyRoot
      phase={session.phase}
      mode={fork !== null && forkError === null ? "fork" : "reconstruct"}
      fromBundle={bundle !== null}
      dropped={dropped !== null}
    >
      <header className="rp-header">
        <h1>
          Replay · {detail.workflow ?? "(no workflow)"}
          {detail.workflowVersion ? <span className="mono">@{detail.workflowVersion}</span> : null}
        </h1>
        <span className="mono run-id">{detail.id}</span>
        <span
          className={`badge ${detail.fidelity === "replayable" ? "good" : "warn"}`}
          title="replayable: versions and state recorded; trace: imported, best-effort"
        >
          {detail.fidelity}
        </span>
        <span className="badge">{plural(detail.eventCount, "event")}</span>
        <nav className="links" aria-label="Related pages">
          <ShortcutsButton />
          <RunViewerLink runId={runId} />
          <CompareLink runId={runId} />
        </nav>
      </header>
      {bundle ? <BundleBanner bundle={bundle} chain={chainVerdict(detail, bundle)} /> : null}
      {dropped ? <PayloadsDroppedBanner at={dropped} /> : null}
      <ShortcutsDialog page="replay" />
      <ReplayBanner fork={fork} urlError={urlError} fidelity={detail.fidelity} events={detail.eventCount} />
      <ReplayControls />
      {session.phase === "error" ? (
        <div className="rp-error" role="alert">
          The replay could not run: {session.error}
        </div>
      ) : result === null ? (
        <div className="rp-loading" role="status">
          {session.phase === "fetching"
            ? `Loading ${detail.eventCount.toLocaleString("en-US")} events…`
            : "Replaying the run (in a worker)…"}
        </div>
      ) : (
        <div className="rp-body">
          <section aria-label="Recorded run and replay" style={{ display: "flex", minHeight: 0, minWidth: 0 }}>
            <FrameGrid />
          </section>
          <aside className="rp-side" aria-label="Replay details">
            <div className="tabs" role="tablist" aria-label="Replay details">
              {tabs.map((t) => (
                <button
                  key={t.id}
                  type="button"
                  role="tab"
                  aria-selected={tab === t.id}
                  aria-controls={tab === t.id ? `rp-tab-${t.id}` : undefined}
                  onClick={() => api.getState().setTab(t.id)}
                >
                  {t.label}
                </button>
              ))}
            </div>
            <div className="tab-body" role="tabpanel" id={`rp-tab-${tab}`} aria-label={tabs.find((t) => t.id === tab)?.label}>
              {tab === "frame" ? <FramePanel /> : null}
              {tab === "fork" ? (
                <ForkPanel run={runId} policy={policy} fork={fork} forkError={forkError} onApply={applyFork} live={live} />
              ) : null}
              {tab === "divergences" ? <DivergenceList /> : null}
              {tab === "changes" ? <ChangeList /> : null}
            </div>
          </aside>
        </div>
      )}
    </ReadyRoot>
  );
}

/** The page's ready signal for tests and tools: the replay is done and the frame under the playhead is shown. */
function ReadyRoot({
  phase,
  mode,
  fromBundle,
  dropped,
  children,
}: {
  phase: string;
  mode: "fork" | "reconstruct";
  fromBundle: boolean;
  dropped: boolean;
  children: React.ReactNode;
}) {
  const key = useReplayStore((s) => s.result?.key ?? "");
  const ready = useReplayStore(
    (s) => phase === "ready" && s.result !== null && s.view !== null && s.view.key === s.result.key && s.view.index === s.cursor,
  );
  return (
    <div
      className={["rp-view", fromBundle ? "from-bundle" : "", dropped ? "payloads-dropped" : ""].filter(Boolean).join(" ")}
      data-testid="replay-view"
      data-ready={ready ? "true" : "false"}
      data-phase={phase}
      data-key={key}
      data-mode={mode}
    >
      {children}
    </div>
  );
}

/** The seq of the frame under the cursor, once frames are there. */
const useCursorSeq = () =>
  useReplayStore((s) => (s.result && s.cursor < s.result.frames.count ? s.result.frames.seq[s.cursor] : undefined));

function CompareLink({ runId }: { runId: string }) {
  const seq = useCursorSeq();
  return (
    <Link href={`/compare?a=${encodeURIComponent(runId)}${seq !== undefined ? `&ea=${seq}` : ""}`} prefetch={false}>
      Compare with another run
    </Link>
  );
}

function RunViewerLink({ runId }: { runId: string }) {
  const seq = useCursorSeq();
  return (
    <Link href={`/runs/${encodeURIComponent(runId)}${seq !== undefined ? `?event=${seq}` : ""}`} prefetch={false}>
      Open in the run viewer
    </Link>
  );
}
