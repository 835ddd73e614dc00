"use client";
import { useState } from "react";
import { addExecutor, removeExecutor } from "@/app/actions/executors";
import type { ExecutorInfo, ExecutorKind } from "@/lib/live/types";
import { ActionError, useAdminAction } from "./use-admin-action";

/**
 * A project's executors: the form that adds one (the credential field is write-only: it is
 * sent once and never comes back) and the table with Remove.
 */
export function ExecutorsSection({
  projects,
  executors,
  current,
}: {
  projects: string[];
  executors: ExecutorInfo[];
  current: string | null;
}) {
  const [project, setProject] = useState(current && projects.includes(current) ? current : (projects[0] ?? ""));
  const [kind, setKind] = useState<ExecutorKind>("tool");
  const [name, setName] = useState("*");
  const [environment, setEnvironment] = useState("sandbox");
  const [url, setUrl] = useState("");
  const [credential, setCredential] = useState("");
  const add = useAdminAction();
  const remove = useAdminAction();
  return (
    <>
      <form
        className="admin-panel"
        aria-label="Add an executor"
        onSubmit={(e) => {
          e.preventDefault();
          add.run(
            () => addExecutor({ project, kind, name, environment, url, credential }),
            () => {
              setCredential("");
              setUrl("");
            },
          );
        }}
      >
        <div className="panel-head">
          <h2>Add an executor</h2>
        </div>
        <div className="fields">
          <label>
            Project
            <select value={project} onChange={(e) => setProject(e.target.value)} disabled={add.pending}>
              {projects.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
          </label>
          <label>
            Kind
            <select
              value={kind}
              onChange={(e) => {
                const k = e.target.value as ExecutorKind;
                setKind(k);
                if (k === "model" && name === "*") setName("");
              }}
              disabled={add.pending}
            >
              <option value="tool">tool (HTTP endpoint)</option>
              <option value="model">model (OpenAI-compatible)</option>
            </select>
          </label>
          <label>
            {kind === "tool" ? "Tool (* for every tool)" : "Model"}
            <input
              value={name}
              onChange={(e) => setName(e.target.value)}
              required
              maxLength={128}
              autoComplete="off"
              disabled={add.pending}
            />
          </label>
          <label>
            Environment
            <input value={environment} onChange={(e) => setEnvironment(e.target.value)} required maxLength={32} disabled={add.pending} />
          </label>
          <label className="wide">
            Endpoint URL
            <input
              value={url}
              onChange={(e) => setUrl(e.target.value)}
              required
              type="url"
              placeholder={kind === "tool" ? "https://tools.example/retrace" : "https://api.example/v1"}
              disabled={add.pending}
            />
          </label>
          <label>
            Credential (bearer)
            <input
              value={credential}
              onChange={(e) => setCredential(e.target.value)}
              type="password"
              autoComplete="new-password"
              placeholder="stored encrypted, never shown again"
              disabled={add.pending}
            />
          </label>
          <button type="submit" className="primary" disabled={add.pending || !project}>
            {add.pending ? "Adding…" : "Add executor"}
          </button>
        </div>
        <ActionError error={add.error} />
      </form>
      <ActionError error={remove.error} />
      <div className="admin-table-wrap">
        <table className="admin-table" aria-label="Executors">
          <thead>
            <tr>
              <th>Project</th>
              <th>Kind</th>
              <th>Tool or model</th>
              <th>Environment</th>
              <th>Endpoint</th>
              <th>Credential</th>
              <th>Added by</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {executors.length === 0 ? (
              <tr>
                <td colSpan={8} className="muted">
                  No executors: nothing can act live in these projects.
                </td>
              </tr>
            ) : null}
            {executors.map((e) => (
              <tr key={e.id}>
                <td className="mono">{e.project}</td>
                <td>{e.kind}</td>
                <td className="mono">{e.name}</td>
                <td>
                  <span className={`badge ${e.environment === "production" ? "bad" : ""}`}>{e.environment}</span>
                </td>
                <td className="mono break">{e.url}</td>
                <td>{e.hasCredential ? "set (encrypted)" : "none"}</td>
                <td>{e.createdBy}</td>
                <td>
                  <button
                    type="button"
                    disabled={remove.pending}
                    onClick={() => remove.run(() => removeExecutor({ project: e.project, executorId: e.id }))}
                    aria-label={`Remove executor ${e.name} on ${e.environment}`}
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
