/**
 * The replay worker: fetches one run's events page by page and folds the reconstruct as
 * each page arrives (the page shows the first frames while the rest loads), so folding a
 * long run (hashing every event, rebuilding every state) never blocks the page. It keeps
 * no event and no frame: the replay (`openPagedReplay`) holds a snapshot every 256 events
 * and two numbers a frame, and the frames on screen (`rows`) and under the playhead
 * (`view`) are rebuilt from the snapshot before them over their block's events, fetched
 * again (a few blocks are cached). Comlink exposes `load`, `replay`, `rows` and `view`.
 */
import { expose } from "comlink";
import { EVENT_KINDS, type EventKind } from "@/lib/graph/kind";
import type { Fidelity, JournalEvent, JsonValue, RunId } from "@/lib/journal/types";
import { frameMode } from "@/lib/live/mode";
import { buildForkPlan, forkPlanReads, ReplayError, type ForkPlan, type ForkSpec, type ReplayChunk } from "@/lib/replay";
import { openPagedReplay, type PagedReplay, type RefoldedBlock } from "@/lib/replay";
import { fetchEventPage } from "./event-pages";
import { createKindTracker, rowOf } from "./frame-rows";
import { eventOf } from "./parse-events";
import { forkKey, type FrameRow, type FrameView, type ReplayAnswer, type ReplayProgress } from "./protocol";

type EventPage = Awaited<ReturnType<typeof fetchEventPage>>;

/** Blocks of events (and their refolds) kept for stepping and scrolling back and forth. */
const BLOCK_CACHE = 12;
const NO_KIND = 255;
const KIND_CODE = new Map<EventKind, number>(EVENT_KINDS.map((k, i) => [k, i]));

/** A typed column that grows by doubling (kinds and type ids of every frame). */
class Bytes<A extends Uint8Array | Uint16Array> {
  data: A;
  length = 0;
  constructor(private readonly make: (n: number) => A) {
    this.data = make(1024);
  }
  push(v: number) {
    if (this.length === this.data.length) {
      const next = this.make(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
}

/** One replay (the reconstruct or a fork) and what its rows need beyond the fold. */
interface Current {
  key: string;
  paged: PagedReplay;
  forked: boolean;
  kinds: Bytes<Uint8Array>;
  recordedKinds: Bytes<Uint8Array>;
  types: Bytes<Uint16Array>;
  /** Events with a hash of the chain checked. */
  hashed: number;
  branch: boolean;
  refolds: Map<string, Promise<RefoldedBlock>>;
}

let run = "";
let fidelity: Fidelity | undefined;
/** The policy attached to the run, judged in place of run.start's (ReplayOptions.attachedPolicy). */
let attachedPolicy: JsonValue | undefined;
let chain: "recorder" | "server" = "recorder";
let redactedSeqs = new Set<number>();
const redacted = (seq: number) => redactedSeqs.has(seq);
let loadId = 0;
/** Replays asked for so far: only the newest one's answer counts. */
let replays = 0;
let current: Current | null = null;
/** The reconstruct folded while loading, answered by `replay(null)` without folding again. */
let streamed: { current: Current; ms: number } | null = null;
/** Whether the page's frames are still the ones the load streamed (no other replay answered since). */
let pageHasStreamedFrames = false;
/** Event type names; a frame's type id indexes this table, which only grows during a load. */
let typeNames: string[] = [];
let typeIds = new Map<string, number>();
const typeIdOf = (t: string) => {
  let id = typeIds.get(t);
  if (id === undefined) {
    id = typeNames.length;
    typeNames.push(t);
    typeIds.set(t, id);
  }
  return id;
};
/** Blocks of events as the replay folded them, by "block:to" (a block still growing is another entry). */
let blocks = new Map<string, Promise<JournalEvent[]>>();
/** The last pages the load folded: the frames that just arrived are shown without fetching them again. */
let recent: JournalEvent[][] = [];
const RECENT_PAGES = 2;

/** The events of `seqs` from a page the load still holds, or null. */
function fromRecent(seqs: readonly number[]): JournalEvent[] | null {
  for (const page of recent) {
    if (page.length === 0 || page[0].seq > seqs[0] || page[page.length - 1].seq < seqs[seqs.length - 1]) continue;
    let lo = 0;
    let hi = page.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (page[mid].seq < seqs[0]) lo = mid + 1;
      else hi = mid;
    }
    const out = page.slice(lo, lo + seqs.length);
    if (out.length === seqs.length && out.every((e, i) => e.seq === seqs[i])) return out;
  }
  return null;
}

function remember<T>(cache: Map<string, T>, key: string, make: () => T): T {
  const hit = cache.get(key);
  if (hit !== undefined) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const value = make();
  cache.set(key, value);
  while (cache.size > BLOCK_CACHE) cache.delete(cache.keys().next().value as string);
  return value;
}

function open(key: string, plan: ForkPlan | null, fork?: ForkSpec): Current {
  return {
    key,
    paged: openPagedReplay(run as RunId, { plan, fork, fidelity, redacted, attachedPolicy }),
    forked: plan !== null,
    kinds: new Bytes((n) => new Uint8Array(n)),
    recordedKinds: new Bytes((n) => new Uint8Array(n)),
    types: new Bytes((n) => new Uint16Array(n)),
    hashed: 0,
    branch: false,
    refolds: new Map(),
  };
}

/** Folds a chunk into a replay; returns the seqs and type ids of the frames it added. */
function pushInto(c: Current, events: readonly JournalEvent[], tracker: ReturnType<typeof createKindTracker>) {
  tracker.note(events);
  const out: ReplayChunk = c.paged.push(events);
  const seqs = new Float64Array(out.frames.length);
  const types = new Uint16Array(out.frames.length);
  out.frames.forEach((f, i) => {
    c.kinds.push(KIND_CODE.get(tracker.of(f.event)) ?? 0);
    c.recordedKinds.push(f.recorded === null ? NO_KIND : (KIND_CODE.get(tracker.of(f.recorded)) ?? 0));
    if (!c.branch && frameMode(f.recorded ?? f.event) !== "recorded") c.branch = true;
    seqs[i] = f.seq;
    types[i] = typeIdOf((f.recorded ?? f.event).type);
    c.types.push(types[i]);
  });
  for (const e of events) if (typeof e.hash === "string") c.hashed++;
  return { out, seqs, types };
}

/**
 * A block's events fetched again: the seqs the replay folded there, in order. An event
 * that arrived since (a live run's, between two folded seqs) is skipped, so the block is
 * the one folded; one that is gone is an error the page shows.
 */
function blockEvents(paged: PagedReplay, block: number): Promise<JournalEvent[]> {
  const { from, to, seqs } = paged.blockRange(block);
  return remember(blocks, `${block}:${to}`, async () => {
    const held = fromRecent(seqs);
    if (held) return held;
    const got: JournalEvent[] = [];
    let after = from === 0 ? -1 : paged.eventSeq(from - 1);
    const id = loadId;
    while (got.length < seqs.length) {
      const page = await fetchEventPage(run, after, Math.min(5000, seqs.length - got.length + 16));
      if (id !== loadId) throw new Error("superseded by a newer load");
      for (const r of page.events) {
        if (got.length === seqs.length || r.seq > seqs[seqs.length - 1]) break;
        if (r.seq === seqs[got.length]) got.push(eventOf(r, chain));
      }
      if (got.length === seqs.length || page.nextAfter === null) break;
      after = page.nextAfter;
    }
    if (got.length !== seqs.length)
      throw new Error(`the run's events changed since they were replayed (seq ${seqs[got.length]} is gone); reload the page`);
    return got;
  });
}

function refold(c: Current, block: number): Promise<RefoldedBlock> {
  const { to } = c.paged.blockRange(block);
  const key = `${block}:${to}`;
  const p = remember(c.refolds, key, async () => c.paged.refold(block, await blockEvents(c.paged, block)));
  // a failed fetch is not kept: the next request tries again
  p.catch(() => c.refolds.get(key) === p && c.refolds.delete(key));
  return p;
}

const api = {
  /**
   * Fetches the run's event pages and folds its reconstruct as they come, calling
   * `onProgress` after each page with the frames and divergences it added. The recorder's
   * chain is checked while nothing in the run was redacted; the first page holding a
   * redacted event switches to Retrace's own chain and folds again from the first page
   * (`restart`), since the recorder's hashes cannot verify on redacted text.
   */
  async load(
    runId: string,
    runFidelity: Fidelity | undefined,
    /** the policy attached to the run, JSON text (null: the recorded one judges it) */
    attachedText: string | null,
    onProgress: (p: ReplayProgress) => void,
  ): Promise<{ events: number; chain: "recorder" | "server" }> {
    const id = ++loadId;
    run = runId;
    fidelity = runFidelity;
    attachedPolicy = attachedText === null ? undefined : (JSON.parse(attachedText) as JsonValue);
    chain = "recorder";
    redactedSeqs = new Set();
    typeNames = [];
    typeIds = new Map();
    blocks = new Map();
    recent = [];
    current = null;
    streamed = null;
    pageHasStreamedFrames = false;
    const t0 = performance.now();
    let c: Current | null = null;
    let tracker = createKindTracker();
    let restarting = false;
    let after = -1;
    // the next page is asked for while this one folds, so the server's time overlaps the fold's
    let ahead: { after: number; page: Promise<EventPage> } | null = null;
    for (;;) {
      const page: EventPage = await (ahead !== null && ahead.after === after ? ahead.page : fetchEventPage(runId, after));
      if (id !== loadId) throw new Error("superseded by a newer load");
      ahead = null;
      if (page.nextAfter !== null) {
        ahead = { after: page.nextAfter, page: fetchEventPage(runId, page.nextAfter) };
        ahead.page.catch(() => {}); // awaited (and its failure reported) when its turn comes
      }
      for (const r of page.events) if (r.redactions > 0) redactedSeqs.add(r.seq);
      if (chain === "recorder" && page.events.some((r) => r.redactions > 0)) {
        chain = "server";
        blocks = new Map();
        recent = [];
        if (after !== -1) {
          // the pages before are fetched again for the refold rather than held all along
          // for a switch that most runs never make
          restarting = true;
          c = null;
          current = null;
          after = -1;
          continue;
        }
      }
      if (c === null) {
        c = open(forkKey(null), null);
        tracker = createKindTracker();
        current = c;
      }
      const events = page.events.map((r) => eventOf(r, chain));
      recent = [events, ...recent].slice(0, RECENT_PAGES);
      const { out, seqs, types } = pushInto(c, events, tracker);
      onProgress({
        key: c.key,
        restart: restarting,
        seqs,
        types,
        typeNames: [...typeNames],
        divergences: [...out.divergences],
        loaded: out.events,
        done: page.nextAfter === null,
        summary: c.paged.summary({ lists: false }),
        chain,
        branch: c.branch,
      });
      restarting = false;
      if (page.nextAfter === null) break;
      after = page.nextAfter;
    }
    recent = [];
    if (c) streamed = { current: c, ms: performance.now() - t0 };
    pageHasStreamedFrames = c !== null;
    return { events: c?.paged.events ?? 0, chain };
  },

  /** Folds the run once for this fork (a reconstruct when it is null or cannot apply); null when a newer load replaced the run. */
  async replay(fork: ForkSpec | null): Promise<ReplayAnswer | null> {
    return unlessSuperseded(() => replayOf(fork));
  },

  /** The rows of frames [from, to) (fewer at the end); null when that replay was replaced. */
  async rows(key: string, from: number, to: number): Promise<FrameRow[] | null> {
    return unlessSuperseded(() => rowsOf(key, from, to));
  },

  /** One frame's payloads and state; null when the replay it belongs to was replaced. */
  async view(key: string, index: number): Promise<FrameView | null> {
    return unlessSuperseded(() => viewOf(key, index));
  },
};

/** The fold of the run for this fork (`replay`). */
async function replayOf(fork: ForkSpec | null): Promise<ReplayAnswer | null> {
  const t0 = performance.now();
  const mine = ++replays;
  const reuse = fork === null && streamed !== null;
  let c: Current;
  let forkError: string | null = null;
  if (reuse) c = streamed!.current;
  else {
    // the plan from the few events it reads, then the run folded page by page, as the load does
    let plan: ForkPlan | null = null;
    if (fork !== null) {
      try {
        plan = await planOf(fork);
      } catch (e) {
        if (!(e instanceof ReplayError)) throw e;
        forkError = e.message;
      }
    }
    const next = open(plan ? forkKey(fork) : forkKey(null), plan, plan ? fork! : undefined);
    const tracker = createKindTracker();
    await eachPage(-1, (events) => void pushInto(next, events, tracker));
    c = next;
  }
  // a newer fork asked for while this one folded is the one the page waits for
  if (mine !== replays) return null;
  current = c;
  // the reconstruct's frames reached the page chunk by chunk; after a fork replaced them they are sent again
  const framesStand = reuse && pageHasStreamedFrames;
  pageHasStreamedFrames = framesStand;
  const summary = c.paged.summary();
  return {
    key: c.key,
    frames: framesStand
      ? null
      : {
          seq: c.paged.frameSeqs(0),
          type: c.types.data.slice(0, c.types.length),
          typeNames: [...typeNames],
        },
    divergences: [...c.paged.divergences],
    changes: [...c.paged.changes],
    summary,
    forkError,
    chain,
    hashed: c.hashed,
    ms: reuse ? streamed!.ms : performance.now() - t0,
    branch: c.branch,
  };
}

/** A request's answer, or null when a newer load replaced the replay it was for while it waited. */
async function unlessSuperseded<T>(answer: () => Promise<T | null>): Promise<T | null> {
  const id = loadId;
  try {
    return await answer();
  } catch (e) {
    if (id !== loadId) return null;
    throw e;
  }
}

async function rowsOf(key: string, from: number, to: number): Promise<FrameRow[] | null> {
  const c = current;
  if (!c || c.key !== key) return null;
  const end = Math.min(to, c.paged.frames);
  const out: FrameRow[] = [];
  let index = Math.max(0, from);
  while (index < end) {
    const block = c.paged.blockOfFrame(index);
    const r = await refold(c, block);
    if (current !== c) return null;
    for (const f of r.frames) {
      if (f.frame.index < index || f.frame.index >= end) continue;
      const rk = c.recordedKinds.data[f.frame.index];
      out.push(rowOf(f.frame, EVENT_KINDS[c.kinds.data[f.frame.index]], rk === NO_KIND ? null : EVENT_KINDS[rk]));
    }
    const last = r.frames[r.frames.length - 1];
    if (!last || last.frame.index < index) break;
    index = last.frame.index + 1;
  }
  return out;
}

async function viewOf(key: string, index: number): Promise<FrameView | null> {
  // while the run loads, the streamed reconstruct answers for the frames folded so far
  const c = current;
  if (!c || c.key !== key) return null;
  const r = await refold(c, c.paged.blockOfFrame(index));
  if (current !== c) return null;
  const view = c.paged.viewIn(r, index);
  return {
    key,
    index,
    frame: view.frame,
    state: view.state,
    recordedState: c.forked ? view.fold.base.state : null,
    recordedStateHash: c.forked ? view.fold.base.stateHash : null,
  };
}

/**
 * The run's pages after `after`, in order, as the load read them (the chain it settled
 * on), each handed to `onPage` while the next is on its way; `onPage` returning "stop"
 * ends the walk.
 */
async function eachPage(after: number, onPage: (events: JournalEvent[]) => "stop" | void): Promise<void> {
  const id = loadId;
  let page = fetchEventPage(run, after, 5000);
  for (;;) {
    const got = await page;
    if (id !== loadId) throw new Error("superseded by a newer load");
    if (got.nextAfter !== null) {
      page = fetchEventPage(run, got.nextAfter, 5000);
      page.catch(() => {}); // awaited (and its failure reported) when its turn comes
    }
    if (onPage(got.events.map((r) => eventOf(r, chain))) === "stop" || got.nextAfter === null) return;
  }
}

/**
 * A fork's plan from the events it reads (`forkPlanReads`): the one at the fork seq, and
 * the pages before or after it only as far as the plan needs, none of them held beyond
 * the events it keeps.
 */
async function planOf(spec: ForkSpec): Promise<ForkPlan> {
  let at: JournalEvent | undefined;
  if (Number.isSafeInteger(spec.seq) && spec.seq >= 0) {
    const page = await fetchEventPage(run, spec.seq - 1, 1);
    const r = page.events[0];
    if (r && r.seq === spec.seq) at = eventOf(r, chain);
  }
  const reads = forkPlanReads(spec, at);
  const kept: JournalEvent[] = [];
  if (reads.before.length > 0)
    await eachPage(-1, (events) => {
      for (const e of events) {
        if (e.seq >= spec.seq) return "stop";
        if (reads.keep(e)) kept.push(e);
      }
    });
  if (at) kept.push(at);
  const wanted = new Set(reads.after);
  if (wanted.size > 0)
    await eachPage(spec.seq, (events) => {
      for (const e of events) {
        const hit = [...wanted].filter((p) => p(e));
        if (hit.length === 0) continue;
        kept.push(e);
        for (const p of hit) wanted.delete(p);
        if (wanted.size === 0) return "stop";
      }
    });
  return buildForkPlan(kept, spec);
}

export type ReplayWorkerApi = typeof api;

expose(api);
