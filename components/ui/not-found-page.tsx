"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";

/** The id in `/runs/ID[/replay]`, decoded; null for any other path. */
function runIdOf(path: string): string | null {
  const m = /^\/runs\/([^/]+)/.exec(path);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return m[1];
  }
}

/**
 * The 404 page, for a missing page and for a run that is not there (or not in a project of
 * yours: the same answer, so it tells nothing about other projects). It names what was
 * asked for, as text, and offers the runs search with it filled in.
 */
export function NotFoundPage() {
  const path = usePathname() ?? "";
  const run = runIdOf(path);
  return (
    <section className="access-denied not-found" aria-labelledby="not-found-title">
      <span className="code">404 · Not found</span>
      {run !== null ? (
        <>
          <h1 id="not-found-title">
            No such run: <span className="mono">{run}</span>
          </h1>
          <p>It may not have been uploaded to this server yet, or it belongs to a project you are not in. Search the runs:</p>
        </>
      ) : (
        <>
          <h1 id="not-found-title">
            No page at <span className="mono">{path}</span>
          </h1>
          <p>The address may be mistyped, or the page has moved. Search the runs:</p>
        </>
      )}
      <form action="/" method="get" role="search" aria-label="Search runs" className="not-found-search">
        <input
          type="search"
          name="q"
          defaultValue={run ?? ""}
          aria-label="Search runs"
          placeholder="run id, workflow, tag, rule or finding text"
        />
        <button type="submit" className="primary">
          Search
        </button>
      </form>
      <Link href="/" prefetch={false}>
        ← All runs
      </Link>
    </section>
  );
}
