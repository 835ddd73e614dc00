import "server-only";
/**
 * Retrace's temporary files (the span spill of a trace import, import-stream.ts). They
 * hold only redacted data, live in a private folder, are removed when their import ends
 * and when the process exits, and a folder left by a process that was killed (kill -9, a
 * crash) is swept at the next start of the CLI's import or of the server
 * (`sweepTempFiles`).
 *
 *   $TMPDIR/retrace-<uid>/             0700, this user's, checked on every use
 *     spans-<pid>-XXXXXX/              0700, one per import, named by its process
 *       spans.ndjson                   0600
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const live = new Set<string>();
let exitHook = false;

/** The private parent folder, created 0700; refused when someone else made it or it is open to others. */
export function privateTempRoot(): string {
  const uid = typeof process.getuid === "function" ? process.getuid() : null;
  const root = path.join(os.tmpdir(), uid === null ? "retrace" : `retrace-${uid}`);
  try {
    fs.mkdirSync(root, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
  const st = fs.lstatSync(root);
  // a symlink or a folder planted by another user would let them read what is written
  if (!st.isDirectory() || (uid !== null && st.uid !== uid) || (process.platform !== "win32" && (st.mode & 0o077) !== 0)) {
    throw new Error(`${root} is not a private folder of this user (0700); remove it and try again`);
  }
  return root;
}

/** A fresh private folder for one import's temporary files, removed at exit if still there. */
export function makeTempDir(kind: string): string {
  const dir = fs.mkdtempSync(path.join(privateTempRoot(), `${kind}-${process.pid}-`));
  fs.chmodSync(dir, 0o700);
  live.add(dir);
  if (!exitHook) {
    exitHook = true;
    process.on("exit", removeTempDirs);
  }
  return dir;
}

export function removeTempDir(dir: string): void {
  live.delete(dir);
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Removes every temporary folder of this process (exit, or a signal the CLI handles). */
export function removeTempDirs(): void {
  for (const dir of [...live]) {
    try {
      removeTempDir(dir);
    } catch {
      /* exiting: nothing more to do */
    }
  }
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists, it is another user's
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Folders of a version that named no process (`retrace-spans-XXXXXX`) older than this are removed. */
const LEGACY_AGE_MS = 10 * 60 * 1000;

/**
 * Removes the temporary folders whose process is gone: what a killed import left (its
 * spans, redacted). Also this user's folders of an earlier version, which held spans
 * unredacted, once untouched for 10 minutes. Call at start; returns how many it removed.
 */
export function sweepTempFiles(now = Date.now()): number {
  let removed = 0;
  const root = privateTempRoot();
  for (const name of fs.readdirSync(root)) {
    const m = /^[a-z]+-(\d+)-/.exec(name);
    if (m && alive(Number(m[1]))) continue;
    fs.rmSync(path.join(root, name), { recursive: true, force: true });
    removed++;
  }
  const uid = typeof process.getuid === "function" ? process.getuid() : null;
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (!name.startsWith("retrace-spans-")) continue;
    const dir = path.join(os.tmpdir(), name);
    try {
      const st = fs.lstatSync(dir);
      if (!st.isDirectory() || (uid !== null && st.uid !== uid)) continue;
      const touched = Math.max(st.mtimeMs, ...fs.readdirSync(dir).map((f) => fs.statSync(path.join(dir, f)).mtimeMs));
      if (now - touched < LEGACY_AGE_MS) continue;
      fs.rmSync(dir, { recursive: true, force: true });
      removed++;
    } catch {
      /* gone meanwhile, or not ours to read */
    }
  }
  return removed;
}
