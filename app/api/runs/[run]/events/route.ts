import { NextResponse } from "next/server";
import { route, runParams } from "@/lib/server/edge";
import { jsonError, requireNdjson } from "@/lib/server/http";
import { ingestStatus } from "@/lib/server/ingest-status";
import { eventsQuery, listEventBodies, runHasEvents } from "@/lib/server/queries";
import { ingestBytes } from "@/lib/server/service";
import { storedEventJson } from "@/lib/server/viewer-queries";
import type { AppendAnswer, AppendRejected } from "@/lib/view/api-types";

export const dynamic = "force-dynamic";

/**
 * Live append, idempotent by seq: an identical resend is a duplicate, a different event at
 * a taken seq is a 409 naming it. Answers {accepted, duplicates, nextSeq}.
 */
export const POST = route({ need: "runs.write", project: "run-or-new", params: runParams }, async ({ db, req, params, project }) => {
  const { run } = params;
  const wrongType = requireNdjson(req);
  if (wrongType) return wrongType;
  if (!req.body) return jsonError(400, "empty body: send one NDJSON event per line");
  const result = await ingestBytes(db, req.body, { mode: "stream", source: "stream", onlyRun: run, project });
  const status = ingestStatus(result, "stream");
  const outcome = result.runs.find((r) => r.run === run);
  if (status >= 400) {
    const conflict = result.errors.find((e) => e.kind === "conflict");
    return NextResponse.json(
      {
        error:
          result.tooLarge ??
          result.format?.message ??
          result.unreadable ??
          result.stopped ??
          (conflict ? conflict.message : "the batch was rejected; nothing was stored"),
        errors: result.errors,
        ...(result.moreErrors ? { moreErrors: result.moreErrors } : {}),
        ...(conflict ? { seq: conflict.seq } : {}),
      } satisfies AppendRejected,
      { status },
    );
  }
  return NextResponse.json(
    {
      accepted: outcome?.accepted ?? 0,
      duplicates: outcome?.duplicates ?? 0,
      nextSeq: outcome?.nextSeq ?? 0,
      warnings: result.warnings,
      ...(result.moreWarnings ? { moreWarnings: result.moreWarnings } : {}),
    } satisfies AppendAnswer,
    { status: 200 },
  );
});

/** Events after a seq, in order: `?after=SEQ&limit=N`. Bodies are the stored (redacted) events. */
export const GET = route({ need: "runs.read", project: "run", params: runParams, query: eventsQuery }, async ({ db, params, query }) => {
  const { run } = params;
  const rows = await listEventBodies(db, run, query.after, query.limit);
  if (rows.length === 0 && !(await runHasEvents(db, run))) return jsonError(404, `no run "${run}"`);
  const parts = rows.map(storedEventJson);
  const last = rows[rows.length - 1];
  const nextAfter = rows.length === query.limit && last ? Number(last.seq) : null;
  return new Response(`{"events":[${parts.join(",")}],"nextAfter":${nextAfter}}`, {
    headers: { "content-type": "application/json; charset=utf-8" },
  });
});
