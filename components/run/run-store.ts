"use client";
/**
 * View state of one mounted run page: a vanilla zustand store created per mount (so two
 * run pages never share a selection) and read through selectors. Server data is not
 * here: it lives in TanStack Query.
 */
import { createContext, useContext } from "react";
import { createStore, useStore, type StoreApi } from "zustand";

type BottomTab = "timeline" | "charts";
export type SideTab = "events" | "findings" | "notes";

interface RunViewState {
  selectedSeq: number | null;
  /** Keep the newest event of a live run selected as events arrive. */
  follow: boolean;
  /** Explicit expand (true) or collapse (false) per step id; others follow `collapseMode`. */
  stepOverrides: Record<string, boolean>;
  /** auto: big runs collapse all steps but the selected one. */
  collapseMode: "auto" | "all" | "none";
  layoutEngine: "sequence" | "elk";
  sideTab: SideTab;
  bottomTab: BottomTab;
  /** Inspector tab chosen by the user; null picks the one that fits the event. */
  inspectorTab: string | null;
  search: string;
  /** Rows matching the search, ascending. */
  matches: number[];
  /** Loads the next page of the server's payload matches; null when there is none. */
  moreMatches: (() => void) | null;
  graphReady: boolean;
  timelineReady: boolean;
  select(seq: number | null, opts?: { follow?: boolean }): void;
  setFollow(follow: boolean): void;
  toggleStep(stepId: string, expanded: boolean): void;
  setCollapseMode(mode: RunViewState["collapseMode"]): void;
  setLayoutEngine(engine: RunViewState["layoutEngine"]): void;
  setSideTab(t: SideTab): void;
  setBottomTab(t: BottomTab): void;
  setInspectorTab(t: string | null): void;
  setSearch(q: string): void;
  setMatches(rows: number[], more?: (() => void) | null): void;
  setGraphReady(v: boolean): void;
  setTimelineReady(v: boolean): void;
}

export function createRunViewStore(initialSeq: number | null, follow: boolean, sideTab: SideTab = "events"): StoreApi<RunViewState> {
  return createStore<RunViewState>((set) => ({
    selectedSeq: initialSeq,
    follow,
    stepOverrides: {},
    collapseMode: "auto",
    layoutEngine: "sequence",
    sideTab,
    bottomTab: "timeline",
    inspectorTab: null,
    search: "",
    matches: [],
    moreMatches: null,
    graphReady: false,
    timelineReady: false,
    select: (seq, opts) => set({ selectedSeq: seq, follow: opts?.follow ?? false }),
    setFollow: (follow) => set({ follow }),
    toggleStep: (stepId, expanded) => set((s) => ({ stepOverrides: { ...s.stepOverrides, [stepId]: expanded } })),
    setCollapseMode: (collapseMode) => set({ collapseMode, stepOverrides: {} }),
    setLayoutEngine: (layoutEngine) => set({ layoutEngine }),
    setSideTab: (sideTab) => set({ sideTab }),
    setBottomTab: (bottomTab) => set({ bottomTab }),
    setInspectorTab: (inspectorTab) => set({ inspectorTab }),
    setSearch: (search) => set({ search }),
    setMatches: (matches, more = null) => set({ matches, moreMatches: more }),
    setGraphReady: (graphReady) => set({ graphReady }),
    setTimelineReady: (timelineReady) => set({ timelineReady }),
  }));
}

export const RunStoreContext = createContext<StoreApi<RunViewState> | null>(null);

export function useRunStoreApi(): StoreApi<RunViewState> {
  const store = useContext(RunStoreContext);
  if (!store) throw new Error("useRunStore outside a run page");
  return store;
}

export function useRunStore<T>(selector: (s: RunViewState) => T): T {
  return useStore(useRunStoreApi(), selector);
}
