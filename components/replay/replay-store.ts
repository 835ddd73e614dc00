"use client";
/**
 * View state of one mounted replay page: a vanilla zustand store created per mount and
 * read through selectors. The cursor moves fast (playback, the scrubber); the list and the
 * scrubber follow it by subscribing and writing to the DOM, so a move re-renders only the
 * rows whose highlight changes and the frame panel when its payload arrives.
 */
import { createContext, useContext } from "react";
import { createStore, useStore, type StoreApi } from "zustand";
import type { FrameView, ReplayAnswer, ReplayProgress, ReplayResult } from "./protocol";

export type SideTab = "frame" | "fork" | "divergences" | "changes";

export interface ReplayViewState {
  /** Frame index of the playhead. */
  cursor: number;
  playing: boolean;
  /** Frames per second while playing. */
  speed: number;
  /** Playback stops at a divergence or a fork change. */
  pauseAtMarks: boolean;
  tab: SideTab;
  result: ReplayResult | null;
  /** Frame indices that hold a divergence or a fork change, ascending. */
  marks: number[];
  /** seq → index of its first frame. */
  frameOfSeq: Map<number, number>;
  view: FrameView | null;
  /** How far the streamed load has folded; null before its first page. */
  progress: { loaded: number; done: boolean } | null;
  setCursor(index: number): void;
  setPlaying(playing: boolean): void;
  setSpeed(speed: number): void;
  setPauseAtMarks(v: boolean): void;
  setTab(tab: SideTab): void;
  /** A page of the streamed reconstruct: its rows and divergences are appended. */
  applyProgress(p: ReplayProgress): void;
  setResult(result: ReplayAnswer): void;
  setView(view: FrameView): void;
}

function marksOf(result: ReplayResult, frameOfSeq: Map<number, number>): number[] {
  const set = new Set<number>();
  for (const d of result.divergences) {
    const f = frameOfSeq.get(d.seq);
    if (f !== undefined) set.add(f);
  }
  for (const c of result.changes) {
    const f = frameOfSeq.get(c.seq);
    if (f !== undefined) set.add(f);
  }
  return [...set].sort((a, b) => a - b);
}

export function createReplayStore(): StoreApi<ReplayViewState> {
  return createStore<ReplayViewState>((set, get) => ({
    cursor: 0,
    playing: false,
    speed: 8,
    pauseAtMarks: true,
    tab: "frame",
    result: null,
    marks: [],
    frameOfSeq: new Map(),
    view: null,
    progress: null,
    setCursor: (index) => {
      const n = get().result?.rows.length ?? 0;
      const cursor = Math.max(0, Math.min(n - 1, Math.round(index)));
      if (cursor !== get().cursor) set({ cursor });
    },
    setPlaying: (playing) => set({ playing }),
    setSpeed: (speed) => set({ speed }),
    setPauseAtMarks: (pauseAtMarks) => set({ pauseAtMarks }),
    setTab: (tab) => set({ tab }),
    applyProgress: (p) => {
      const prev = get().result;
      const keep = !p.restart && prev !== null && prev.key === p.key;
      // appended in place: a long run's rows are never copied page by page
      const rows = keep ? prev.rows : [];
      const divergences = keep ? prev.divergences : [];
      const frameOfSeq = keep ? get().frameOfSeq : new Map<number, number>();
      for (const r of p.rows) {
        rows.push(r);
        if (!frameOfSeq.has(r.seq)) frameOfSeq.set(r.seq, r.index);
      }
      for (const d of p.divergences) divergences.push(d);
      const result: ReplayResult = {
        key: p.key,
        rows,
        divergences,
        changes: [],
        summary: { ...p.summary, divergences },
        forkError: null,
        chain: p.chain,
        hashed: 0,
        ms: 0,
      };
      set({
        result,
        frameOfSeq,
        marks: marksOf(result, frameOfSeq),
        progress: { loaded: p.loaded, done: p.done },
        ...(keep ? {} : { cursor: 0, view: null, playing: false }),
      });
    },
    setResult: (answer) => {
      const prev = get().result;
      // the streamed reconstruct's answer: the rows the load appended stand, and so does the view
      const streamed = answer.rows === null && prev !== null && prev.key === answer.key;
      const rows = answer.rows ?? (streamed ? prev.rows : []);
      const result: ReplayResult = { ...answer, rows };
      const frameOfSeq = streamed ? get().frameOfSeq : new Map<number, number>();
      if (!streamed) for (const r of rows) if (!frameOfSeq.has(r.seq)) frameOfSeq.set(r.seq, r.index);
      const cursor = Math.min(get().cursor, Math.max(0, rows.length - 1));
      set({
        result,
        frameOfSeq,
        marks: marksOf(result, frameOfSeq),
        cursor,
        ...(streamed ? {} : { view: null, playing: false }),
        progress: { loaded: answer.summary.events, done: true },
      });
    },
    setView: (view) => set({ view }),
  }));
}

export const ReplayStoreContext = createContext<StoreApi<ReplayViewState> | null>(null);

export function useReplayStoreApi(): StoreApi<ReplayViewState> {
  const store = useContext(ReplayStoreContext);
  if (!store) throw new Error("useReplayStore outside a replay page");
  return store;
}

export function useReplayStore<T>(selector: (s: ReplayViewState) => T): T {
  return useStore(useReplayStoreApi(), selector);
}

/** The first mark after (or before, with dir −1) the cursor, or null. */
export function nextMark(marks: readonly number[], cursor: number, dir: 1 | -1): number | null {
  if (dir === 1) {
    for (const m of marks) if (m > cursor) return m;
    return null;
  }
  for (let i = marks.length - 1; i >= 0; i--) if (marks[i] < cursor) return marks[i];
  return null;
}
