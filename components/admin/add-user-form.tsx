"use client";
import { useState } from "react";
import { DEFAULT_PROJECT, ROLES, type Role } from "@/lib/access/roles";
import { addExistingMember, addUser } from "@/app/actions/admin";
import { ActionError, useAdminAction } from "./use-admin-action";

/**
 * Adds a member to a project: a new account with a password, or an account that exists
 * (in another project). `firstAccount`: open mode, where the first account locks the
 * server and so must be an admin of the default project. `current`: the user menu's
 * project, chosen first.
 */
export function AddUserForm({ projects, current, firstAccount }: { projects: string[]; current: string | null; firstAccount: boolean }) {
  const [kind, setKind] = useState<"new" | "existing">("new");
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [project, setProject] = useState(
    firstAccount ? DEFAULT_PROJECT : current && projects.includes(current) ? current : (projects[0] ?? ""),
  );
  const [role, setRole] = useState<Role>(firstAccount ? "admin" : "viewer");
  const [envs, setEnvs] = useState("");
  const [done, setDone] = useState<string | null>(null);
  const { pending, error, run } = useAdminAction();
  const withEnvs = role === "operator" || role === "admin";
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    setDone(null);
    const environments = withEnvs ? envs : "";
    if (kind === "new") {
      run(
        () => addUser({ project, name, password, role, environments }),
        (r) => {
          // the server is locked now: this browser has no account until it signs in
          if (r.locked) window.location.assign(`/login?next=${encodeURIComponent("/admin/users")}`);
          setDone(`${name} can now sign in as ${role} of ${project}.`);
          setName("");
          setPassword("");
        },
      );
    } else {
      run(
        () => addExistingMember({ project, name, role, environments }),
        () => {
          setDone(`${name} is now ${role} of ${project}.`);
          setName("");
        },
      );
    }
  };
  return (
    <form className="admin-panel add-user" onSubmit={submit} aria-label="Add a user">
      <div className="panel-head">
        <h2>Add a user</h2>
        <div className="segmented" role="radiogroup" aria-label="Account">
          <label>
            <input type="radio" name="kind" checked={kind === "new"} onChange={() => setKind("new")} disabled={pending} />
            New account
          </label>
          <label>
            <input
              type="radio"
              name="kind"
              checked={kind === "existing"}
              onChange={() => setKind("existing")}
              disabled={pending || firstAccount}
            />
            Existing account
          </label>
        </div>
      </div>
      {firstAccount ? (
        <p className="admin-note">
          This is the first account: it becomes an admin of <code>{DEFAULT_PROJECT}</code>, and from then on every page asks for a sign-in
          (open mode ends).
        </p>
      ) : null}
      <div className="fields">
        <label>
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={64} autoComplete="off" disabled={pending} />
        </label>
        {kind === "new" ? (
          <label>
            Password
            <input
              type="password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              required
              minLength={10}
              autoComplete="new-password"
              placeholder="at least 10 characters"
              disabled={pending}
            />
          </label>
        ) : null}
        <label>
          Project
          <select value={project} onChange={(e) => setProject(e.target.value)} disabled={pending || firstAccount}>
            {projects.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <label>
          Role
          <select value={role} onChange={(e) => setRole(e.target.value as Role)} disabled={pending || firstAccount}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <label>
          Environments
          <input
            value={withEnvs ? envs : ""}
            onChange={(e) => setEnvs(e.target.value)}
            placeholder={withEnvs ? "none, e.g. sandbox" : "operators and admins only"}
            disabled={pending || !withEnvs}
          />
        </label>
        <button type="submit" className="primary" disabled={pending || !project}>
          {pending ? "Adding…" : kind === "new" ? "Add user" : "Add to project"}
        </button>
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
