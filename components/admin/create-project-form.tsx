"use client";
import { useState } from "react";
import { createProject } from "@/app/actions/admin";
import { ActionError, useAdminAction } from "./use-admin-action";

/** Makes a project; the maker becomes its admin. */
export function CreateProjectForm() {
  const [id, setId] = useState("");
  const [name, setName] = useState("");
  const [done, setDone] = useState<string | null>(null);
  const { pending, error, run } = useAdminAction();
  return (
    <form
      className="admin-panel"
      aria-label="Create a project"
      onSubmit={(e) => {
        e.preventDefault();
        setDone(null);
        run(
          () => createProject({ id, name }),
          (p) => {
            setDone(`Project ${p.id} created; you are its admin.`);
            setId("");
            setName("");
          },
        );
      }}
    >
      <div className="panel-head">
        <h2>Create a project</h2>
      </div>
      <div className="fields">
        <label>
          ID
          <input
            value={id}
            onChange={(e) => setId(e.target.value)}
            required
            maxLength={63}
            placeholder="e.g. support-bot"
            autoComplete="off"
            disabled={pending}
          />
        </label>
        <label>
          Name (optional)
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={100} placeholder="Support bot" disabled={pending} />
        </label>
        <button type="submit" className="primary" disabled={pending}>
          {pending ? "Creating…" : "Create project"}
        </button>
        <span className="field-note">The ID appears in URLs and in ?project= of the API; it cannot change.</span>
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
