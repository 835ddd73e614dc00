"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";

const SECTIONS = [
  ["/admin", "Overview"],
  ["/admin/users", "Users"],
  ["/admin/keys", "Keys"],
  ["/admin/projects", "Projects"],
  ["/admin/executors", "Executors"],
  ["/admin/log", "Log"],
] as const;

/** The admin pages' tabs; the current one is marked for screen readers too. */
export function AdminNav() {
  const path = usePathname();
  return (
    <nav className="admin-nav" aria-label="Admin">
      {SECTIONS.map(([href, label]) => {
        const current = href === "/admin" ? path === "/admin" : path.startsWith(href);
        return (
          <Link key={href} href={href} prefetch={false} aria-current={current ? "page" : undefined}>
            {label}
          </Link>
        );
      })}
    </nav>
  );
}
