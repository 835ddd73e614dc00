/**
 * Database URLs → connection settings, with no driver loaded: the CLI and the server import
 * this on every start, and loading pg or Prisma's runtime only to read a URL cost a SQLite
 * import about 0.1 s (see lib/server/README.md).
 */
import path from "node:path";
import fs from "node:fs";
import type { PoolConfig } from "pg";

/**
 * `file:./data/retrace.db` or a bare path → absolute file path, ready to open: its folder
 * made (0700 for the folders it creates), the file created empty with mode 0600 if missing,
 * and an existing one (an earlier version made them 0644) taken to 0600 with its -wal, -shm
 * and -journal. SQLite gives the -wal, -shm and -journal files it creates the database
 * file's mode, so the whole database stays readable by its owner alone, whatever the umask.
 */
export function sqliteFileFromUrl(url: string): string {
  const raw = url.startsWith("file:") ? url.slice("file:".length) : url;
  const file = path.resolve(raw);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.closeSync(fs.openSync(file, "a", 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) ownerOnly(f);
  return file;
}

/** chmod 0600 a file that exists and lets its group or others in (left alone if not ours to change). */
function ownerOnly(file: string): void {
  try {
    if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "EPERM") throw e;
  }
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
