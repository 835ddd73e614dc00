/**
 * What an approval authorises, and for how long (docs/journal-format.md, "Approvals"): a
 * call is approved when, before it, an `approval.request` names its call and the last
 * `approval.decision` for that request before the call is `approved`. Approvals are not
 * spent: a second call with the same id is approved too, which is why using one decision
 * for two calls has a rule of its own (`approval.reused`).
 */
import { PMap } from "./pmap";

export interface DecisionRecord {
  readonly decision: string;
  /** seq of this (the last) decision of the request. */
  readonly seq: number;
}

/** The tool.call that used a decision. */
export interface UseRecord {
  /** seq of the decision used. */
  readonly decision: number;
  /** seq of the call that used it. */
  readonly call: number;
}

export interface ApprovalBook {
  /** call id → approval ids of the requests naming it, in order. */
  readonly requests: PMap<readonly string[]>;
  /** approval id → its last decision. */
  readonly decisions: PMap<DecisionRecord>;
  /** approval id → the call that used its last decision. */
  readonly used: PMap<UseRecord>;
}

export const EMPTY_BOOK: ApprovalBook = Object.freeze({
  requests: PMap.empty<readonly string[]>(),
  decisions: PMap.empty<DecisionRecord>(),
  used: PMap.empty<UseRecord>(),
});

/**
 * - `ok`: approved (first use of the decision), or not gated at all;
 * - `missing`: the tool is in policy.requireApproval and the call is not approved;
 * - `undecided`: not required, a request names the call, none is approved and one has no decision yet;
 * - `denied`: not required, every request naming the call was decided and none approved;
 * - `reused`: approved, but only by decisions an earlier call already used.
 */
export type ApprovalStatus = "ok" | "missing" | "undecided" | "denied" | "reused";

export interface CallApproval {
  status: ApprovalStatus;
  /** A request names the call. */
  requested: boolean;
  approved: boolean;
  /** Requested, and every request naming the call was decided, none approved (also when the status is `missing`). */
  denied: boolean;
  /** For `reused`: seq of the call that used the decision first. */
  usedBy: number | null;
}

export function requestApproval(book: ApprovalBook, call: string, approval: string): ApprovalBook {
  const ids = book.requests.get(call);
  if (ids?.includes(approval)) return book;
  return { ...book, requests: book.requests.set(call, ids ? [...ids, approval] : [approval]) };
}

export function decideApproval(book: ApprovalBook, approval: string, decision: string, seq: number): ApprovalBook {
  return { ...book, decisions: book.decisions.set(approval, { decision, seq }) };
}

/** The verdict on a tool.call and the book after it (the decisions it used are marked). */
export function callApproval(
  book: ApprovalBook,
  call: string,
  required: boolean,
  seq: number,
): { book: ApprovalBook; verdict: CallApproval } {
  const ids = book.requests.get(call) ?? [];
  let approved = false;
  let fresh = false;
  let usedBy: number | null = null;
  let undecided = false;
  for (const id of ids) {
    const d = book.decisions.get(id);
    if (d === undefined || (d.decision !== "approved" && d.decision !== "denied")) undecided = true;
    if (d?.decision !== "approved") continue;
    approved = true;
    const use = book.used.get(id);
    if (use === undefined || use.decision !== d.seq) fresh = true;
    else usedBy ??= use.call;
  }
  const requested = ids.length > 0;
  const status: ApprovalStatus = approved
    ? fresh
      ? "ok"
      : "reused"
    : required
      ? "missing"
      : !requested
        ? "ok"
        : undecided
          ? "undecided"
          : "denied";
  let next = book;
  if (approved && fresh) {
    let used = book.used;
    for (const id of ids) {
      const d = book.decisions.get(id);
      const use = used.get(id);
      if (d?.decision === "approved" && (use === undefined || use.decision !== d.seq)) used = used.set(id, { decision: d.seq, call: seq });
    }
    next = { ...book, used };
  }
  return {
    book: next,
    verdict: { status, requested, approved, denied: requested && !approved && !undecided, usedBy: status === "reused" ? usedBy : null },
  };
}
