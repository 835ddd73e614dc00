/** The format's chain hash, for recorders and for checking a journal received back. */
import { canonicalJson, sha256Hex } from "../canonical";
import type { JournalEvent } from "../journal/types";

/** `sha256:` + hex SHA-256 of `previousHash + "\n" + JCS(event without its hash)`. */
export function chainHash(previousHash: string, event: JournalEvent): string {
  const { hash: _ignored, ...rest } = event;
  return "sha256:" + sha256Hex(previousHash + "\n" + canonicalJson(rest));
}

/** seqs of the events of one run (in seq order) whose recorded hash does not verify. */
export function verifyChain(events: JournalEvent[]): number[] {
  const bad: number[] = [];
  let prev = "";
  for (const e of events) {
    if (e.hash !== chainHash(prev, e)) bad.push(e.seq);
    prev = e.hash ?? "";
  }
  return bad;
}
