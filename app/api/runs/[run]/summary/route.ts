import { NextResponse } from "next/server";
import { route, runParams } from "@/lib/server/edge";
import { getRunSummaryCached, summaryQuery } from "@/lib/server/viewer";

export const dynamic = "force-dynamic";

/**
 * The run's per-event columns: `?format=json` (default) columnar JSON (lib/graph/summary.ts),
 * `?format=binary` packed typed columns (lib/graph/summary-binary.ts, what the run page
 * reads, gzip-compressed as stored); `?after=SEQ` for what
 * came later.
 */
export const GET = route({ need: "runs.read", project: "run", params: runParams, query: summaryQuery }, async ({ db, params, query }) => {
  const notFound = () => NextResponse.json({ error: `run "${params.run}" not found` }, { status: 404 });
  if (query.format === "binary") {
    const packed = await getRunSummaryCached(db, params.run, query.after, "binary");
    if (packed === null) return notFound();
    // gzip is the body's own format (the client inflates it with DecompressionStream), not a
    // transfer encoding: Next drops a handler's Content-Encoding, and compresses no binary type
    return new Response(packed.gzip, {
      headers: { "content-type": "application/gzip", "content-length": String(packed.gzip.byteLength), "cache-control": "no-store" },
    });
  }
  const text = await getRunSummaryCached(db, params.run, query.after);
  if (text === null) return notFound();
  return new Response(text, { headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" } });
});
