"use client";
import { useState } from "react";

/**
 * The address that opens a run at one event (`?event=SEQ`) or one finding (also
 * `&tab=findings`): the run page checks access itself, so the link works for anyone who
 * may read the run and for no one else.
 */
function deepLink(origin: string, runId: string, seq: number, tab?: "findings"): string {
  const url = new URL(`/runs/${encodeURIComponent(runId)}`, origin);
  url.searchParams.set("event", String(seq));
  if (tab) url.searchParams.set("tab", tab);
  return url.toString();
}

/** Copies that address; where the clipboard is refused (plain HTTP), shows it to copy by hand. */
export function CopyLink({
  runId,
  seq,
  tab,
  what,
  short = false,
}: {
  runId: string;
  seq: number;
  tab?: "findings";
  what: string;
  /** "link" instead of "Copy link", for rows of a list */
  short?: boolean;
}) {
  const [state, setState] = useState<"idle" | "copied" | { manual: string }>("idle");
  async function copy() {
    const link = deepLink(window.location.origin, runId, seq, tab);
    try {
      await navigator.clipboard.writeText(link);
      setState("copied");
      setTimeout(() => setState("idle"), 2000);
    } catch {
      setState({ manual: link });
    }
  }
  return (
    <span className="copy-link">
      <button type="button" className="link" onClick={() => void copy()} aria-label={`Copy link to ${what}`} title={`Copy link to ${what}`}>
        {state === "copied" ? "Copied" : short ? "link" : "Copy link"}
      </button>
      {typeof state === "object" ? (
        <input
          className="copy-link-manual"
          readOnly
          aria-label={`Link to ${what}`}
          value={state.manual}
          onFocus={(e) => e.currentTarget.select()}
          autoFocus
        />
      ) : null}
      <span role="status" className="sr-only">
        {state === "copied" ? "Link copied" : ""}
      </span>
    </span>
  );
}
