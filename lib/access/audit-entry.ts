/**
 * One entry of the privileged-action log, and its hash: the SHA-256 of the canonical JSON
 * of its fields and the previous entry's hash. Pure, so the server's log (lib/server/access/
 * audit-log.ts) and the audit bundle that carries entries away (lib/evidence) read one shape.
 */
import { canonicalJson, sha256Hex } from "../canonical";

/** The hash before the first entry. */
export const GENESIS = "0".repeat(64);

export interface AuditEntry {
  seq: number;
  ts: string;
  actor: string;
  action: string;
  project: string | null;
  target: string | null;
  reason: string | null;
  result: string;
  detail: string;
  prevHash: string;
  hash: string;
}

export function entryHash(e: Omit<AuditEntry, "hash">): string {
  return sha256Hex(
    canonicalJson({
      seq: e.seq,
      ts: e.ts,
      actor: e.actor,
      action: e.action,
      project: e.project,
      target: e.target,
      reason: e.reason,
      result: e.result,
      detail: e.detail,
      prevHash: e.prevHash,
    }),
  );
}
