import { notFound } from "next/navigation";
import { preload } from "react-dom";
import { RunView } from "@/components/run/run-view";
import { mayOnProject, page, runParams } from "@/lib/server/edge";
import { bundleOf } from "@/lib/server/bundle-runs";
import { listNotes } from "@/lib/server/evidence";
import { offersLive } from "@/lib/server/live/authorize";
import { branchInfo } from "@/lib/server/live/branches";
import { getRun } from "@/lib/server/queries";
import { legalHoldOf, payloadsDroppedOf } from "@/lib/server/retention";
import type { RunDetail } from "@/lib/view/api-types";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ run: string }>; searchParams: Promise<{ event?: string | string[]; tab?: string | string[] }> };

export async function generateMetadata({ params }: Props) {
  const { run } = await params;
  return { title: `${run} · Retrace` };
}

/**
 * The run page. The header comes with the HTML; the event summary (the big part) is
 * preloaded by the browser while the scripts load, and read through TanStack Query.
 */
export default page(
  { need: "runs.read", project: "run", params: runParams },
  async ({ db, params, principal, project }, { searchParams }: Props) => {
    const { run } = params;
    const sp = await searchParams;
    const detail = await getRun(db, run);
    if (!detail) notFound();
    preload(`/api/runs/${encodeURIComponent(run)}/summary?format=binary`, { as: "fetch", crossOrigin: "anonymous" });
    const raw = Array.isArray(sp.event) ? sp.event[0] : sp.event;
    const initialSeq = raw !== undefined && /^\d{1,10}$/.test(raw) ? Number(raw) : null;
    const tab = Array.isArray(sp.tab) ? sp.tab[0] : sp.tab;
    const initialTab = tab === "findings" || tab === "notes" || tab === "events" ? tab : undefined;
    const notes = await listNotes(db, run);
    // a run opened from a bundle is read-only: no note form, no export (the server refuses both too)
    const bundle = await bundleOf(db, run);
    const dropped = await payloadsDroppedOf(db, run);
    return (
      <RunView
        runId={run}
        initialDetail={detail as RunDetail}
        initialSeq={initialSeq}
        initialTab={initialTab}
        hold={{ held: await legalHoldOf(db, run), canSet: mayOnProject(principal, "project.admin", project) }}
        notes={notes}
        may={{
          note: !bundle && mayOnProject(principal, "notes.write", project),
          export: !bundle && mayOnProject(principal, "audit.export", project),
        }}
        bundle={bundle}
        payloadsDropped={dropped}
        live={{ offer: !bundle && !dropped && (await offersLive(db, principal, project)), signedIn: principal.kind === "user" }}
        branches={await branchInfo(db, run)}
      />
    );
  },
);
