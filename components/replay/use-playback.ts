"use client";
import { useEffect } from "react";
import { nextMark, useReplayStore, useReplayStoreApi } from "./replay-store";

/** Playback: one frame per tick at the chosen speed, stopping at the end (or at a divergence). */
export function usePlayback() {
  const api = useReplayStoreApi();
  const playing = useReplayStore((s) => s.playing);
  const speed = useReplayStore((s) => s.speed);
  useEffect(() => {
    if (!playing) return;
    const timer = setInterval(() => {
      const s = api.getState();
      const n = s.result?.rows.length ?? 0;
      if (s.cursor >= n - 1) {
        s.setPlaying(false);
        return;
      }
      const next = s.cursor + 1;
      s.setCursor(next);
      if (s.pauseAtMarks && nextMark(s.marks, next - 1, 1) === next) s.setPlaying(false);
    }, 1000 / speed);
    return () => clearInterval(timer);
  }, [api, playing, speed]);
}

function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  const tag = target.tagName;
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || target.isContentEditable;
}

/** Keys: space plays or pauses, ←/→ (and ↑/↓ in the list) step, N / shift+N jump between divergences, Home/End. */
export function useReplayKeyboard() {
  const api = useReplayStoreApi();
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
      const s = api.getState();
      const n = s.result?.rows.length ?? 0;
      if (n === 0) return;
      let to: number | null = null;
      switch (e.key) {
        case " ":
          if (e.target instanceof HTMLButtonElement) return;
          s.setPlaying(!s.playing);
          e.preventDefault();
          return;
        case "ArrowRight":
        case "ArrowDown":
          to = s.cursor + 1;
          break;
        case "ArrowLeft":
        case "ArrowUp":
          to = s.cursor - 1;
          break;
        case "Home":
          to = 0;
          break;
        case "End":
          to = n - 1;
          break;
        case "n":
          to = nextMark(s.marks, s.cursor, 1);
          break;
        case "N":
          to = nextMark(s.marks, s.cursor, -1);
          break;
        default:
          return;
      }
      e.preventDefault();
      if (to === null) return;
      s.setPlaying(false);
      s.setCursor(to);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [api]);
}

/** `?event=SEQ` follows the playhead (debounced), so a reload or a shared link returns to it. */
export function useCursorUrl() {
  const api = useReplayStoreApi();
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const unsubscribe = api.subscribe((s, prev) => {
      if (s.cursor === prev.cursor && s.result === prev.result) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        const row = api.getState().result?.rows[api.getState().cursor];
        if (!row) return;
        const url = new URL(window.location.href);
        if (url.searchParams.get("event") === String(row.seq)) return;
        url.searchParams.set("event", String(row.seq));
        window.history.replaceState(window.history.state, "", url);
      }, 250);
    });
    return () => {
      unsubscribe();
      if (timer) clearTimeout(timer);
    };
  }, [api]);
}
