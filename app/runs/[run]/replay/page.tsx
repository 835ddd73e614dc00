import { notFound } from "next/navigation";
import { BranchBar } from "@/components/live/branch-bar";
import { ReplayView } from "@/components/replay/replay-view";
import { bundleOf } from "@/lib/server/bundle-runs";
import { page, runParams } from "@/lib/server/edge";
import { payloadsDroppedOf } from "@/lib/server/retention";
import { branchInfo } from "@/lib/server/live/actions";
import { getRun } from "@/lib/server/queries";
import type { RunDetail } from "@/lib/view/api-types";
import "@/components/replay/replay.css";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ run: string }> };

export async function generateMetadata({ params }: Props) {
  const { run } = await params;
  return { title: `Replay · ${run} · Retrace` };
}

/**
 * Side-by-side replay of a run (reconstruct, or a what-if fork given as `?fork=SEQ&override=JSON`).
 * The header comes with the HTML; the events are fetched and replayed in the browser.
 */
export default page({ need: "runs.read", project: "run", params: runParams }, async ({ db, params }) => {
  const detail = await getRun(db, params.run);
  if (!detail) notFound();
  const branches = await branchInfo(db, params.run);
  const view = (
    <ReplayView
      runId={params.run}
      initialDetail={detail as RunDetail}
      bundle={await bundleOf(db, params.run)}
      payloadsDropped={await payloadsDroppedOf(db, params.run)}
    />
  );
  // branch runs live actions made, under their original (and a branch names its original)
  if (!branches.of && branches.children.length === 0) return view;
  return (
    <div className="rp-page">
      <BranchBar branches={branches} />
      {view}
    </div>
  );
});
