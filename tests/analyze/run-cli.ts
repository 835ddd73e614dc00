/** Runs the real CLI as users do (`npm run -s retrace -- …` runs scripts/retrace.mjs). */
import { spawnSync } from "node:child_process";
import path from "node:path";

export const ROOT = path.resolve(__dirname, "../..");

export function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [path.join(ROOT, "scripts/retrace.mjs"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
