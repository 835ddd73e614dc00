import { Suspense } from "react";
import { RunsPage } from "@/components/runs/runs-page";
import { page, serverOrigin } from "@/lib/server/edge";

export const dynamic = "force-dynamic";

/** The runs list (of the projects the viewer may read). The origin is the one the browser used, so the empty state's commands work when pasted. */
export default page({ need: "runs.read", project: "any" }, async () => (
  <Suspense fallback={<div className="skeleton">Loading runs…</div>}>
    <RunsPage origin={await serverOrigin()} />
  </Suspense>
));
