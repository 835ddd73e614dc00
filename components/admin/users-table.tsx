"use client";
import { useState } from "react";
import { ROLES, type Role } from "@/lib/access/roles";
import { removeMember, setMemberRole, setUserDisabled } from "@/app/actions/admin";
import { ActionError, useAdminAction } from "./use-admin-action";

export interface AdminUser {
  id: string;
  name: string;
  createdAt: number;
  disabled: boolean;
  /** only the projects the viewer administers */
  memberships: { project: string; role: Role; environments: string[] }[];
}

/** Accounts and their roles in the projects the viewer administers; one row per membership. */
export function UsersTable({ users, selfId }: { users: AdminUser[]; selfId: string | null }) {
  if (users.length === 0) return <p className="admin-empty">No accounts in the projects you administer yet. Add one above.</p>;
  return (
    <div className="admin-table-wrap">
      <table className="admin-table" aria-label="Accounts">
        <thead>
          <tr>
            <th>Account</th>
            <th>Project</th>
            <th>Role</th>
            <th>Environments (live actions)</th>
            <th className="actions">Membership</th>
          </tr>
        </thead>
        {users.map((u) => (
          <tbody key={u.id} className={u.disabled ? "disabled-account" : undefined} aria-label={u.name}>
            {u.memberships.map((m, i) => (
              <MemberRow
                key={m.project}
                user={u}
                membership={m}
                lead={i === 0 ? <AccountCell user={u} rows={u.memberships.length} self={u.id === selfId} /> : null}
              />
            ))}
          </tbody>
        ))}
      </table>
    </div>
  );
}

function AccountCell({ user, rows, self }: { user: AdminUser; rows: number; self: boolean }) {
  const { pending, error, run } = useAdminAction();
  // disabling acts on the whole account; the edge checks it from the first project shown
  const project = user.memberships[0].project;
  return (
    <th scope="rowgroup" rowSpan={rows} className="account-cell">
      <div className="account-name">
        <span className="name" title={user.name}>
          {user.name}
        </span>
        {self ? <span className="badge">you</span> : null}
        {user.disabled ? <span className="badge bad">disabled</span> : null}
      </div>
      <div className="sub">since {new Date(user.createdAt).toISOString().slice(0, 10)}</div>
      {self ? null : (
        <button
          type="button"
          className="small"
          disabled={pending}
          onClick={() => run(() => setUserDisabled({ project, userId: user.id, disabled: !user.disabled }))}
        >
          {user.disabled ? "Enable account" : "Disable account"}
        </button>
      )}
      <ActionError error={error} />
    </th>
  );
}

const takesEnvironments = (r: Role) => r === "operator" || r === "admin";

function MemberRow({ user, membership, lead }: { user: AdminUser; membership: AdminUser["memberships"][number]; lead: React.ReactNode }) {
  const [role, setRole] = useState<Role>(membership.role);
  const [envs, setEnvs] = useState(membership.environments.join(", "));
  const [confirming, setConfirming] = useState(false);
  const { pending, error, run } = useAdminAction();
  const saved = membership.environments.join(", ");
  const dirty = role !== membership.role || (takesEnvironments(role) && envs.trim() !== saved);
  const label = `${user.name} in ${membership.project}`;
  return (
    <tr>
      {lead}
      <td className="mono">{membership.project}</td>
      <td>
        <select aria-label={`Role of ${label}`} value={role} disabled={pending} onChange={(e) => setRole(e.target.value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </td>
      <td>
        <input
          aria-label={`Environments of ${label}`}
          value={takesEnvironments(role) ? envs : ""}
          placeholder={takesEnvironments(role) ? "none, e.g. sandbox" : "operators and admins only"}
          disabled={pending || !takesEnvironments(role)}
          onChange={(e) => setEnvs(e.target.value)}
        />
      </td>
      <td className="actions">
        <div className="row-actions">
          <button
            type="button"
            className="primary small"
            disabled={!dirty || pending}
            onClick={() =>
              run(() =>
                setMemberRole({
                  project: membership.project,
                  userId: user.id,
                  role,
                  environments: takesEnvironments(role) ? envs : "",
                }),
              )
            }
          >
            Save
          </button>
          {confirming ? (
            <>
              <button
                type="button"
                className="danger small"
                disabled={pending}
                onClick={() =>
                  run(
                    () => removeMember({ project: membership.project, userId: user.id }),
                    () => setConfirming(false),
                  )
                }
              >
                Remove from {membership.project}
              </button>
              <button type="button" className="small" disabled={pending} onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </>
          ) : (
            <button type="button" className="small" disabled={pending} onClick={() => setConfirming(true)}>
              Remove…
            </button>
          )}
        </div>
        <ActionError error={error} />
      </td>
    </tr>
  );
}
