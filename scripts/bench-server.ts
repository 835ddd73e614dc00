/**
 * What the benches share about a running server: start the production build on a
 * database, POST a file to it, and read the peak resident memory and CPU time of processes.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";

/** `next start` on `url`, resolved once /api/health answers. */
export async function startServer(url: string, port: number, env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(path.resolve("node_modules/.bin/next"), ["start", "-H", "127.0.0.1", "-p", String(port)], {
    env: { ...process.env, DATABASE_URL: url, NEXT_TELEMETRY_DISABLED: "1", ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  for (let i = 0; i < 240; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/api/health`)).ok) return child;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill();
  throw new Error("server did not start");
}

/** POSTs a file as it is (streamed, with its length); the answer's status and JSON body. */
export function postFile<T = unknown>(
  port: number,
  urlPath: string,
  file: string,
  contentType = "application/x-ndjson",
): Promise<{ status: number; body: T }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path: urlPath,
        method: "POST",
        headers: { "content-type": contentType, "content-length": fs.statSync(file).size },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on("data", (c: Buffer) => parts.push(c));
        res.on("end", () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString("utf8")) as T });
          } catch (e) {
            reject(e);
          }
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    fs.createReadStream(file, { highWaterMark: 1 << 20 }).pipe(req);
  });
}

/** Every process on this machine, by pid. */
function allPids(): number[] {
  return fs
    .readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

/** A process and its descendants (`next start` runs the server in a child). */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const pid of allPids()) {
    const f = statFields(pid);
    if (!f) continue;
    const ppid = Number(f[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const out: number[] = [];
  for (const todo = [root]; todo.length > 0;) {
    const p = todo.pop()!;
    out.push(p);
    todo.push(...(children.get(p) ?? []));
  }
  return out;
}

/** The largest peak RSS (VmHWM, MB) of a process and its descendants. */
export function peakRssMB(pid: number): number {
  let peak = 0;
  for (const p of processTree(pid)) {
    try {
      const kb = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${p}/status`, "utf8"))?.[1];
      if (kb) peak = Math.max(peak, Number(kb) / 1024);
    } catch {
      /* the process ended */
    }
  }
  return peak;
}

/** Clock ticks a second, the unit of /proc/<pid>/stat's CPU times. */
const CLK_TCK = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

/** /proc/<pid>/stat's fields after the command name: ppid 1, utime 11, stime 12, cutime 13, cstime 14. */
function statFields(pid: number | "self"): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null; // the process ended
  }
}

/**
 * CPU seconds (user + system) of processes, from /proc: `own` the processes' own, `waited`
 * what their children that ended and were waited for used (a spawnSync'd CLI, an exited
 * PostgreSQL backend).
 */
export function cpuSeconds(pids: Array<number | "self">, part: "own" | "waited" | "both" = "both"): number {
  let ticks = 0;
  for (const pid of pids) {
    const f = statFields(pid);
    if (!f) continue;
    if (part !== "waited") ticks += Number(f[11]) + Number(f[12]);
    if (part !== "own") ticks += Number(f[13]) + Number(f[14]);
  }
  return ticks / CLK_TCK;
}

/** Every PostgreSQL server process on this machine (the postmaster and its backends). */
export function postgresPids(): number[] {
  return allPids().filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "postgres";
    } catch {
      return false; // the process ended
    }
  });
}
