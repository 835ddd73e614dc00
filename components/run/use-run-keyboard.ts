"use client";
import { useEffect } from "react";
import { adjacentStepRow, type RunIndex } from "@/lib/graph";
import { useRunStoreApi } from "./run-store";

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  return el.isContentEditable || el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT";
}

/**
 * j / ↓ next event, k / ↑ previous, ] next step, [ previous step, Home / End, / search.
 * Keys typed into a field are left alone.
 */
export function useRunKeyboard(index: RunIndex | undefined) {
  const api = useRunStoreApi();
  useEffect(() => {
    if (!index) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.altKey || e.ctrlKey || e.metaKey || typing(e.target)) return;
      const s = api.getState();
      const row = s.selectedSeq === null ? -1 : index.rowOfSeq(s.selectedSeq);
      const last = index.n - 1;
      let next: number | null = null;
      switch (e.key) {
        case "j":
        case "ArrowDown":
          next = Math.min(last, row + 1);
          break;
        case "k":
        case "ArrowUp":
          next = Math.max(0, row - 1);
          break;
        case "]":
          next = adjacentStepRow(index, row, 1);
          break;
        case "[":
          next = adjacentStepRow(index, row, -1);
          break;
        case "Home":
          next = 0;
          break;
        case "End":
          next = last;
          break;
        case "/":
          e.preventDefault();
          window.dispatchEvent(new Event("retrace-focus-search"));
          return;
        default:
          return;
      }
      e.preventDefault();
      if (next !== null && next >= 0 && next <= last) s.select(index.summary.seq[next], { follow: next === last && s.follow });
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [index, api]);
}
