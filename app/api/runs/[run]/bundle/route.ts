import { z } from "zod";
import { actorOf } from "@/lib/access/roles";
import { PROFILES } from "@/lib/evidence/profiles";
import { route, runParams } from "@/lib/server/edge";
import { exportBundle } from "@/lib/server/evidence";

export const dynamic = "force-dynamic";

const bundleQuery = z.object({ profile: z.enum(PROFILES).default("reviewer") });

/**
 * An audit bundle of the run (audit.export: reviewer and up); each export is written to the
 * privileged-action log, so it is a POST: no cross-site navigation may start one (the edge
 * refuses a cross-origin POST).
 */
export const POST = route(
  { need: "audit.export", project: "run", params: runParams, query: bundleQuery },
  async ({ db, params, query, principal }) => {
    const r = await exportBundle(db, { runs: [params.run], profile: query.profile, exporter: actorOf(principal) });
    const name = `${params.run.replace(/[^A-Za-z0-9._-]/g, "_")}.${query.profile}.retrace-bundle.tar.gz`;
    return new Response(Buffer.from(r.bytes), {
      headers: {
        "content-type": "application/gzip",
        "content-disposition": `attachment; filename="${name}"`,
        "cache-control": "no-store",
        "x-retrace-bundle-sha256": r.sha256,
      },
    });
  },
);
