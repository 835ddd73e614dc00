import { z } from "zod";
import { actorOf } from "@/lib/access/roles";
import { PROFILES } from "@/lib/evidence/profiles";
import { route } from "@/lib/server/edge";
import { authorizeExport, exportBundle, MAX_BUNDLE_RUNS } from "@/lib/server/evidence";

export const dynamic = "force-dynamic";

const bundlesQuery = z.object({
  // comma-separated: a run id never holds a comma
  runs: z
    .string()
    .min(1, "name at least one run: ?runs=A,B")
    .transform((s) => s.split(",").filter(Boolean))
    .refine((ids) => ids.length >= 1 && ids.length <= MAX_BUNDLE_RUNS, `name 1 to ${MAX_BUNDLE_RUNS} runs`),
  profile: z.enum(PROFILES).default("reviewer"),
});

/**
 * One audit bundle of a selection of runs (the runs list's "Export selected"): needs
 * audit.export on the project of every run (a run not visible: 404); one privileged-action
 * log entry for the whole bundle. A POST: an export is logged in the caller's name, so no
 * cross-site navigation may start one (the edge refuses a cross-origin POST).
 */
export const POST = route({ need: "audit.export", project: "any", query: bundlesQuery }, async ({ db, query, principal }) => {
  await authorizeExport(db, principal, query.runs);
  const r = await exportBundle(db, { runs: query.runs, profile: query.profile, exporter: actorOf(principal) });
  const name = `retrace-${r.runs.length}-runs.${query.profile}.retrace-bundle.tar.gz`;
  return new Response(Buffer.from(r.bytes), {
    headers: {
      "content-type": "application/gzip",
      "content-disposition": `attachment; filename="${name}"`,
      "cache-control": "no-store",
      "x-retrace-bundle-sha256": r.sha256,
    },
  });
});
