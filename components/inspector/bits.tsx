"use client";
import type { StoredEvent } from "@/lib/view/api-types";
import { errorFields } from "@/lib/view/human";
import { SafeText } from "@/components/ui/safe-text";
import { useRunStoreApi } from "@/components/run/run-store";

export type Data = Record<string, unknown>;

export const dataOf = (e: StoredEvent | undefined): Data => (e?.event.data ?? {}) as Data;
export const asObj = (v: unknown): Data | null => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Data) : null);
export const asStr = (v: unknown): string | null => (typeof v === "string" ? v : typeof v === "number" ? String(v) : null);

export function findType(all: StoredEvent[], type: string, pred: (d: Data) => boolean = () => true): StoredEvent | undefined {
  return all.find((e) => e.event.type === type && pred(dataOf(e)));
}

/** A jump to another event of the run: a button, never a link. */
export function Jump({ seq, children }: { seq: number; children?: React.ReactNode }) {
  const api = useRunStoreApi();
  return (
    <button type="button" className="link" onClick={() => api.getState().select(seq)}>
      {children ?? `#${seq}`}
    </button>
  );
}

/** A payload value shown as text (strings cut, invisibles revealed); other values as JSON text. */
export function Value({ v, limit = 300 }: { v: unknown; limit?: number }) {
  if (v === undefined) return <span style={{ color: "var(--muted)" }}>—</span>;
  if (typeof v === "string") return <SafeText value={v} limit={limit} />;
  let text: string;
  try {
    text = JSON.stringify(v) ?? String(v);
  } catch {
    text = String(v);
  }
  return <SafeText value={text} limit={limit} className="text-block mono" />;
}

export function Fields({ rows }: { rows: [string, React.ReactNode][] }) {
  return (
    <dl className="kv">
      {rows.map(([k, v]) => (
        <div key={k} style={{ display: "contents" }}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/** An error as fields (message, name, code, retryable, stack, the rest), never one line of JSON. */
export function ErrorBlock({ error, label = "error" }: { error: unknown; label?: string }) {
  const f = errorFields(error);
  const rows: [string, React.ReactNode][] = [];
  if (f.message !== null) rows.push(["message", <SafeText key="m" value={f.message} limit={2000} />]);
  if (f.name !== null) rows.push(["name", <SafeText key="n" value={f.name} className="mono" />]);
  if (f.code !== null) rows.push(["code", <SafeText key="c" value={f.code} className="mono" />]);
  if (f.retryable !== null) rows.push(["retryable", f.retryable ? "yes" : "no"]);
  if (f.rest) for (const [k, v] of Object.entries(f.rest)) rows.push([k, <Value key={k} v={v} limit={500} />]);
  return (
    <div className="finding-box error-block" role="group" aria-label={label}>
      <b>{label}</b>
      {rows.length > 0 ? <Fields rows={rows} /> : <span style={{ color: "var(--muted)" }}> (empty)</span>}
      {f.stack !== null ? (
        <details>
          <summary>stack</summary>
          <SafeText value={f.stack} limit={4000} className="text-block mono" />
        </details>
      ) : null}
    </div>
  );
}
