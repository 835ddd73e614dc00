import { headers } from "next/headers";
import { Suspense } from "react";
import { RunsPage } from "@/components/runs/runs-page";

export const dynamic = "force-dynamic";

/** The runs list. The origin is the one the browser used, so the empty state's commands work when pasted. */
export default async function HomePage() {
  const h = await headers();
  const host = h.get("x-forwarded-host") ?? h.get("host") ?? "127.0.0.1:3000";
  const proto = h.get("x-forwarded-proto") ?? "http";
  return (
    <Suspense fallback={<div className="skeleton">Loading runs…</div>}>
      <RunsPage origin={`${proto}://${host}`} />
    </Suspense>
  );
}
