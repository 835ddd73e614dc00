/**
 * The alignment worker: fetches both runs' events page by page, projects each event to
 * what the alignment reads (lib/compare/projection.ts) and drops the page, aligns the
 * projections off the main thread (aligning two long, very different runs never freezes
 * the page) and answers the alignment as columns (lib/compare/compact.ts), transferred
 * without a copy. It keeps nothing once it has answered. Comlink exposes `align`.
 */
import { expose, transfer } from "comlink";
import { alignProjected, RunProjector, type ProjectedRun } from "@/lib/compare/projection";
import { compactAlignment, compactBuffers, type CompactAlignment } from "@/lib/compare/compact";
import { fetchEventPage } from "@/components/replay/event-pages";

const PAGE = 5000;

async function project(run: string, onPage: (loaded: number) => void): Promise<ProjectedRun> {
  const p = new RunProjector();
  let after = -1;
  for (;;) {
    const page = await fetchEventPage(run, after, PAGE);
    for (const row of page.events) p.push(row.event);
    onPage(p.length);
    if (page.nextAfter === null) return p.done();
    after = page.nextAfter;
  }
}

const api = {
  /** Aligns run a with run b; `onProgress` hears how many events of each have been read. */
  async align(a: string, b: string, onProgress?: (loadedA: number, loadedB: number) => void): Promise<CompactAlignment> {
    let loadedA = 0;
    let loadedB = 0;
    const tell = () => void onProgress?.(loadedA, loadedB);
    // one run after the other: two pages parsed at once would double what waits for collection
    const pa = await project(a, (n) => ((loadedA = n), tell()));
    const pb = await project(b, (n) => ((loadedB = n), tell()));
    const compact = compactAlignment(alignProjected(pa, pb), pa.events, pb.events);
    return transfer(compact, compactBuffers(compact));
  },
};

export type AlignWorkerApi = typeof api;

expose(api);
