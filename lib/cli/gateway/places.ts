/** Where the agent runs, as the gateway records it and maps it on replay (lib/playback/paths.ts). */
import os from "node:os";
import path from "node:path";

/** Environment variables naming an agent's config folder, which holds per-run paths. */
export const PLACE_VARS = ["CODEX_HOME", "CLAUDE_CONFIG_DIR"] as const;

/** The places of an agent started in `cwd` (default: here) with this process's environment. */
export function currentPlaces(cwd?: string): Record<string, string> {
  const out: Record<string, string> = { cwd: path.resolve(cwd ?? process.cwd()), home: os.homedir() };
  for (const v of PLACE_VARS) {
    const value = process.env[v];
    if (value) out[v] = value;
  }
  return out;
}
