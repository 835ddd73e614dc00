/**
 * Driver adapters shared by the Prisma CLI configs (migrate, generate) and the app's
 * Prisma clients. Each works around a trap of Prisma 6.19's JavaScript engine that
 * ../STACK notes in the README list (see README "Database").
 */
import pg from "pg";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { pgConnectionFromUrl, sqliteFileFromUrl } from "./urls";

type AnyFn = (...args: unknown[]) => unknown;
type SqlQueryLike = { sql: string; args: unknown[] };
interface ScriptCapable {
  executeRaw(q: SqlQueryLike): Promise<number>;
  executeScript(script: string): Promise<void>;
}

/**
 * The engine replays a migration as one executeRaw holding several statements, which
 * better-sqlite3 refuses ("External error id#0"); send such calls to executeScript.
 */
function routeScripts<T extends object>(adapter: T): T {
  return new Proxy(adapter, {
    get(target, prop, receiver) {
      if (prop === "executeRaw") {
        const t = target as unknown as ScriptCapable;
        return async (q: SqlQueryLike) => {
          if (q.args.length === 0 && /;\s*\S/.test(q.sql.trim())) {
            await t.executeScript(q.sql);
            return 0;
          }
          return t.executeRaw(q);
        };
      }
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === "function" ? (value as AnyFn).bind(target) : value;
    },
  });
}

export function sqliteAdapterFactory(url: string) {
  const factory = new PrismaBetterSQLite3({ url: sqliteFileFromUrl(url) });
  return new Proxy(factory, {
    get(target, prop, receiver) {
      if (prop === "connect" || prop === "connectToShadowDb") {
        return async () => routeScripts(await target[prop]());
      }
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === "function" ? (value as AnyFn).bind(target) : value;
    },
  });
}

const PG_NAME_OID = 19;
const PG_TEXT_OID = 25;

/**
 * The adapter cannot deserialize PostgreSQL's `name` type (prisma/orm#27403), which
 * the migration engine's catalog queries return; report it as text.
 */
class NameAsTextClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    const original = this.query.bind(this) as AnyFn;
    const fix = (r: pg.QueryResult | undefined) => {
      for (const f of r?.fields ?? []) if (f.dataTypeID === PG_NAME_OID) f.dataTypeID = PG_TEXT_OID;
      return r;
    };
    (this as unknown as { query: AnyFn }).query = (...args: unknown[]) => {
      // pg-pool calls query with a callback; the adapter's own calls await a promise.
      const last = args[args.length - 1];
      if (typeof last === "function") {
        const cb = last as (err: Error | null, r?: pg.QueryResult) => void;
        args[args.length - 1] = (err: Error | null, r?: pg.QueryResult) => cb(err, fix(r));
      }
      const result = original(...args);
      if (result && typeof (result as Promise<unknown>).then === "function") return (result as Promise<pg.QueryResult>).then(fix);
      return result;
    };
  }
}

/** Connection settings from a postgresql:// URL, with the client Prisma's adapter needs. */
export function pgConfigFromUrl(url: string): pg.PoolConfig {
  return { ...pgConnectionFromUrl(url), Client: NameAsTextClient };
}

export function postgresAdapterFactory(url: string) {
  return new PrismaPg(pgConfigFromUrl(url));
}
