/**
 * The evidence of a finding, quoted: the lines a reviewer would otherwise dig out by hand
 * (the earlier call's outcome and error text, the approval that is missing, the document's
 * `indexedAt` against the allowed age, the policy value in human units). Built from the
 * events the inspect route returns for the seq the finding names (or its own event), all
 * stored redacted; values are shown as text, never markup.
 */
import { humanSeconds } from "../analyze";
import { obj, str } from "../journal/values";
import { ageText } from "./human";
import type { FindingItem, InspectAnswer, StoredEvent } from "./api-types";

interface EvidenceLine {
  /** the event the line quotes, a link */
  seq: number | null;
  label: string;
  /** quoted payload text */
  text: string;
}

const MAX = 300;
const cut = (s: string) => (s.length > MAX ? `${s.slice(0, MAX - 1)}…` : s);
const data = (e: StoredEvent | undefined): Record<string, unknown> => (e?.event.data ?? {}) as Record<string, unknown>;
function show(v: unknown): string {
  if (typeof v === "string") return v;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/** The outcome of a result: status, then the error's message, name and code as fields. */
function outcome(r: StoredEvent): string {
  const d = data(r);
  const parts = [`status ${show(d.status ?? "?")}`];
  const err = obj(d.error);
  if (err) {
    const name = err.name !== undefined ? ` (${show(err.name)})` : "";
    if (err.message !== undefined) parts.push(`error "${show(err.message)}"${name}`);
    else if (name) parts.push(`error${name}`);
    if (err.code !== undefined) parts.push(`code ${show(err.code)}`);
  } else if (d.error !== undefined) parts.push(`error "${show(d.error)}"`);
  if (d.externalId !== undefined) parts.push(`external id ${show(d.externalId)}`);
  return cut(parts.join(", "));
}

/** Lines about a write call and its results (the call the finding's message names). */
function callLines(all: StoredEvent[], seq: number, unknownOutcome: boolean): EvidenceLine[] {
  const call = all.find((e) => e.seq === seq);
  if (!call) return [];
  const c = data(call);
  const id = str(c.call);
  const lines: EvidenceLine[] = [
    {
      seq: call.seq,
      label: "earlier call",
      text: cut(
        `${show(c.tool ?? "?")} call "${show(c.call ?? "?")}", effect ${show(c.effect ?? "?")}, idempotency key ${c.idempotencyKey !== undefined && c.idempotencyKey !== "" ? show(c.idempotencyKey) : "none"}`,
      ),
    },
  ];
  const results = all.filter((e) => e.event.type === "tool.result" && id !== undefined && data(e).call === id);
  for (const r of results) lines.push({ seq: r.seq, label: "its result", text: outcome(r) });
  if (results.length === 0) lines.push({ seq: null, label: "its result", text: "none recorded" });
  // the rule fires only when no reconcile cleared the outcome; say so beside the quote
  if (unknownOutcome) lines.push({ seq: null, label: "reconciled", text: "never (no reconcile event for this call)" });
  return lines;
}

/**
 * Evidence for `finding`. `named` is the inspect answer for the first seq its message names
 * (the earlier call), `own` the one for the finding's own event; either may be missing
 * while loading. `policy` is the run's.
 */
export function evidenceFor(
  finding: FindingItem,
  named: InspectAnswer | null,
  namedSeq: number | null,
  own: InspectAnswer | null,
  policy: Record<string, unknown> | null,
): EvidenceLine[] {
  const all = (a: InspectAnswer | null) => (a ? [a.event, ...a.related] : []);
  const ownEv = own?.event;
  const d = data(ownEv);
  switch (finding.rule) {
    case "effect.retry-after-unknown":
    case "effect.duplicate":
    case "approval.reused":
      return namedSeq !== null ? callLines(all(named), namedSeq, finding.rule === "effect.retry-after-unknown") : [];
    case "retrieval.stale": {
      if (!ownEv) return [];
      // the retrieval verdict the finding is reported from (lib/semantics), sent with the answer
      const verdict = own?.verdicts.retrieval ?? null;
      const maxAge = verdict?.maxAgeSeconds ?? (typeof policy?.retrievalMaxAgeSeconds === "number" ? policy.retrievalMaxAgeSeconds : null);
      const lines: EvidenceLine[] = [];
      if (maxAge !== null)
        lines.push({ seq: null, label: "allowed age", text: `${humanSeconds(maxAge)} (policy.retrievalMaxAgeSeconds = ${maxAge})` });
      const docs = Array.isArray(d.documents) ? d.documents : [];
      docs.slice(0, 5).forEach((doc, i) => {
        const o = obj(doc);
        if (!o) return;
        const indexed = str(o.indexedAt);
        const v = verdict?.documents[i];
        const age = v?.ageMs === null || v?.ageMs === undefined ? null : v.ageMs / 1000;
        lines.push({
          seq: ownEv.seq,
          label: `document ${show(o.id ?? "?")}`,
          text: cut(`indexedAt ${indexed ?? "not recorded"}${age !== null ? `: ${ageText(age)} at the retrieval` : ""}`),
        });
      });
      return lines;
    }
    case "approval.missing":
    case "approval.undecided":
    case "approval.denied": {
      if (!ownEv) return [];
      const requests = all(own).filter((e) => e.event.type === "approval.request" && data(e).call === d.call);
      const decisions = all(own).filter((e) => e.event.type === "approval.decision");
      const lines: EvidenceLine[] = [
        { seq: ownEv.seq, label: "the call", text: cut(`${show(d.tool ?? "?")} call "${show(d.call ?? "?")}"`) },
      ];
      const required = Array.isArray(policy?.requireApproval) ? (policy.requireApproval as unknown[]).map(show) : [];
      if (required.length > 0) lines.push({ seq: null, label: "policy.requireApproval", text: cut(required.join(", ")) });
      if (requests.length === 0) lines.push({ seq: null, label: "approval request", text: `none names call "${show(d.call ?? "?")}"` });
      for (const r of requests)
        lines.push({ seq: r.seq, label: "approval request", text: cut(`approval ${show(data(r).approval ?? "?")}`) });
      for (const r of decisions)
        lines.push({ seq: r.seq, label: "decision", text: cut(`${show(data(r).decision ?? "?")} by ${show(data(r).by ?? "?")}`) });
      return lines;
    }
    case "loop.max-steps":
      return typeof policy?.maxSteps === "number" ? [{ seq: null, label: "policy.maxSteps", text: `${policy.maxSteps} steps` }] : [];
    case "tool.partial":
      return ownEv ? [{ seq: ownEv.seq, label: "the result", text: outcome(ownEv) }] : [];
    default:
      return [];
  }
}
