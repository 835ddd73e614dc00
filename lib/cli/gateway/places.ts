/** Where the agent runs, as the gateway records it and maps it on replay (lib/playback/paths.ts). */
import os from "node:os";

/** Environment variables naming an agent's config folder, which holds per-run paths. */
const PLACE_VARS = ["CODEX_HOME", "CLAUDE_CONFIG_DIR"] as const;

export function currentPlaces(): Record<string, string> {
  const out: Record<string, string> = { cwd: process.cwd(), home: os.homedir() };
  for (const v of PLACE_VARS) {
    const value = process.env[v];
    if (value) out[v] = value;
  }
  return out;
}
