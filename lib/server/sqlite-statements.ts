/**
 * Prepared statements on a better-sqlite3 connection, shared by the writer thread
 * (sqlite-writer.worker.ts) and the request thread's connections (sql.ts): a statement
 * cache, and event inserts 64 rows a statement.
 */
import type Database from "better-sqlite3";
import { EVENT_COLUMNS, insertEventsSql, type FlatValue } from "./sqlite-rows";

const MULTI = 64;

export function eventInserter(db: Database.Database): (flat: FlatValue[], n: number) => void {
  const insertOne = db.prepare(insertEventsSql(1));
  const insertMany = db.prepare(insertEventsSql(MULTI));
  const width = EVENT_COLUMNS.length;
  return (flat, n) => {
    let i = 0;
    for (; i + MULTI <= n; i += MULTI) insertMany.run(flat.slice(i * width, (i + MULTI) * width));
    for (; i < n; i++) insertOne.run(flat.slice(i * width, (i + 1) * width));
  };
}

/** Prepares each SQL text once per connection. */
export function statementCache(db: Database.Database): (sql: string) => Database.Statement {
  const cache = new Map<string, Database.Statement>();
  return (sql) => {
    let st = cache.get(sql);
    if (!st) {
      st = db.prepare(sql);
      cache.set(sql, st);
    }
    return st;
  };
}
