"use client";
import Link from "next/link";
import { useTransition } from "react";
import { chooseProject } from "@/app/actions/projects";
import { signOut } from "@/app/actions/session";

export interface UserMenuProps {
  name: string;
  projects: { id: string; role: string }[];
  project: string | null;
  admin: boolean;
}

/** Who is signed in, the current project (what the runs list and uploads use), admin pages, sign out. */
export function UserMenu({ name, projects, project, admin }: UserMenuProps) {
  const [pending, start] = useTransition();
  const current = projects.find((p) => p.id === project);
  return (
    <div className="user-menu">
      {projects.length > 0 ? (
        <label className="project-picker">
          <span className="visually-hidden">Project</span>
          <select
            aria-label="Project"
            value={project ?? ""}
            disabled={pending}
            onChange={(e) => {
              const id = e.target.value;
              start(async () => {
                await chooseProject({ project: id });
                window.location.assign("/");
              });
            }}
          >
            {projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.id} · {p.role}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {admin ? (
        <Link href="/admin" prefetch={false}>
          Admin
        </Link>
      ) : null}
      <span className="user-name" title={current ? `${current.role} in ${current.id}` : undefined}>
        {name}
      </span>
      <form action={async () => void (await signOut({}))}>
        <button type="submit" className="link-button">
          Sign out
        </button>
      </form>
    </div>
  );
}
