"use client";
import { useState } from "react";
import { revokeKey } from "@/app/actions/admin";
import { ActionError, useAdminAction } from "./use-admin-action";

interface AdminKey {
  id: string;
  projectId: string;
  name: string;
  scope: string;
  prefix: string;
  createdMs: number;
  createdBy: string;
  lastUsedMs: number | null;
  revokedMs: number | null;
}

const when = (ms: number | null) => (ms === null ? "never" : new Date(ms).toISOString().replace("T", " ").slice(0, 16));

/** The keys of the projects the viewer administers, newest first; active ones can be revoked. */
export function KeysTable({ keys }: { keys: AdminKey[] }) {
  if (keys.length === 0) return <p className="admin-empty">No keys in the projects you administer yet.</p>;
  return (
    <div className="admin-table-wrap">
      <table className="admin-table" aria-label="Keys">
        <thead>
          <tr>
            <th>Name</th>
            <th>Project</th>
            <th>Scope</th>
            <th>Prefix</th>
            <th>Created (UTC)</th>
            <th>Created by</th>
            <th>Last used (UTC)</th>
            <th className="actions">Status</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <KeyRow key={k.id} k={k} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function KeyRow({ k }: { k: AdminKey }) {
  const [confirming, setConfirming] = useState(false);
  const { pending, error, run } = useAdminAction();
  return (
    <tr className={k.revokedMs !== null ? "revoked" : undefined}>
      <td className="key-name">{k.name}</td>
      <td className="mono">{k.projectId}</td>
      <td>
        <span className={`badge ${k.scope === "read" ? "" : "warn"}`}>{k.scope}</span>
      </td>
      <td className="mono">{k.prefix}…</td>
      <td className="nowrap">{when(k.createdMs)}</td>
      <td className="clip" title={k.createdBy}>
        {k.createdBy}
      </td>
      <td className="nowrap">{when(k.lastUsedMs)}</td>
      <td className="actions">
        {k.revokedMs !== null ? (
          <span className="badge bad" title={`revoked ${when(k.revokedMs)} UTC`}>
            revoked
          </span>
        ) : confirming ? (
          <div className="row-actions">
            <button
              type="button"
              className="danger small"
              disabled={pending}
              onClick={() => run(() => revokeKey({ project: k.projectId, keyId: k.id }))}
            >
              Revoke {k.name}
            </button>
            <button type="button" className="small" disabled={pending} onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        ) : (
          <div className="row-actions">
            <span className="badge good">active</span>
            <button type="button" className="small" onClick={() => setConfirming(true)}>
              Revoke…
            </button>
          </div>
        )}
        <ActionError error={error} />
      </td>
    </tr>
  );
}
