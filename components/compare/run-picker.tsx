"use client";
import { useEffect, useId, useState } from "react";
import { plural } from "@/lib/semantics";
import { formatTimestamp } from "@/lib/view/format";
import { StatusBadge } from "@/components/runs/runs-table";
import { useRunSearch } from "./use-compare-data";

/**
 * Search runs of any workflow (id, workflow, tags, findings: the runs list's search) and
 * pick one. The workflow select beside it offers run a's workflow; this finds the rest.
 */
export function RunPicker({ side, exclude, onPick }: { side: "a" | "b"; exclude: string | null; onPick: (id: string) => void }) {
  const [text, setText] = useState("");
  const [q, setQ] = useState("");
  // one request per pause in typing, not per key
  useEffect(() => {
    const t = setTimeout(() => setQ(text.trim()), 250);
    return () => clearTimeout(t);
  }, [text]);
  const found = useRunSearch(q);
  const runs = (found.data?.runs ?? []).filter((r) => r.id !== exclude);
  const listId = useId();
  return (
    <div className="cmp-picker">
      <label>
        Search runs of any workflow for run {side}
        <input
          type="search"
          value={text}
          placeholder="id, workflow, tag, rule or finding text"
          aria-controls={listId}
          onChange={(e) => setText(e.target.value)}
        />
      </label>
      {q ? (
        <ul id={listId} aria-label={`Runs found for run ${side}`} aria-busy={found.isFetching}>
          {found.isLoading ? <li className="muted">Searching…</li> : null}
          {found.error ? <li className="bad">{found.error instanceof Error ? found.error.message : String(found.error)}</li> : null}
          {found.data && runs.length === 0 ? <li className="muted">No run matches “{q}”.</li> : null}
          {runs.map((r) => (
            <li key={r.id}>
              <button type="button" onClick={() => onPick(r.id)} aria-label={`Use ${r.id} as run ${side}`}>
                <span className="id">{r.id}</span>
                <span className="muted">
                  {r.workflow ?? "(no workflow)"} · {formatTimestamp(r.startedAt)} · {plural(r.eventCount, "event")}
                </span>
                <StatusBadge run={r} />
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
