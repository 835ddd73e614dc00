// Bundles the SQLite writer thread (lib/server/sqlite-writer.worker.ts) into
// lib/server/generated/sqlite-writer.worker.mjs, the file sql.ts starts: a worker thread
// loads JavaScript as it is, and the writer imports lib/canonical and lib/journal/chain
// (TypeScript) so that canonical JSON and the chain hash are written once. The output is
// generated (gitignored), rebuilt wherever the code runs from sources: postinstall,
// next.config.js (next build, next dev) and the test setup. The CLI bundle builds the
// same entry beside itself (scripts/retrace.mjs).
//   node scripts/build-sqlite-writer.mjs
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export const SQLITE_WRITER_ENTRY = path.join(root, "lib/server/sqlite-writer.worker.ts");
/** Where sql.ts looks for the writer, relative to itself: `./generated/sqlite-writer.worker.mjs`. */
export const SQLITE_WRITER_OUT = "generated/sqlite-writer.worker";

/** esbuild options shared with the CLI bundle (scripts/retrace.mjs). */
export const NODE_BUNDLE_OPTIONS = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // lib/server imports `server-only`, which is importable under this condition only
  conditions: ["react-server"],
  // native and engine packages load from node_modules as they are
  external: ["better-sqlite3", "@prisma/*", "pg-native"],
  banner: { js: 'import { createRequire as __retraceRequire } from "node:module"; const require = __retraceRequire(import.meta.url);' },
  tsconfig: path.join(root, "tsconfig.json"),
  logLevel: "error",
};

/** Builds the writer into lib/server/generated/ (written only when its text changed). */
export async function buildSqliteWriter() {
  const esbuild = await import("esbuild");
  const out = path.join(root, "lib/server", `${SQLITE_WRITER_OUT}.mjs`);
  const result = await esbuild.build({ ...NODE_BUNDLE_OPTIONS, entryPoints: [SQLITE_WRITER_ENTRY], outfile: out, write: false });
  const text = result.outputFiles[0].text;
  let current = null;
  try {
    current = fs.readFileSync(out, "utf8");
  } catch {
    /* not built yet */
  }
  // unchanged text keeps its mtime, so a running `next dev` does not reload for nothing
  if (current !== text) {
    fs.mkdirSync(path.dirname(out), { recursive: true });
    const tmp = `${out}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, out); // parallel builds (test workers, next's processes) never see half a file
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await buildSqliteWriter();
