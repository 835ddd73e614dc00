/** Formatting for people: durations, offsets, counts and sizes. Times are epoch ms. */

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "—";
  if (ms < 1) return "<1 ms";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  // rounded to the unit shown first, so 47 h 59 m 59 s reads "48 h 0 m", never "47 h 60 m"
  const secs = Math.round(ms / 1000);
  if (secs < 3600) return `${Math.floor(secs / 60)} m ${secs % 60} s`;
  const mins = Math.round(ms / 60_000);
  return `${Math.floor(mins / 60)} h ${mins % 60} m`;
}

/** `+1.234 s`, `+2:05.3` or `+10:00:18.3` from the run's start. */
export function formatOffset(ms: number): string {
  if (!Number.isFinite(ms)) return "";
  const sign = ms < 0 ? "−" : "+";
  const a = Math.abs(ms);
  if (a < 60_000) return `${sign}${(a / 1000).toFixed(3)} s`;
  const s = ((a % 60_000) / 1000).toFixed(1).padStart(4, "0");
  // m:ss.s below an hour, h:mm:ss.s from one (a wait of hours is not "600:18.3")
  if (a < 3_600_000) return `${sign}${Math.floor(a / 60_000)}:${s}`;
  const m = String(Math.floor((a % 3_600_000) / 60_000)).padStart(2, "0");
  return `${sign}${Math.floor(a / 3_600_000)}:${m}:${s}`;
}

export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return "—";
  return Math.round(n).toLocaleString("en-US");
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** `2026-11-07 11:00:01.026 UTC` */
export function formatTimestamp(iso: string | number | null | undefined): string {
  if (iso === null || iso === undefined) return "—";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return d.toISOString().replace("T", " ").replace("Z", " UTC");
}

export function formatUsd(n: number): string {
  if (!Number.isFinite(n)) return "—";
  if (n === 0) return "$0";
  if (n < 0.01) return `$${n.toFixed(4)}`;
  return `$${n.toFixed(2)}`;
}

/**
 * A privileged-action log entry's detail (canonical JSON of a flat object) for a table
 * cell: `{"environments":[],"role":"viewer"}` → `environments: none · role: viewer`.
 * Anything else is shown as it is.
 */
export function describeAuditDetail(detail: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(detail);
  } catch {
    return detail;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return detail;
  const show = (v: unknown): string =>
    Array.isArray(v) ? (v.length > 0 ? v.map(show).join(", ") : "none") : typeof v === "string" ? v : JSON.stringify(v);
  return Object.entries(parsed)
    .map(([k, v]) => `${k}: ${show(v)}`)
    .join(" · ");
}

/** "just now", "5 minutes ago", "3 days ago", "in 2 hours": a time against now, for people. */
export function formatRelative(atMs: number, nowMs: number): string {
  if (!Number.isFinite(atMs) || !Number.isFinite(nowMs)) return "";
  const s = Math.round((nowMs - atMs) / 1000);
  const a = Math.abs(s);
  if (a < 45) return "just now";
  const units: Array<[number, string]> = [
    [365 * 86_400, "year"],
    [30 * 86_400, "month"],
    [7 * 86_400, "week"],
    [86_400, "day"],
    [3_600, "hour"],
    [60, "minute"],
  ];
  for (const [size, name] of units) {
    if (a >= size) {
      const n = Math.floor(a / size);
      const t = `${n} ${name}${n === 1 ? "" : "s"}`;
      return s >= 0 ? `${t} ago` : `in ${t}`;
    }
  }
  return "just now";
}
