"use client";
import { useRouter } from "next/navigation";
import { useTransition } from "react";
import { chooseProject } from "@/app/actions/projects";
import { signOut } from "@/app/actions/session";

interface UserMenuProps {
  name: string;
  projects: { id: string; role: string }[];
  project: string | null;
}

/** Who is signed in, the current project (where uploads from the runs list go), sign out. */
export function UserMenu({ name, projects, project }: UserMenuProps) {
  const [pending, start] = useTransition();
  const router = useRouter();
  const current = projects.find((p) => p.id === project);
  return (
    <div className="user-menu">
      {projects.length > 0 ? (
        <label className="project-picker" title="The current project: uploads from the runs list go here">
          <span aria-hidden="true">Project</span>
          <select
            aria-label="Project"
            value={project ?? ""}
            disabled={pending}
            onChange={(e) => {
              const id = e.target.value;
              start(async () => {
                await chooseProject({ project: id });
                router.refresh();
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
      <span className="user-chip" title={current ? `Signed in as ${name}, ${current.role} in ${current.id}` : `Signed in as ${name}`}>
        <span className="avatar" aria-hidden="true">
          {name.slice(0, 1).toUpperCase()}
        </span>
        <span className="user-name">{name}</span>
      </span>
      <form action={async () => void (await signOut({}))}>
        <button type="submit" className="link-button">
          Sign out
        </button>
      </form>
    </div>
  );
}
