"use client";
/**
 * The rows of the frames on screen, built by the replay worker a block at a time and kept
 * for the last few blocks seen, so a million-frame run costs the page the rows it shows,
 * not one object a frame. A block at the end of a run still loading is asked again once
 * more frames have arrived.
 */
import { useEffect, useMemo, useReducer, useRef } from "react";
import type { FrameRow } from "./protocol";
import { useReplayStore } from "./replay-store";

const BLOCK = 64;
const KEEP = 48;

interface Cache {
  /** The replay and generation the rows belong to. */
  of: string;
  blocks: Map<number, FrameRow[]>;
  pending: Set<number>;
}

export function useFrameRows(first: number, last: number): (index: number) => FrameRow | undefined {
  const result = useReplayStore((s) => s.result);
  const generation = useReplayStore((s) => s.generation);
  const source = useReplayStore((s) => s.rowSource);
  const [, rerender] = useReducer((x: number) => x + 1, 0);
  const of = result ? `${generation}:${result.key}` : "";
  // one cache per replay (and generation): filled by the effect, read while rendering
  const cache = useMemo<Cache>(() => ({ of, blocks: new Map(), pending: new Set() }), [of]);
  const live = useRef(cache);
  useEffect(() => {
    live.current = cache;
  }, [cache]);
  const count = result?.frames.count ?? 0;

  useEffect(() => {
    if (!result || !source || count === 0) return;
    const c = cache;
    const lo = Math.floor(Math.max(0, first) / BLOCK);
    const hi = Math.floor(Math.min(count - 1, Math.max(first, last)) / BLOCK);
    for (let b = lo; b <= hi; b++) {
      const have = c.blocks.get(b);
      const want = Math.min(BLOCK, count - b * BLOCK);
      if ((have && have.length >= want) || c.pending.has(b)) continue;
      c.pending.add(b);
      source(result.key, b * BLOCK, b * BLOCK + BLOCK).then(
        (rows) => {
          c.pending.delete(b);
          if (live.current !== c || rows === null) return;
          c.blocks.delete(b);
          c.blocks.set(b, rows);
          while (c.blocks.size > KEEP) c.blocks.delete(c.blocks.keys().next().value as number);
          rerender();
        },
        () => {
          // the session shows the worker's failure; the row stays a placeholder
          c.pending.delete(b);
        },
      );
    }
  }, [cache, result, source, count, first, last]);

  return (index) => cache.blocks.get(Math.floor(index / BLOCK))?.[index % BLOCK];
}
