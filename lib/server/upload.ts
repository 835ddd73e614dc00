import "server-only";
/**
 * POST /api/journals and POST /api/imports (the UI's upload button) as one function: the
 * request body streams into `importStream`, which accepts journals only or any supported
 * format; the answer is the same shape and status for both, /api/imports adding the
 * detected format. The routes stay thin (authorisation, then this). Every list in the
 * answer is bounded: runs here, errors and warnings by ingest (ingest/issues.ts).
 */
import type { Db } from "./db";
import { declaredTooLarge } from "./body-limits";
import { uploadTypeProblem } from "./http";
import { ingestStatus } from "./ingest-status";
import { importStream } from "./service";

export interface UploadAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** Runs listed in an answer; `moreRuns` counts the rest (a body of many small runs answers in kilobytes). */
export const LISTED_RUNS = 1000;

const error = (status: number, message: string): UploadAnswer => ({ status, body: { error: message } });

/** `project`: where new runs go, as the edge authorized it. */
export async function answerUpload(db: Db, req: Request, accept: "journal" | "any", project: string): Promise<UploadAnswer> {
  const wrongType = uploadTypeProblem(req, accept);
  if (wrongType) return error(415, wrongType);
  const declared = declaredTooLarge(req.headers, db.config.limits.maxBodyBytes);
  if (declared) return error(413, declared);
  if (!req.body)
    return error(400, accept === "journal" ? "the body is empty: send one JSON event per line" : "the body is empty: send a file");
  const name = new URL(req.url).searchParams.get("name")?.slice(0, 200) || undefined;
  const result = await importStream(db, req.body, {
    accept,
    fileName: name,
    source: accept === "journal" ? "upload" : "import",
    project,
    warmViewer: true,
  });
  const problem = result.tooLarge ?? result.unreadable ?? result.format?.message ?? result.stopped;
  const refused = result.format ? { format: result.format.format } : {};
  // both lists are bounded (ingest/issues.ts): the first errors and warnings, then counts
  const more = {
    ...(result.runs.length > LISTED_RUNS ? { moreRuns: result.runs.length - LISTED_RUNS } : {}),
    ...(result.moreErrors ? { moreErrors: result.moreErrors } : {}),
    ...(result.moreWarnings ? { moreWarnings: result.moreWarnings } : {}),
  };
  // the status counts every run (ingestStatus); the answer lists the first LISTED_RUNS
  const runs = result.runs.length > LISTED_RUNS ? result.runs.slice(0, LISTED_RUNS) : result.runs;
  const body =
    accept === "journal"
      ? { runs: runs, errors: result.errors, warnings: result.warnings, ...more, ...(problem ? { error: problem } : {}), ...refused }
      : {
          format: result.detected?.format,
          formatLabel: result.detected?.label,
          runs: runs,
          errors: result.errors,
          warnings: [...result.warnings, ...(result.importWarnings ?? []).map((message) => ({ message }))],
          ...more,
          ...(problem ? { error: problem } : {}),
        };
  return { status: ingestStatus(result, "upload"), body };
}
