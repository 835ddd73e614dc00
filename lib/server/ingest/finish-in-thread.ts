import "server-only";
/** Row finishing on the request's thread (PostgreSQL): every row leaves finished (`work` 0). */
import { nextServerHash, verifyEvent } from "../../journal/chain";
import type { RowFinisher } from "./row-finisher";
import { rawText, storedText } from "./pending";

export function createInThreadFinisher(): RowFinisher {
  return {
    finish(chain, p, s, prevRecorded, extendsChain) {
      const verdict = verifyEvent(prevRecorded, p.raw, rawText(p));
      const body = storedText(p);
      let hash: string | null = null;
      if (extendsChain) {
        hash = nextServerHash(chain.tailServerHash, body, {
          verdict,
          storedIsRaw: p.canonicalStored === null,
          prevRecordedHash: s === 0 ? "" : prevRecorded,
          recordedHash: typeof p.raw.hash === "string" ? p.raw.hash : null,
        });
        chain.tailServerHash = hash;
      }
      return { body, chain: verdict, hash, work: 0, prevHash: null, chainSeed: null };
    },
    flushed() {},
    settle: async () => [],
  };
}
