import { NextResponse } from "next/server";
import { getDb } from "@/lib/server/db";
import { jsonError, parseQuery, requireNdjson, requireRole } from "@/lib/server/http";
import { ingestStatus } from "@/lib/server/ingest-status";
import { eventsQuery, listEventBodies, runHasEvents } from "@/lib/server/queries";
import { ingestBytes } from "@/lib/server/service";
import { storedEventJson } from "@/lib/server/viewer-queries";
import type { AppendAnswer, AppendRejected } from "@/lib/view/api-types";
import { RUN_ID_PATTERN } from "@/lib/journal/schema";

export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ run: string }> };

/**
 * Live append, idempotent by seq: an identical resend is a duplicate, a different event at
 * a taken seq is a 409 naming it. Answers {accepted, duplicates, nextSeq}.
 */
export async function POST(req: Request, ctx: Ctx) {
  const denied = requireRole(req, "ingest");
  if (denied) return denied;
  const { run } = await ctx.params;
  if (!RUN_ID_PATTERN.test(run)) return jsonError(400, "run id must be 1 to 128 characters of A-Z a-z 0-9 . _ : -");
  const wrongType = requireNdjson(req);
  if (wrongType) return wrongType;
  if (!req.body) return jsonError(400, "empty body: send one NDJSON event per line");
  const db = getDb();
  const result = await ingestBytes(db, req.body, { mode: "stream", source: "stream", onlyRun: run });
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
          (conflict ? conflict.message : "the batch was rejected; nothing was stored"),
        errors: result.errors,
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
    } satisfies AppendAnswer,
    { status: 200 },
  );
}

/** Events after a seq, in order: `?after=SEQ&limit=N`. Bodies are the stored (redacted) events. */
export async function GET(req: Request, ctx: Ctx) {
  const denied = requireRole(req, "read");
  if (denied) return denied;
  const { run } = await ctx.params;
  const q = parseQuery(eventsQuery, req.url);
  if (!q.ok) return q.response;
  const db = getDb();
  const rows = await listEventBodies(db, run, q.data.after, q.data.limit);
  if (rows.length === 0 && !(await runHasEvents(db, run))) return jsonError(404, `no run "${run}"`);
  const parts = rows.map(storedEventJson);
  const last = rows[rows.length - 1];
  const nextAfter = rows.length === q.data.limit && last ? Number(last.seq) : null;
  return new Response(`{"events":[${parts.join(",")}],"nextAfter":${nextAfter}}`, {
    headers: { "content-type": "application/json; charset=utf-8" },
  });
}
