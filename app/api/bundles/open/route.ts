import { NextResponse } from "next/server";
import { actorOf } from "@/lib/access/roles";
import { isBodyLimit, limitBytes } from "@/lib/server/body-limits";
import { BundleRefused, openBundle } from "@/lib/server/bundle-runs";
import { route } from "@/lib/server/edge";

export const dynamic = "force-dynamic";

/**
 * Opens an uploaded audit bundle as read-only runs of the caller's project (or
 * `?project=`): reviewer and up (audit.export). 201 with the runs' ids; 422 naming every
 * failure when the bundle does not verify (nothing stored); 413 over RETRACE_MAX_DOCUMENT_BYTES.
 */
export const POST = route({ need: "audit.export", project: "write" }, async ({ req, db, project, principal }) => {
  const parts: Uint8Array[] = [];
  try {
    if (req.body)
      for await (const c of limitBytes(req.body, db.config.limits.maxDocumentBytes, "RETRACE_MAX_DOCUMENT_BYTES")) parts.push(c);
  } catch (e) {
    if (isBodyLimit(e)) return NextResponse.json({ error: e.message }, { status: 413 });
    throw e;
  }
  try {
    const r = await openBundle(db, Buffer.concat(parts), { project, actor: actorOf(principal) });
    return NextResponse.json({ project, ...r }, { status: 201 });
  } catch (e) {
    if (e instanceof BundleRefused) return NextResponse.json({ error: e.message, failures: e.failures }, { status: 422 });
    throw e;
  }
});
