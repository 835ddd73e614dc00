import "server-only";
/** The redactor of each database, loaded once (the key from redaction-key.ts). */
import type { Redactor } from "../redact";
import type { Db } from "./db";
import { loadRedactor } from "./redaction-key";

const redactors = new WeakMap<Db, Promise<Redactor>>();

export function redactorFor(db: Db): Promise<Redactor> {
  let r = redactors.get(db);
  if (!r) {
    r = loadRedactor(db.config, db.sql);
    redactors.set(db, r);
    r.catch(() => redactors.delete(db));
  }
  return r;
}
