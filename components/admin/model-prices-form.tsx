"use client";
import { useState } from "react";
import { setProjectModelPrices } from "@/app/actions/admin";
import { ActionError, useAdminAction } from "./use-admin-action";

/**
 * A project's model prices, one model a line: the run page's cost chart multiplies each
 * call's input and output tokens by them. Journals carry no prices.
 */
export function ModelPricesForm({ projects }: { projects: ReadonlyArray<{ id: string; name: string; prices: string }> }) {
  const [project, setProject] = useState(projects[0]?.id ?? "");
  const [texts, setTexts] = useState<Record<string, string>>(() => Object.fromEntries(projects.map((p) => [p.id, p.prices])));
  const [done, setDone] = useState<string | null>(null);
  const { pending, error, run } = useAdminAction();
  if (projects.length === 0) return null;
  const text = texts[project] ?? "";
  return (
    <form
      className="admin-panel"
      aria-label="Model prices"
      onSubmit={(e) => {
        e.preventDefault();
        setDone(null);
        run(
          () => setProjectModelPrices({ project, text }),
          (r) => {
            setTexts((t) => ({ ...t, [r.project]: r.text }));
            setDone(
              r.models === 0
                ? `Project ${r.project} has no model prices now.`
                : `Prices of ${r.models} ${r.models === 1 ? "model" : "models"} saved for ${r.project}.`,
            );
          },
        );
      }}
    >
      <div className="panel-head">
        <h2>Model prices</h2>
      </div>
      <div className="fields prices-fields">
        {projects.length > 1 ? (
          <label>
            Project
            <select value={project} onChange={(e) => setProject(e.target.value)} disabled={pending}>
              {projects.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name || p.id}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <label className="prices-text">
          One model a line: name, then US dollars per million input and output tokens
          <textarea
            value={text}
            onChange={(e) => setTexts((t) => ({ ...t, [project]: e.target.value }))}
            rows={5}
            spellCheck={false}
            placeholder={"gpt-4o 2.50 10.00\nclaude-sonnet-4 3 15"}
            disabled={pending}
          />
        </label>
        <button type="submit" className="primary" disabled={pending}>
          {pending ? "Saving…" : "Save prices"}
        </button>
        <span className="field-note">
          The run page&apos;s cost chart uses these; a model not listed shows &quot;no price for MODEL&quot;, not $0.
        </span>
      </div>
      <ActionError error={error} />
      {done && !error ? (
        <p role="status" className="admin-done">
          {done}
        </p>
      ) : null}
    </form>
  );
}
