"use client";
import { useEffect } from "react";
import { actionFor, isTyping } from "@/lib/view/keymap";
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
      const n = s.result?.frames.count ?? 0;
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

/**
 * The replay's keys (lib/view/keymap.ts, listed by `?`): space plays or pauses, j / k and
 * the arrows step, n / N jump between divergences and findings, Home / End.
 */
export function useReplayKeyboard() {
  const api = useReplayStoreApi();
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || isTyping(e.target)) return;
      const action = actionFor("replay", e);
      if (action === null || action === "shortcuts") return;
      const s = api.getState();
      const n = s.result?.frames.count ?? 0;
      if (n === 0) return;
      let to: number | null = null;
      switch (action) {
        case "play":
          if (e.target instanceof HTMLButtonElement) return;
          s.setPlaying(!s.playing);
          e.preventDefault();
          return;
        case "next":
          to = s.cursor + 1;
          break;
        case "previous":
          to = s.cursor - 1;
          break;
        case "first":
          to = 0;
          break;
        case "last":
          to = n - 1;
          break;
        case "next-mark":
          to = nextMark(s.marks, s.cursor, 1);
          break;
        case "previous-mark":
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
        const { result, cursor } = api.getState();
        if (!result || cursor >= result.frames.count) return;
        const seq = String(result.frames.seq[cursor]);
        const url = new URL(window.location.href);
        if (url.searchParams.get("event") === seq) return;
        url.searchParams.set("event", seq);
        window.history.replaceState(window.history.state, "", url);
      }, 250);
    });
    return () => {
      unsubscribe();
      if (timer) clearTimeout(timer);
    };
  }, [api]);
}
