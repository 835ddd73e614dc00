"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";

/** The header's sections; Admin only for someone who administers a project (or open mode). */
export function MainNav({ admin }: { admin: boolean }) {
  const path = usePathname();
  const inAdmin = path === "/admin" || path.startsWith("/admin/");
  return (
    <nav aria-label="Main">
      <Link href="/" prefetch={false} aria-current={path === "/" ? "page" : undefined}>
        Runs
      </Link>
      <Link href="/verify" prefetch={false} aria-current={path === "/verify" ? "page" : undefined}>
        Verify
      </Link>
      {admin ? (
        <Link href="/admin" prefetch={false} aria-current={inAdmin ? "page" : undefined}>
          Admin
        </Link>
      ) : null}
    </nav>
  );
}
