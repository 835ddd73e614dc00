import { notFound } from "next/navigation";
import { BranchBar } from "@/components/live/branch-bar";
import { ReplayView } from "@/components/replay/replay-view";
import { bundleOf } from "@/lib/server/bundle-runs";
import { page, runParams } from "@/lib/server/edge";
import { payloadsDroppedOf } from "@/lib/server/retention";
import { branchInfo } from "@/lib/server/live/branches";
import { branchSideBySide, offersContinue } from "@/lib/server/live/continue";
import { ReplayBeside, SideBySide } from "@/components/live/side-by-side";
import { replayBeside } from "@/lib/server/viewer";
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
export default page({ need: "runs.read", project: "run", params: runParams }, async ({ db, params, principal, project }) => {
  const detail = await getRun(db, params.run);
  if (!detail) notFound();
  const branches = await branchInfo(db, params.run);
  const bundle = await bundleOf(db, params.run);
  const dropped = await payloadsDroppedOf(db, params.run);
  // "Continue live" from a fork is offered only to a viewer the server would let act (it decides again on the action)
  const offer = bundle === null && dropped === null && (await offersContinue(db, principal, project));
  // a replay of the agent (retrace replay -- CMD) opens beside its recording, at the gateway's first divergence
  const replay = detail.replayOf ? await replayBeside(db, params.run, project) : null;
  const view = (
    <ReplayView
      runId={params.run}
      initialDetail={detail as RunDetail}
      bundle={bundle}
      payloadsDropped={dropped}
      live={offer ? { offer, signedIn: principal.kind === "user" } : null}
      openAt={replay?.firstDivergence ?? undefined}
    />
  );
  // branch runs live actions made, under their original (and a branch names its original, beside it)
  if (!branches.of && branches.children.length === 0 && !replay) return view;
  const beside = branches.of ? await branchSideBySide(db, params.run, project) : null;
  return (
    <div className="rp-page">
      <BranchBar branches={branches} />
      {beside ? <SideBySide view={beside} /> : null}
      {replay ? <ReplayBeside view={replay} /> : null}
      {view}
    </div>
  );
});
