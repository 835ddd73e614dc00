import type { Metadata } from "next";
import Link from "next/link";
import { cookies } from "next/headers";
import { ThemeToggle } from "@/components/theme/theme-toggle";
import { MainNav } from "@/components/access/main-nav";
import { UserMenu } from "@/components/access/user-menu";
import { viewerInfo } from "@/lib/server/edge";
import { Providers } from "./providers";
import "@xyflow/react/dist/style.css";
import "./globals.css";

export const metadata: Metadata = {
  title: "Retrace",
  description: "Replay debugger for AI agent runs",
  // inline, so no request for /favicon.ico (and no 404 in the console)
  icons: {
    icon: "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='3' fill='%233b5bdb'/%3E%3Cpath d='M4 12V4h4.5a2.5 2.5 0 0 1 0 5H4m4.5 0L12 12' stroke='white' stroke-width='1.6' fill='none'/%3E%3C/svg%3E",
  },
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // the chosen theme travels in a cookie so the server renders it: no flash, no inline script
  const chosen = (await cookies()).get("retrace-theme")?.value;
  const theme = chosen === "light" || chosen === "dark" ? chosen : undefined;
  const viewer = await viewerInfo();
  return (
    <html lang="en" data-theme={theme}>
      <body>
        <Providers>
          <header className="app-header">
            <Link href="/" className="brand" prefetch={false}>
              Retrace
            </Link>
            {/* a locked server shows a visitor who is not signed in nothing to go to but the sign-in */}
            {viewer.mode === "open" || viewer.user ? <MainNav admin={viewer.admin} /> : <span className="header-fill" />}
            {viewer.user ? <UserMenu name={viewer.user.name} projects={viewer.user.projects} project={viewer.project} /> : null}
            <ThemeToggle initial={theme ?? "system"} />
          </header>
          {viewer.mode === "open" ? (
            <p
              className="open-mode-banner"
              role="status"
              title="No accounts or keys exist, so anyone who can reach this loopback address can read and upload runs. The first admin account (or key) locks the server."
            >
              <b>Open mode</b>: anyone who can reach this address can read and upload runs. To require sign-in:{" "}
              <code>npm run -s retrace -- user add NAME --role admin</code>
            </p>
          ) : null}
          <main className="app-main">{children}</main>
        </Providers>
      </body>
    </html>
  );
}
