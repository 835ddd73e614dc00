import { notFound } from "next/navigation";
import { ReplayView } from "@/components/replay/replay-view";
import { bundleOf } from "@/lib/server/bundle-runs";
import { page, runParams } from "@/lib/server/edge";
import { payloadsDroppedOf } from "@/lib/server/retention";
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
  return (
    <ReplayView
      runId={params.run}
      initialDetail={detail as RunDetail}
      bundle={await bundleOf(db, params.run)}
      payloadsDropped={await payloadsDroppedOf(db, params.run)}
    />
  );
});
