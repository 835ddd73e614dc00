import "server-only";
/**
 * Node's native SHA-256 for lib/canonical (several times faster than the portable one on
 * the ingest hot path; results are identical, which lib/canonical's test checks). Every
 * server thread that hashes calls this once: db.ts for the request's threads, the SQLite
 * writer for its own.
 */
import { createHash, hash } from "node:crypto";
import { useSha256Implementation } from "../canonical";

export function useNativeSha256(): void {
  useSha256Implementation(
    (text) => hash("sha256", text, "hex"),
    () => {
      const h = createHash("sha256");
      return { update: (text) => void h.update(text, "utf8"), hex: () => h.digest("hex") };
    },
  );
}
