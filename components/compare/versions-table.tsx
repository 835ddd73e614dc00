"use client";
import { useState } from "react";
import type { VersionRow } from "@/lib/compare";
import { Segments } from "@/components/ui/safe-text";

/** The versions the two runs ran with; those that differ first and marked (≠ and a tint). */
export function VersionsTable({ rows }: { rows: VersionRow[] }) {
  const [all, setAll] = useState(false);
  const differing = rows.filter((r) => r.differs);
  const shown = all ? rows : differing;
  return (
    <section className="cmp-card" aria-label="Versions">
      <h2>
        Versions that differ: {differing.length}
        <button type="button" onClick={() => setAll(!all)} style={{ fontSize: 12, fontWeight: 400 }}>
          {all ? "Show only the differences" : `Show all ${rows.length}`}
        </button>
      </h2>
      {shown.length === 0 ? (
        <div style={{ color: "var(--muted)", fontSize: 13 }}>
          Both runs ran with the same workflow, agent, prompt, policy, tool and model versions.
        </div>
      ) : (
        <table className="cmp-versions" aria-label={all ? "All versions" : "Versions that differ"}>
          <thead>
            <tr>
              <th style={{ width: 24 }} aria-label="differs" />
              <th>Kind</th>
              <th>Name</th>
              <th>Run a</th>
              <th>Run b</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((r) => (
              <tr key={`${r.group}/${r.name}`} className={r.differs ? "differs" : ""}>
                <td className="mark">{r.differs ? "≠" : ""}</td>
                <td>{r.group}</td>
                <td className="v nm">{r.name === r.group ? null : <Segments text={r.name} />}</td>
                <td className="v">{r.a === null ? <i style={{ color: "var(--faint)" }}>none</i> : <Segments text={r.a} />}</td>
                <td className="v">{r.b === null ? <i style={{ color: "var(--faint)" }}>none</i> : <Segments text={r.b} />}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
