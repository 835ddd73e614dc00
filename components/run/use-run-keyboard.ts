"use client";
import { useEffect } from "react";
import { adjacentStepRow, type RunIndex } from "@/lib/graph";
import { actionFor, adjacentMark, isTyping } from "@/lib/view/keymap";
import { useRunStoreApi } from "./run-store";

/**
 * The run page's keys (lib/view/keymap.ts, listed by `?`): j / ↓ next event, k / ↑
 * previous, n / N (or p) next / previous failure or finding (`marks`: lib/view/findings
 * `markSeqs`), ] / [ steps, Home / End, / search. Keys typed into a field are left alone.
 */
export function useRunKeyboard(index: RunIndex | undefined, marks: readonly number[]) {
  const api = useRunStoreApi();
  useEffect(() => {
    if (!index) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || isTyping(e.target)) return;
      const action = actionFor("run", e);
      if (action === null || action === "shortcuts") return;
      const s = api.getState();
      const row = s.selectedSeq === null ? -1 : index.rowOfSeq(s.selectedSeq);
      const last = index.n - 1;
      let next: number | null = null;
      switch (action) {
        case "next":
          next = Math.min(last, row + 1);
          break;
        case "previous":
          next = Math.max(0, row - 1);
          break;
        case "next-step":
          next = adjacentStepRow(index, row, 1);
          break;
        case "previous-step":
          next = adjacentStepRow(index, row, -1);
          break;
        case "first":
          next = 0;
          break;
        case "last":
          next = last;
          break;
        case "next-mark":
        case "previous-mark": {
          e.preventDefault();
          const at = s.selectedSeq ?? -1;
          const seq = adjacentMark(marks, at, action === "next-mark" ? 1 : -1);
          if (seq !== null && index.rowOfSeq(seq) >= 0) s.select(seq);
          return;
        }
        case "search":
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
  }, [index, api, marks]);
}
