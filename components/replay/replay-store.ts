"use client";
/**
 * View state of one mounted replay page: a vanilla zustand store created per mount and
 * read through selectors. The cursor moves fast (playback, the scrubber); the list and the
 * scrubber follow it by subscribing and writing to the DOM, so a move re-renders only the
 * rows whose highlight changes and the frame panel when its payload arrives.
 */
import { createContext, useContext } from "react";
import { createStore, useStore, type StoreApi } from "zustand";
import type { FrameColumns, FrameRow, FrameView, ReplayAnswer, ReplayProgress, ReplayResult } from "./protocol";

export type SideTab = "frame" | "fork" | "divergences" | "changes";

interface ReplayViewState {
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
  /** seq → index of its first frame (a binary search over the frames' seqs). */
  frameOfSeq: FrameOfSeq;
  /** Bumped whenever the frames the rows were built for are void (a restart, another replay). */
  generation: number;
  /** Builds the rows of frames [from, to) of a replay, in the worker (null: that replay was replaced). */
  rowSource: ((key: string, from: number, to: number) => Promise<FrameRow[] | null>) | null;
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
  setRowSource(source: ReplayViewState["rowSource"]): void;
}

interface FrameOfSeq {
  get(seq: number): number | undefined;
}

const EMPTY_TYPES: readonly string[] = [];

const emptyFrames = (): FrameColumns => ({ count: 0, seq: new Float64Array(0), type: new Uint16Array(0), typeNames: EMPTY_TYPES });

/** The frames with more appended: in place while there is room, else in arrays twice as long. */
function appendFrames(prev: FrameColumns, seqs: Float64Array, types: Uint16Array, typeNames: readonly string[]): FrameColumns {
  const count = prev.count + seqs.length;
  let { seq, type } = prev;
  if (count > seq.length) {
    const size = Math.max(1024, count, seq.length * 2);
    seq = new Float64Array(size);
    seq.set(prev.seq.subarray(0, prev.count));
    type = new Uint16Array(size);
    type.set(prev.type.subarray(0, prev.count));
  }
  seq.set(seqs, prev.count);
  type.set(types, prev.count);
  return { count, seq, type, typeNames };
}

/** Frames are in seq order: the first frame at a seq by binary search. */
function frameOfSeqIn(frames: FrameColumns): FrameOfSeq {
  return {
    get(seq) {
      let lo = 0;
      let hi = frames.count;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (frames.seq[mid] < seq) lo = mid + 1;
        else hi = mid;
      }
      return lo < frames.count && frames.seq[lo] === seq ? lo : undefined;
    },
  };
}

function marksOf(result: ReplayResult, frameOfSeq: FrameOfSeq): number[] {
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
    frameOfSeq: frameOfSeqIn(emptyFrames()),
    generation: 0,
    rowSource: null,
    view: null,
    progress: null,
    setCursor: (index) => {
      const n = get().result?.frames.count ?? 0;
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
      const frames = appendFrames(keep ? prev.frames : emptyFrames(), p.seqs, p.types, p.typeNames);
      // appended in place: a long run's divergences are never copied page by page
      const divergences = keep ? prev.divergences : [];
      for (const d of p.divergences) divergences.push(d);
      const frameOfSeq = frameOfSeqIn(frames);
      const result: ReplayResult = {
        key: p.key,
        frames,
        divergences,
        changes: [],
        summary: { ...p.summary, divergences },
        forkError: null,
        chain: p.chain,
        hashed: 0,
        ms: 0,
        branch: p.branch,
      };
      set({
        result,
        frameOfSeq,
        marks: marksOf(result, frameOfSeq),
        progress: { loaded: p.loaded, done: p.done },
        ...(keep ? {} : { cursor: 0, view: null, playing: false, generation: get().generation + 1 }),
      });
    },
    setResult: (answer) => {
      const prev = get().result;
      // the streamed reconstruct's answer: the frames the load appended stand, and so does the view
      const streamed = answer.frames === null && prev !== null && prev.key === answer.key;
      const frames =
        answer.frames !== null ? { count: answer.frames.seq.length, ...answer.frames } : streamed ? prev.frames : emptyFrames();
      const result: ReplayResult = { ...answer, frames };
      const frameOfSeq = frameOfSeqIn(frames);
      const cursor = Math.min(get().cursor, Math.max(0, frames.count - 1));
      set({
        result,
        frameOfSeq,
        marks: marksOf(result, frameOfSeq),
        cursor,
        ...(streamed ? {} : { view: null, playing: false, generation: get().generation + 1 }),
        progress: { loaded: answer.summary.events, done: true },
      });
    },
    setRowSource: (rowSource) => set({ rowSource }),
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
