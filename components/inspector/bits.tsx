"use client";
import type { StoredEvent } from "@/lib/view/api-types";
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
