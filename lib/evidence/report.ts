/**
 * report.html: the bundle's offline report. One file that opens from disk with no server:
 * no script at all, one inline style block allowed by its hash in a Content-Security-Policy
 * meta tag that forbids every other load (default-src 'none'), so the page can reach
 * nothing, whatever a payload holds. Every payload is escaped text inside <pre>.
 */
import { createHash } from "node:crypto";
import { bigintAsDigits } from "../journal/exact-json";
import type { JournalEvent } from "../journal/types";
import { ruleText } from "../analyze";
import { errorEvents } from "../semantics";
import type { NoteItem } from "./notes";
import type { AuditLogRow, FindingRow, ManifestRun } from "./bundle";

export interface ReportInput {
  exportedAt: string;
  exporter: string;
  profile: string;
  profileDescription: string;
  keyId: string;
  runs: { manifest: ManifestRun; events: Record<string, unknown>[]; findings: FindingRow[]; notes: NoteItem[] }[];
  audit: AuditLogRow[];
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

const pct = Array.from({ length: 101 }, (_, i) => `.l${i}{margin-left:${i}%}.w${i}{width:${Math.max(i, 0.5)}%}`).join("");

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1b1f24;background:#fff}
header{background:#0f172a;color:#f8fafc;padding:16px 24px}header h1{margin:0 0 4px;font-size:20px}
header dl{display:flex;flex-wrap:wrap;gap:4px 24px;margin:0}header dt{opacity:.7}header dd{margin:0 0 0 6px}
main{padding:0 24px 48px}section.run{border-top:2px solid #cbd5e1;margin-top:24px}
h2{font-size:18px;margin:16px 0 8px}h3{font-size:15px;margin:18px 0 6px}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{border-bottom:1px solid #e2e8f0;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f1f5f9;font-weight:600}pre{white-space:pre-wrap;word-break:break-all;background:#f8fafc;border:1px solid #e2e8f0;padding:6px;margin:4px 0;max-height:24em;overflow:auto;font-size:12px}
.rule-id{color:#6b7280;font-size:11px}.sev-error{color:#b91c1c;font-weight:600}.sev-warning{color:#b45309;font-weight:600}.sev-info{color:#1d4ed8}
.fp{text-decoration:line-through;opacity:.6}.label{display:inline-block;border:1px solid #94a3b8;border-radius:8px;padding:0 6px;font-size:12px;background:#f8fafc}
.label.fp-label{background:#fee2e2;border-color:#fca5a5;text-decoration:none;opacity:1}
.bar{height:8px;background:#3b82f6;border-radius:2px;min-width:2px}.bar.err{background:#dc2626}.track{width:240px;background:#f1f5f9}
tr.has-finding td:first-child{border-left:3px solid #dc2626}tr.has-note td:first-child{box-shadow:inset 3px 0 #f59e0b}
.muted{color:#64748b}summary{cursor:pointer;color:#1d4ed8}${pct}`;

const STYLE_HASH = createHash("sha256").update(STYLE).digest("base64");
export const REPORT_CSP = `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; img-src 'none'; base-uri 'none'; form-action 'none'`;

const str = (v: unknown): string => (typeof v === "string" ? v : v === undefined || v === null ? "" : String(v));
const json = (v: unknown): string => JSON.stringify(v, bigintAsDigits, 2) ?? "";

function dataOf(e: Record<string, unknown>): Record<string, unknown> {
  const d = e.data;
  return d !== null && typeof d === "object" && !Array.isArray(d) ? (d as Record<string, unknown>) : {};
}

/** What the event is about: tool, model, step name, … */
function nameOf(e: Record<string, unknown>): string {
  const d = dataOf(e);
  return str(d.tool ?? d.model ?? d.name ?? d.call ?? d.approval ?? d.action ?? d.status ?? "");
}

const anchor = (run: number, seq: unknown) => `r${run}-e${str(seq)}`;

function runSection(r: ReportInput["runs"][number], index: number): string {
  const m = r.manifest;
  const out: string[] = [];
  const findingSeqs = new Set(r.findings.map((f) => f.seq));
  const noteSeqs = new Set(r.notes.filter((n) => n.seq !== null && n.target === "event").map((n) => n.seq));
  const bySeq = new Map(r.events.map((e) => [Number(e.seq), e]));
  const latest = new Map<string, NoteItem>();
  for (const n of [...r.notes].sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1)))
    if (n.target === "finding") latest.set(`${n.rule}@${n.seq}`, n);

  out.push(`<section class="run" id="run-${index}"><h2>Run ${escapeHtml(m.id)}</h2>`);
  out.push(
    `<table class="summary"><tbody>` +
      [
        ["project", m.project],
        ["workflow", `${str(m.workflow.name)} ${str(m.workflow.version)}`],
        ["agent", `${str(m.agent.name)} ${str(m.agent.version)}`],
        ["environment", str(m.environment)],
        ["status", m.status],
        ["started", str(m.startedAt)],
        ["ended", str(m.endedAt)],
        ["events", String(m.events)],
        ["last chain hash", str(m.lastHash)],
      ]
        .map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`)
        .join("") +
      `</tbody></table>`,
  );
  out.push(`<h3>Versions in force</h3><pre>${escapeHtml(json(m.versions))}</pre>`);

  // findings, with their evidence (the event they point at) and the label in force
  out.push(`<h3>Findings (${r.findings.length})</h3>`);
  if (r.findings.length === 0) out.push(`<p class="muted">No findings.</p>`);
  else {
    out.push(
      `<table class="findings"><thead><tr><th>severity</th><th>rule</th><th>seq</th><th>message</th><th>review</th><th>evidence</th></tr></thead><tbody>`,
    );
    for (const f of r.findings) {
      const label = latest.get(`${f.rule}@${f.seq}`);
      const fp = label?.label === "false positive";
      const ev = bySeq.get(f.seq);
      out.push(
        `<tr class="finding${fp ? " fp-row" : ""}"><td class="sev-${escapeHtml(f.severity)}${fp ? " fp" : ""}">${escapeHtml(f.severity)}</td>` +
          // the run page's title for the rule, its id beside it (what the CLI and the API name)
          `<td${fp ? ' class="fp"' : ""}>${escapeHtml(ruleText(f.rule).title)} <code class="rule-id">${escapeHtml(f.rule)}</code></td><td><a href="#${anchor(index, f.seq)}">${f.seq}</a></td>` +
          `<td${fp ? ' class="fp"' : ""}>${escapeHtml(f.message)}</td>` +
          `<td>${label ? `<span class="label${fp ? " fp-label" : ""}">${escapeHtml(label.label)}</span>` : ""}</td>` +
          `<td>${ev ? `<details><summary>${escapeHtml(str(ev.type))} ${escapeHtml(nameOf(ev))}</summary><pre>${escapeHtml(json(dataOf(ev)))}</pre></details>` : ""}</td></tr>`,
      );
    }
    out.push(`</tbody></table>`);
  }

  out.push(`<h3>Notes (${r.notes.length})</h3>`);
  if (r.notes.length === 0) out.push(`<p class="muted">No notes.</p>`);
  else {
    out.push(`<table class="notes"><thead><tr><th>on</th><th>label</th><th>note</th><th>author</th><th>when</th></tr></thead><tbody>`);
    for (const n of r.notes) {
      const on =
        n.target === "run"
          ? "the run"
          : n.target === "event"
            ? `<a href="#${anchor(index, n.seq)}">event ${n.seq}</a>`
            : `finding “${escapeHtml(ruleText(str(n.rule)).title)}” at <a href="#${anchor(index, n.seq)}">${n.seq}</a>`;
      out.push(
        `<tr><td>${on}</td><td><span class="label">${escapeHtml(n.label)}</span></td><td><pre>${escapeHtml(n.text)}</pre></td><td>${escapeHtml(n.author)}</td><td>${escapeHtml(n.createdAt)}</td></tr>`,
      );
    }
    out.push(`</tbody></table>`);
  }

  // steps: events grouped by their step, in order of first appearance
  const steps = new Map<string, { name: string; events: number; first: string; last: string; status: string }>();
  for (const e of r.events) {
    const id = str(e.step);
    if (!id) continue;
    const s = steps.get(id) ?? { name: "", events: 0, first: str(e.ts), last: str(e.ts), status: "" };
    s.events++;
    s.last = str(e.ts);
    if (e.type === "step.start") s.name = str(dataOf(e).name);
    if (e.type === "step.end") s.status = str(dataOf(e).status);
    steps.set(id, s);
  }
  out.push(`<h3>Steps (${steps.size})</h3>`);
  if (steps.size > 0) {
    out.push(
      `<table class="steps"><thead><tr><th>step</th><th>name</th><th>events</th><th>from</th><th>to</th><th>status</th></tr></thead><tbody>`,
    );
    for (const [id, s] of steps)
      out.push(
        `<tr><td>${escapeHtml(id)}</td><td>${escapeHtml(s.name)}</td><td>${s.events}</td><td>${escapeHtml(s.first)}</td><td>${escapeHtml(s.last)}</td><td>${escapeHtml(s.status)}</td></tr>`,
      );
    out.push(`</tbody></table>`);
  }

  // timeline: every event, a bar at its time, its payload as text
  const times = r.events.map((e) => Date.parse(str(e.ts))).filter(Number.isFinite);
  const t0 = times.length ? Math.min(...times) : 0;
  const span = Math.max(1, (times.length ? Math.max(...times) : 0) - t0);
  out.push(`<h3>Timeline (${r.events.length} events)</h3>`);
  out.push(
    `<table class="timeline"><thead><tr><th>seq</th><th>+ms</th><th>step</th><th>type</th><th>name</th><th>status</th><th class="track">time</th><th>payload</th></tr></thead><tbody>`,
  );
  // the failure marks of the run page's timeline: lib/semantics' count (docs/journal-format.md, "Failures")
  const ordered = [...r.events].sort((a, b) => Number(a.seq) - Number(b.seq)) as unknown as JournalEvent[];
  const marks = errorEvents(ordered);
  const failed = new Set(ordered.filter((_, i) => marks[i]).map((e) => Number(e.seq)));
  for (const e of r.events) {
    const seq = Number(e.seq);
    const t = Date.parse(str(e.ts));
    const d = dataOf(e);
    const latency = typeof d.latencyMs === "number" ? d.latencyMs : 0;
    const at = Number.isFinite(t) ? t - t0 : 0;
    const left = Math.min(100, Math.max(0, Math.round(((at - latency) / span) * 100)));
    const width = Math.min(100 - left, Math.max(0, Math.round((latency / span) * 100)));
    const bad = failed.has(seq);
    const cls = [findingSeqs.has(seq) ? "has-finding" : "", noteSeqs.has(seq) ? "has-note" : ""].filter(Boolean).join(" ");
    out.push(
      `<tr id="${anchor(index, seq)}"${cls ? ` class="${cls}"` : ""}><td>${seq}</td><td>${at}</td><td>${escapeHtml(str(e.step))}</td>` +
        `<td>${escapeHtml(str(e.type))}</td><td>${escapeHtml(nameOf(e))}</td><td>${escapeHtml(str(d.status))}</td>` +
        `<td class="track"><div class="bar l${left} w${width}${bad ? " err" : ""}"></div></td>` +
        `<td><details><summary>payload</summary><pre>${escapeHtml(json(e))}</pre></details></td></tr>`,
    );
  }
  out.push(`</tbody></table></section>`);
  return out.join("\n");
}

export function renderReport(input: ReportInput): string {
  const audit =
    input.audit.length === 0
      ? `<p class="muted">No privileged actions recorded for these runs.</p>`
      : `<table class="audit"><thead><tr><th>#</th><th>when</th><th>who</th><th>action</th><th>target</th><th>result</th><th>detail</th></tr></thead><tbody>` +
        input.audit
          .map(
            (a) =>
              `<tr><td>${a.seq}</td><td>${escapeHtml(a.ts)}</td><td>${escapeHtml(a.actor)}</td><td>${escapeHtml(a.action)}</td><td>${escapeHtml(str(a.target))}</td><td>${escapeHtml(a.result)}</td><td><pre>${escapeHtml(a.detail)}</pre></td></tr>`,
          )
          .join("") +
        `</tbody></table>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Retrace audit bundle: ${escapeHtml(input.runs.map((r) => r.manifest.id).join(", "))}</title>
<style>${STYLE}</style></head><body>
<header><h1>Retrace audit bundle</h1><dl>
<dt>exported</dt><dd>${escapeHtml(input.exportedAt)}</dd><dt>by</dt><dd>${escapeHtml(input.exporter)}</dd>
<dt>profile</dt><dd>${escapeHtml(input.profile)}: ${escapeHtml(input.profileDescription)}</dd>
<dt>signing key</dt><dd>${escapeHtml(input.keyId)}</dd><dt>runs</dt><dd>${input.runs.length}</dd></dl>
<p>This page is a view. What counts is the signed manifest: check it with <code>npm run -s retrace -- verify FILE</code>.</p></header>
<main><nav><h2>Runs</h2><ul>${input.runs.map((r, i) => `<li><a href="#run-${i}">${escapeHtml(r.manifest.id)}</a> (${r.manifest.events} events, ${r.manifest.findings} findings, ${r.manifest.notes} notes)</li>`).join("")}</ul></nav>
${input.runs.map((r, i) => runSection(r, i)).join("\n")}
<section class="run"><h2>Privileged-action log (${input.audit.length})</h2>${audit}</section>
</main></body></html>
`;
}
