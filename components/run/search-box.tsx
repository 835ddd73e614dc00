"use client";
import { useEffect, useRef, useState } from "react";
import type { RunIndex } from "@/lib/graph";
import { matchRows, nextMatch } from "@/lib/view/search";
import { useRunStore, useRunStoreApi } from "./run-store";

/** `/` focuses it; Enter and Shift+Enter go to the next and previous match; Escape clears. */
export function SearchBox({ runId, index }: { runId: string; index: RunIndex | undefined }) {
  void runId;
  const api = useRunStoreApi();
  const matches = useRunStore((s) => s.matches);
  const more = useRunStore((s) => s.moreMatches);
  const selected = useRunStore((s) => s.selectedSeq);
  const [draft, setDraft] = useState("");
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const t = setTimeout(() => api.getState().setSearch(draft), 150);
    return () => clearTimeout(t);
  }, [draft, api]);
  useEffect(() => {
    const focus = () => input.current?.focus();
    window.addEventListener("retrace-focus-search", focus);
    return () => window.removeEventListener("retrace-focus-search", focus);
  }, []);
  const row = index && selected !== null ? index.rowOfSeq(selected) : -1;
  const pos = matches.indexOf(row);
  const go = (dir: 1 | -1) => {
    if (!index) return;
    // Enter may come before the debounced search ran: match the columns now
    const now = api.getState().search === draft ? matches : matchRows(index.summary, draft);
    const m = nextMatch(now, row, dir);
    // past the last match held, with more on the server: its next page before wrapping around
    if (dir === 1 && more && (m < 0 || m <= row)) return more();
    if (m >= 0) api.getState().select(index.summary.seq[m]);
  };
  return (
    <div className="search-box" role="search">
      <input
        ref={input}
        type="search"
        aria-label="Search this run"
        placeholder="Search this run  ( / )"
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            go(e.shiftKey ? -1 : 1);
            api.getState().setSearch(draft);
          } else if (e.key === "Escape") {
            setDraft("");
            api.getState().setSearch("");
            input.current?.blur();
          }
        }}
      />
      <span className="count" aria-live="polite">
        {draft.trim()
          ? matches.length === 0
            ? "no matches"
            : `${pos >= 0 ? pos + 1 : "–"} / ${matches.length.toLocaleString("en-US")}${more ? "+" : ""}`
          : ""}
      </span>
    </div>
  );
}
