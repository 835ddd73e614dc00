/**
 * What two runs ran with, from their run.start: workflow and agent versions, the versions
 * of prompts, policies, tools and models, the policy and the environment. Each entry
 * says whether the runs differ on it, so a reviewer sees the prompt change at once.
 */
import { bigintAsDigits } from "../journal/exact-json";
import { ownValue } from "../journal/own-keys";
import { obj } from "../journal/values";

export const VERSION_GROUPS = ["prompts", "policies", "tools", "models"] as const;

export interface VersionRow {
  group: "workflow" | "agent" | (typeof VERSION_GROUPS)[number] | "policy" | "environment";
  name: string;
  /** As text; null when the run does not say. */
  a: string | null;
  b: string | null;
  differs: boolean;
}

type Data = { [key: string]: unknown } | null | undefined;

function text(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") return String(v);
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) return v.join(", ");
  try {
    return JSON.stringify(v, bigintAsDigits);
  } catch {
    return String(v);
  }
}

function nameVersion(v: unknown): string | null {
  const o = obj(v);
  if (!o) return text(v);
  const name = text(o.name);
  const version = text(o.version);
  if (name === null && version === null) return null;
  return `${name ?? "?"}${version !== null ? `@${version}` : ""}`;
}

/** Rows for every version-like field either run.start names, in a stable order. */
export function compareVersions(startA: Data, startB: Data): VersionRow[] {
  const a = startA ?? {};
  const b = startB ?? {};
  const rows: VersionRow[] = [];
  const push = (group: VersionRow["group"], name: string, va: string | null, vb: string | null) =>
    rows.push({ group, name, a: va, b: vb, differs: va !== vb });
  push("workflow", "workflow", nameVersion(a.workflow), nameVersion(b.workflow));
  push("agent", "agent", nameVersion(a.agent), nameVersion(b.agent));
  const va = obj(a.versions) ?? {};
  const vb = obj(b.versions) ?? {};
  for (const g of VERSION_GROUPS) {
    const ga = obj(va[g]) ?? {};
    const gb = obj(vb[g]) ?? {};
    const names = [...new Set([...Object.keys(ga), ...Object.keys(gb)])].sort();
    // names are payload keys: read own values only (`constructor` is a prompt name here)
    for (const n of names) push(g, n, text(ownValue(ga, n)), text(ownValue(gb, n)));
  }
  const pa = obj(a.policy) ?? {};
  const pb = obj(b.policy) ?? {};
  for (const n of [...new Set([...Object.keys(pa), ...Object.keys(pb)])].sort())
    push("policy", n, text(ownValue(pa, n)), text(ownValue(pb, n)));
  if (a.environment !== undefined || b.environment !== undefined)
    push("environment", "environment", text(a.environment), text(b.environment));
  return rows;
}
