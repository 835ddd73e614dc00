import { NextResponse } from "next/server";
import { actorOf } from "@/lib/access/roles";
import { ArchiveTooLarge } from "@/lib/evidence";
import { readCappedBody } from "@/lib/server/body-limits";
import { BundleRefused, openBundle } from "@/lib/server/bundle-runs";
import { route } from "@/lib/server/edge";

export const dynamic = "force-dynamic";

/**
 * Opens an uploaded audit bundle as read-only runs of the caller's project (or
 * `?project=`): reviewer and up (audit.export). 201 with the runs' ids; 422 naming every
 * failure when the bundle does not verify (nothing stored); 413 over RETRACE_MAX_DOCUMENT_BYTES (the body, or what it inflates to).
 */
export const POST = route({ need: "audit.export", project: "write" }, async ({ req, db, project, principal }) => {
  // an over-limit body is drained, then answered (no connection reset)
  const bytes = await readCappedBody(
    req.body,
    db.config.limits.maxDocumentBytes,
    "RETRACE_MAX_DOCUMENT_BYTES",
    db.config.limits.maxBodyBytes,
  );
  if (!(bytes instanceof Uint8Array)) return NextResponse.json({ error: bytes.tooLarge }, { status: 413 });
  try {
    const r = await openBundle(db, bytes, { project, actor: actorOf(principal) });
    return NextResponse.json({ project, ...r }, { status: 201 });
  } catch (e) {
    if (e instanceof BundleRefused) return NextResponse.json({ error: e.message, failures: e.failures }, { status: 422 });
    if (e instanceof ArchiveTooLarge) return NextResponse.json({ error: `${e.message} (RETRACE_MAX_DOCUMENT_BYTES)` }, { status: 413 });
    throw e;
  }
});
