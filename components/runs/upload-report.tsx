import Link from "next/link";
import { formatBytes } from "@/lib/view/format";
import { visibleText as vt } from "@/lib/view/text";
import { formatLine, runResultText, uploadStatusText, uploadStatusTitle } from "@/lib/view/upload-text";
import type { UploadItem } from "./use-upload";
import type { UploadAnswer } from "@/lib/view/api-types";

const MAX_ERRORS = 500;
const MAX_WARNINGS = 100;

/** Errors not shown: past MAX_ERRORS here, and those the server counted but did not list. */
const moreErrors = (a: UploadAnswer) => Math.max(0, (a.errors?.length ?? 0) - MAX_ERRORS) + (a.moreErrors ?? 0);
const moreWarnings = (a: UploadAnswer) => Math.max(0, (a.warnings?.length ?? 0) - MAX_WARNINGS) + (a.moreWarnings ?? 0);

/** Progress per file, then what the server said: runs stored or rejected, errors by line. */
export function UploadReport({ items, onClear }: { items: UploadItem[]; onClear: () => void }) {
  const busy = items.some((i) => i.phase === "sending" || i.phase === "storing");
  return (
    <section className="upload-report" aria-label="Upload report">
      <div style={{ display: "flex", alignItems: "center", gap: 8 }}>
        <h2 style={{ flex: 1 }}>Uploads</h2>
        <button type="button" onClick={onClear} disabled={busy}>
          Dismiss
        </button>
      </div>
      {items.map((it, i) => (
        <div key={i} style={{ marginBottom: 10 }}>
          <div style={{ display: "flex", gap: 8, alignItems: "center", fontSize: 13 }}>
            <b>{it.file}</b>
            <span style={{ color: "var(--muted)" }}>{formatBytes(it.bytes)}</span>
            <span
              role="status"
              title={uploadStatusTitle(it.status)}
              className={it.phase === "failed" ? "bad" : it.phase === "done" ? "ok" : ""}
            >
              {it.phase === "sending"
                ? `sending ${Math.round(it.progress * 100)}%`
                : it.phase === "storing"
                  ? "storing…"
                  : vt(uploadStatusText(it.phase, it.answer, it.error))}
            </span>
          </div>
          <progress
            aria-label={`Upload of ${it.file}`}
            className={it.phase === "failed" ? "failed" : undefined}
            max={1}
            value={it.progress}
          />
          {formatLine(it.phase, it.answer) ? <p className="muted">{vt(formatLine(it.phase, it.answer) ?? "")}</p> : null}
          {it.answer?.runs && it.answer.runs.length > 0 ? (
            <table aria-label={`Runs in ${it.file}`}>
              <thead>
                <tr>
                  <th>Run</th>
                  <th>Result</th>
                  <th>Accepted</th>
                  <th>Duplicates</th>
                  <th>Findings</th>
                </tr>
              </thead>
              <tbody>
                {it.answer.runs.map((r) => (
                  <tr key={r.run}>
                    <td>{r.status === "stored" ? <Link href={`/runs/${encodeURIComponent(r.run)}`}>{r.run}</Link> : r.run}</td>
                    <td className={r.status === "stored" ? (r.accepted > 0 ? "ok" : "") : "bad"}>{runResultText(r)}</td>
                    <td>{r.accepted}</td>
                    <td>{r.duplicates}</td>
                    <td>{r.findings}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
          {it.answer?.moreRuns ? <p>… and {it.answer.moreRuns.toLocaleString("en-US")} more runs</p> : null}
          {it.answer?.errors && it.answer.errors.length > 0 ? (
            <div className="errors">
              <table aria-label={`Errors in ${it.file}`}>
                <thead>
                  <tr>
                    <th>Line</th>
                    <th>Run</th>
                    <th>Seq</th>
                    <th>Kind</th>
                    <th>Message</th>
                  </tr>
                </thead>
                <tbody>
                  {it.answer.errors.slice(0, MAX_ERRORS).map((e, j) => (
                    <tr key={j}>
                      <td>{e.line ?? "—"}</td>
                      <td>{e.run ?? "—"}</td>
                      <td>{e.seq ?? "—"}</td>
                      <td>{e.kind ?? "—"}</td>
                      <td>{vt(e.message)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {moreErrors(it.answer) > 0 ? <p>… and {moreErrors(it.answer).toLocaleString("en-US")} more errors</p> : null}
            </div>
          ) : null}
          {it.answer?.warnings && it.answer.warnings.length > 0 ? (
            <div className="warnings">
              <p className="warnc">
                {it.answer.warnings.length + (it.answer.moreWarnings ?? 0) === 1
                  ? "1 warning"
                  : `${(it.answer.warnings.length + (it.answer.moreWarnings ?? 0)).toLocaleString("en-US")} warnings`}
                : stored, but worth a look
              </p>
              <table aria-label={`Warnings in ${it.file}`}>
                <thead>
                  <tr>
                    <th>Line</th>
                    <th>Run</th>
                    <th>Seq</th>
                    <th>Message</th>
                  </tr>
                </thead>
                <tbody>
                  {it.answer.warnings.slice(0, MAX_WARNINGS).map((w, j) => (
                    <tr key={j}>
                      <td>{w.line ?? "—"}</td>
                      <td>{w.run ? vt(w.run) : "—"}</td>
                      <td>{w.seq ?? "—"}</td>
                      <td>{vt(w.message)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {moreWarnings(it.answer) > 0 ? <p>… and {moreWarnings(it.answer).toLocaleString("en-US")} more warnings</p> : null}
            </div>
          ) : null}
        </div>
      ))}
    </section>
  );
}
