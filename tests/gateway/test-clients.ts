// Where the test-only client package lives (packages/test-clients: the agent CLIs and the
// SDKs the gateway is tested with; scripts/ensure-test-clients.sh installs it), and how a
// test reaches its binaries and modules without the app depending on them.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const TEST_CLIENTS_DIR = path.resolve(import.meta.dirname, "../../packages/test-clients");

function requireInstalled(): void {
  if (!existsSync(path.join(TEST_CLIENTS_DIR, "node_modules"))) {
    throw new Error(`${TEST_CLIENTS_DIR}/node_modules is missing: run bash scripts/ensure-test-clients.sh`);
  }
}

/** the path of a CLI the package installs (`claude`, `codex`) */
export function clientBin(name: string): string {
  requireInstalled();
  return path.join(TEST_CLIENTS_DIR, "node_modules", ".bin", name);
}

/** a module of the package, loaded at run time; the caller states the little it uses */
export async function importClient<T>(name: string): Promise<T> {
  requireInstalled();
  const resolved = createRequire(path.join(TEST_CLIENTS_DIR, "package.json")).resolve(name);
  return (await import(pathToFileURL(resolved).href)) as T;
}
