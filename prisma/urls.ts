/**
 * Database URLs → connection settings, with no driver loaded: the CLI and the server import
 * this on every start, and loading pg or Prisma's runtime only to read a URL cost a SQLite
 * import about 0.1 s (see lib/server/README.md).
 */
import path from "node:path";
import fs from "node:fs";
import type { PoolConfig } from "pg";

/** `file:./data/retrace.db` or a bare path → absolute file path (its folder created). */
export function sqliteFileFromUrl(url: string): string {
  const raw = url.startsWith("file:") ? url.slice("file:".length) : url;
  const file = path.resolve(raw);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  return file;
}

/** Connection settings from a postgresql:// URL, passed separately (see README). */
export function pgConnectionFromUrl(url: string): PoolConfig {
  const u = new URL(url);
  return {
    host: decodeURIComponent(u.hostname) || "127.0.0.1",
    port: u.port ? Number(u.port) : 5432,
    user: decodeURIComponent(u.username) || undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    database: decodeURIComponent(u.pathname.replace(/^\//, "")) || undefined,
    max: Number(u.searchParams.get("pool") ?? 10),
    allowExitOnIdle: true,
  };
}
