/** Runs the real CLI as users do (`npx tsx --conditions=react-server lib/cli/main.ts …`). */
import { spawnSync } from "node:child_process";
import path from "node:path";

export const ROOT = path.resolve(__dirname, "../..");

export function cli(...args: string[]) {
  const r = spawnSync("npx", ["tsx", "--conditions=react-server", "lib/cli/main.ts", ...args], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
