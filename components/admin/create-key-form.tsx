"use client";
import { useRef, useState } from "react";
import { KEY_SCOPES, type KeyScope } from "@/lib/access/roles";
import { createKey } from "@/app/actions/admin";
import { ActionError, useAdminAction } from "./use-admin-action";

interface NewKey {
  key: string;
  name: string;
  scope: KeyScope;
  project: string;
}

const SCOPE_NOTE: Record<KeyScope, string> = {
  ingest: "write-only: journals, trace exports, OTLP (agents, exporters)",
  read: "read runs through the API (CI, scripts)",
};

/**
 * Makes an API key and shows it once: the value lives in this component's state only (the
 * server keeps a digest), so a reload or leaving the page loses it for good.
 */
export function CreateKeyForm({
  projects,
  current,
  origin,
  open,
}: {
  projects: string[];
  /** the user menu's project, chosen first */
  current: string | null;
  origin: string;
  open: boolean;
}) {
  const [name, setName] = useState("");
  const [scope, setScope] = useState<KeyScope>("ingest");
  const [project, setProject] = useState(current && projects.includes(current) ? current : (projects[0] ?? ""));
  const [made, setMade] = useState<NewKey | null>(null);
  const { pending, error, run } = useAdminAction();
  return (
    <>
      <form
        className="admin-panel"
        aria-label="Create a key"
        onSubmit={(e) => {
          e.preventDefault();
          setMade(null);
          run(
            () => createKey({ project, name, scope }),
            (k) => {
              setMade({ key: k.key, name: k.name, scope: k.scope, project: k.project });
              setName("");
            },
          );
        }}
      >
        <div className="panel-head">
          <h2>Create a key</h2>
        </div>
        {open ? (
          <p className="admin-note">
            Add an admin account first (Users): the first key locks the server, and with no account nobody could sign in to see or revoke
            it.
          </p>
        ) : null}
        <div className="fields">
          <label>
            Name
            <input
              value={name}
              onChange={(e) => setName(e.target.value)}
              required
              maxLength={64}
              placeholder="e.g. support-agent, ci"
              autoComplete="off"
              disabled={pending}
            />
          </label>
          <label>
            Scope
            <select value={scope} onChange={(e) => setScope(e.target.value as KeyScope)} disabled={pending}>
              {KEY_SCOPES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
          <label>
            Project
            <select value={project} onChange={(e) => setProject(e.target.value)} disabled={pending}>
              {projects.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" className="primary" disabled={pending || !project}>
            {pending ? "Creating…" : "Create key"}
          </button>
          <span className="field-note">{SCOPE_NOTE[scope]}</span>
        </div>
        <ActionError error={error} />
      </form>
      {made ? <ShownOnce made={made} origin={origin} onDone={() => setMade(null)} /> : null}
    </>
  );
}

function ShownOnce({ made, origin, onDone }: { made: NewKey; origin: string; onDone: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<"" | "ok" | "fail">("");
  const example =
    made.scope === "read"
      ? `curl -H "Authorization: Bearer $RETRACE_KEY" ${origin}/api/runs`
      : `curl -H "Authorization: Bearer $RETRACE_KEY" --data-binary @run.jsonl ${origin}/api/journals`;
  return (
    <section className="new-key" aria-label="New key" role="region">
      <h2>
        Key <b>{made.name}</b> ({made.scope}, project {made.project})
      </h2>
      <p className="new-key-warning">
        <strong>Copy it now: you will not see it again.</strong> Retrace keeps only a digest of it; if it is lost, revoke it and create
        another.
      </p>
      <div className="new-key-value">
        <input
          ref={input}
          readOnly
          value={made.key}
          aria-label="Key value"
          spellCheck={false}
          className="mono"
          onFocus={(e) => e.currentTarget.select()}
        />
        <button
          type="button"
          className="primary"
          onClick={async () => {
            try {
              await navigator.clipboard.writeText(made.key);
              setCopied("ok");
            } catch {
              // no clipboard (plain HTTP on another host): select it for Ctrl+C
              input.current?.select();
              setCopied("fail");
            }
          }}
        >
          {copied === "ok" ? "Copied" : "Copy"}
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
      {copied === "fail" ? <p className="field-note">This browser refused the clipboard: the key is selected, press Ctrl+C (⌘C).</p> : null}
      <p className="field-note">
        Use it as <code>{example}</code>
      </p>
    </section>
  );
}
