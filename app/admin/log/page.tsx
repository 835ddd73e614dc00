import Link from "next/link";
import { administeredProjects } from "@/lib/server/access/admin";
import { listAudit, verifyAudit } from "@/lib/server/access/audit-log";
import { page } from "@/lib/server/edge";
import { describeAuditDetail } from "@/lib/view/format";

export const dynamic = "force-dynamic";
export const metadata = { title: "Log · Admin · Retrace" };

const PAGE = 50;

type Props = { params?: Promise<unknown>; searchParams: Promise<{ before?: string | string[] }> };

/**
 * The privileged-action log, newest first, 50 entries a page (`?before=SEQ` for older):
 * the entries of the projects the viewer administers (open mode: all), and at the top
 * whether the whole hash chain still verifies.
 */
export default page({ need: "project.admin", project: "admin" }, async ({ db, principal, mode }, { searchParams }: Props) => {
  const raw = (await searchParams).before;
  const before = typeof raw === "string" && /^\d{1,9}$/.test(raw) ? Number(raw) : undefined;
  const projects = mode === "open" ? "all" : await administeredProjects(db, principal);
  const entries = await listAudit(db, { projects, before, limit: PAGE });
  const chain = await verifyAudit(db);
  const oldest = entries.at(-1)?.seq;
  return (
    <>
      <header className="admin-head">
        <h1>Privileged-action log</h1>
        <p>
          Every change to users, roles, keys and projects, from this page or the CLI, with who made it and the result; append-only.
          {mode === "open" ? " Open mode shows every project's entries." : " Entries of the projects you administer."}
        </p>
      </header>
      <p className={`chain-status ${chain.ok ? "good" : "bad"}`} role="status">
        {chain.ok ? (
          <>
            <b>Chain verified:</b> none of the log&apos;s {chain.entries.toLocaleString("en-US")} entries (every project&apos;s) was
            changed, removed or reordered.
          </>
        ) : (
          <>
            <b>Chain broken at entry {chain.brokenAt}:</b> {chain.reason}. The {chain.entries.toLocaleString("en-US")} entries before it
            verify; <code>npm run -s retrace -- log verify</code> says the same.
          </>
        )}
      </p>
      {entries.length === 0 ? (
        <p className="admin-empty">{before ? "No older entries." : "No entries yet."}</p>
      ) : (
        <div className="admin-table-wrap">
          <table className="admin-table audit-table" aria-label="Privileged actions">
            <thead>
              <tr>
                <th className="num">Seq</th>
                <th>Time (UTC)</th>
                <th>Actor</th>
                <th>Action</th>
                <th>Project</th>
                <th>Target</th>
                <th>Reason</th>
                <th>Result</th>
                <th>Detail</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.seq}>
                  <td className="num mono">{e.seq}</td>
                  <td className="when" title={e.ts}>
                    <span>{e.ts.slice(0, 10)}</span> <span>{e.ts.slice(11, 19)}</span>
                  </td>
                  <td className="clip" title={e.actor}>
                    {e.actor}
                  </td>
                  <td className="mono nowrap">{e.action}</td>
                  <td className="mono">{e.project ?? "—"}</td>
                  <td className="clip" title={e.target ?? undefined}>
                    {e.target ?? "—"}
                  </td>
                  <td className="clip" title={e.reason ?? undefined}>
                    {e.reason ?? "—"}
                  </td>
                  <td>
                    <span className={`badge ${e.result === "ok" ? "good" : e.result === "refused" ? "warn" : "bad"}`}>{e.result}</span>
                  </td>
                  <td className="detail mono" title={e.detail}>
                    {describeAuditDetail(e.detail)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav className="admin-pager" aria-label="Log pages">
        {before ? (
          <Link href="/admin/log" prefetch={false}>
            ← Newest
          </Link>
        ) : null}
        {entries.length === PAGE && oldest !== undefined ? (
          <Link href={`/admin/log?before=${oldest}`} prefetch={false}>
            Older entries →
          </Link>
        ) : null}
      </nav>
    </>
  );
});
