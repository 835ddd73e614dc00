"use client";
import { useQueries, useQueryClient } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { EMPTY_FILTERS, filtersFromParams, isFiltered, paramsFromFilters, type RunFilters } from "@/lib/view/run-filters";
import { fetchJson } from "@/components/data/fetch-json";
import { runKeys, runsKeys } from "@/components/data/query-keys";
import type { RunDetail, RunListItem } from "@/lib/view/api-types";
import { UPLOAD_ACCEPT, UPLOAD_EXTENSIONS } from "@/lib/view/upload-text";
import { EmptyState } from "./empty-state";
import { RunFiltersBar } from "./run-filters-bar";
import { RunsTable } from "./runs-table";
import { uploadedRunIds } from "@/lib/view/upload-text";
import { UploadReport } from "./upload-report";
import { useRuns } from "./use-runs";
import { useUpload } from "./use-upload";

interface RunsPageProps {
  origin: string;
  /** the projects the viewer can read: the list shows a Project column and filter when there are several */
  projects: string[];
  /** where an upload from this page goes (the user menu's project) */
  uploadProject: string;
  /** the viewer may export audit bundles from at least one project: runs can be selected */
  canExport?: boolean;
}

/** The runs list: filters live in the URL; uploads by button or by dropping files anywhere. */
export function RunsPage({ origin, projects, uploadProject, canExport = false }: RunsPageProps) {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const filters = useMemo(() => filtersFromParams(new URLSearchParams(params.toString())), [params]);
  const setFilters = useCallback(
    (f: RunFilters) => {
      const q = paramsFromFilters(f).toString();
      router.replace(q ? `${pathname}?${q}` : pathname, { scroll: false });
    },
    [router, pathname],
  );
  const runs = useRuns(filters);
  const qc = useQueryClient();
  const onStored = useCallback(() => void qc.invalidateQueries({ queryKey: runsKeys.all }), [qc]);
  const { items, upload, clear } = useUpload(onStored);
  const fileInput = useRef<HTMLInputElement>(null);
  const dragging = useDropZone(upload);

  const listed = runs.data?.pages.flatMap((p) => p.runs) ?? [];
  // the runs just uploaded come first, so a file whose runs started long ago is not lost in the list
  const uploaded = useMemo(() => uploadedRunIds(items.map((i) => i.answer)), [items]);
  // ...also when they are not on the pages loaded (older than the newest 50): read one by one
  const missing = uploaded.filter((id) => !listed.some((r) => r.id === id));
  const fetched = useQueries({
    queries: missing.map((id) => ({
      queryKey: runKeys.detail(id),
      queryFn: ({ signal }: { signal: AbortSignal }) => fetchJson<RunDetail>(`/api/runs/${encodeURIComponent(id)}`, signal),
    })),
  });
  const all: RunListItem[] = [...fetched.flatMap((q) => (q.data ? [q.data] : [])), ...listed];
  const loaded = runs.isSuccess;
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const selection = useMemo(
    () => ({
      selected,
      toggle: (ids: readonly string[], on: boolean) =>
        setSelected((prev) => {
          const next = new Set(prev);
          for (const id of ids) {
            if (on) next.add(id);
            else next.delete(id);
          }
          return next;
        }),
    }),
    [selected],
  );
  return (
    <div className="runs-page" data-ready={loaded ? "true" : "false"}>
      <div className="runs-toolbar">
        <h1>Runs</h1>
        <input
          ref={fileInput}
          type="file"
          accept={UPLOAD_ACCEPT}
          multiple
          hidden
          aria-label="Journal and trace files"
          onChange={(e) => {
            void upload(Array.from(e.target.files ?? []));
            e.target.value = "";
          }}
        />
        <span className="sub" style={{ color: "var(--muted)", fontSize: 12 }}>
          journals and trace exports ({UPLOAD_EXTENSIONS.join(", ")}): pick them or drop them anywhere on this page
          {projects.length > 1 ? (
            <>
              {" "}
              · uploads go to project <b className="mono">{uploadProject}</b>
            </>
          ) : null}
        </span>
        <button type="button" className="primary" onClick={() => fileInput.current?.click()}>
          Upload runs
        </button>
      </div>
      <RunFiltersBar filters={filters} onChange={setFilters} projects={projects} />
      {items.length > 0 ? <UploadReport items={items} onClear={clear} /> : null}
      {runs.isError ? (
        <p role="alert" className="bad">
          Could not load runs: {runs.error.message}
        </p>
      ) : null}
      {loaded && all.length === 0 ? (
        <EmptyState
          origin={origin}
          filtered={isFiltered(filters)}
          onClearFilters={() => setFilters({ ...EMPTY_FILTERS, sort: filters.sort })}
        />
      ) : null}
      {canExport && selected.size > 0 ? <SelectionBar selected={selected} onClear={() => setSelected(new Set())} /> : null}
      {all.length > 0 ? (
        <RunsTable
          runs={all}
          showProject={projects.length > 1}
          pinned={uploaded}
          selection={canExport ? selection : undefined}
          searched={filters.q}
        />
      ) : null}
      {!loaded && !runs.isError ? <div className="skeleton">Loading runs…</div> : null}
      <div className="runs-footer">
        {runs.hasNextPage ? (
          <button type="button" onClick={() => void runs.fetchNextPage()} disabled={runs.isFetchingNextPage}>
            {runs.isFetchingNextPage ? "Loading…" : "Load more runs"}
          </button>
        ) : all.length > 0 ? (
          <span>
            {all.length.toLocaleString("en-US")} run{all.length === 1 ? "" : "s"}
          </span>
        ) : null}
      </div>
      {dragging ? <div className="drop-overlay">Drop journal files to upload</div> : null}
    </div>
  );
}

/**
 * What to do with the runs ticked: one audit bundle of them all (a download; the server
 * checks audit.export on every run's project and logs the export once).
 */
function SelectionBar({ selected, onClear }: { selected: ReadonlySet<string>; onClear: () => void }) {
  const [profile, setProfile] = useState("reviewer");
  const ids = [...selected];
  const tooMany = ids.length > MAX_SELECTION;
  return (
    <div className="selection-bar" role="region" aria-label="Selected runs">
      <b>
        {ids.length.toLocaleString("en-US")} run{ids.length === 1 ? "" : "s"} selected
      </b>
      <select aria-label="Bundle profile" value={profile} onChange={(e) => setProfile(e.target.value)}>
        <option value="secrets">secrets</option>
        <option value="reviewer">reviewer</option>
        <option value="public">public</option>
      </select>
      {tooMany ? (
        <span className="bad">a bundle holds at most {MAX_SELECTION} runs</span>
      ) : (
        // a form POST, not a link: an export is logged, so no other site may start one by navigation
        <form
          className="inline-form"
          method="post"
          action={`/api/bundles?runs=${ids.map(encodeURIComponent).join(",")}&profile=${profile}`}
        >
          <button type="submit" className="primary">
            Export selected
          </button>
        </form>
      )}
      <button type="button" onClick={onClear}>
        Clear selection
      </button>
    </div>
  );
}

/** The server's limit (lib/server/evidence.ts MAX_BUNDLE_RUNS), said here before asking. */
const MAX_SELECTION = 100;

/** True while files are dragged over the window; dropped files go to `onFiles`. */
function useDropZone(onFiles: (files: File[]) => void): boolean {
  const [dragging, setDragging] = useState(false);
  useEffect(() => {
    let depth = 0;
    const hasFiles = (e: DragEvent) => Array.from(e.dataTransfer?.types ?? []).includes("Files");
    const enter = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      depth++;
      setDragging(true);
    };
    const leave = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) setDragging(false);
    };
    const over = (e: DragEvent) => {
      if (hasFiles(e)) e.preventDefault();
    };
    const drop = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth = 0;
      setDragging(false);
      onFiles(Array.from(e.dataTransfer?.files ?? []));
    };
    window.addEventListener("dragenter", enter);
    window.addEventListener("dragleave", leave);
    window.addEventListener("dragover", over);
    window.addEventListener("drop", drop);
    return () => {
      window.removeEventListener("dragenter", enter);
      window.removeEventListener("dragleave", leave);
      window.removeEventListener("dragover", over);
      window.removeEventListener("drop", drop);
    };
  }, [onFiles]);
  return dragging;
}
