// `npm run -s retrace -- <command>`: runs the CLI (lib/cli/main.ts) from one bundled file.
//
// Why a bundle: loading the CLI's ~200 TypeScript modules through tsx's loader hooks took
// about 1.2 s before a command did anything, which dominated short imports and every
// script calling the CLI. esbuild bundles the sources (dependencies stay in node_modules)
// in about 0.3 s, once per set of sources (their paths, sizes and mtimes), into
// node_modules/.cache (so `npm ci` starts fresh). If bundling fails it falls back to tsx.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { NODE_BUNDLE_OPTIONS, SQLITE_WRITER_ENTRY, SQLITE_WRITER_OUT } from "./build-sqlite-writer.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cacheDir = path.join(root, "node_modules", ".cache", "retrace-cli");
const SOURCES = [
  "lib",
  "prisma/adapters.ts",
  "tsconfig.json",
  "package-lock.json",
  "scripts/retrace.mjs",
  "scripts/build-sqlite-writer.mjs",
];

/** Every source file's path and mtime, as one string: the bundle's key. */
function sourceStamp(p, out) {
  let st;
  try {
    st = fs.statSync(p);
  } catch {
    return;
  }
  if (!st.isDirectory()) {
    out.push(`${path.relative(root, p)}:${st.mtimeMs}:${st.size}`);
    return;
  }
  // the generated writer is not the bundle's (it bundles its own from the same sources)
  for (const name of fs.readdirSync(p).sort())
    if (name !== "node_modules" && !name.startsWith("sqlite-writer.worker.mjs")) sourceStamp(path.join(p, name), out);
}

async function build(dir) {
  const esbuild = await import("esbuild");
  fs.mkdirSync(cacheDir, { recursive: true });
  const tmp = `${dir}.${process.pid}.tmp`;
  fs.rmSync(tmp, { recursive: true, force: true });
  await esbuild.build({
    ...NODE_BUNDLE_OPTIONS,
    // The SQLite writer thread is an entry of its own, where sql.ts (in a chunk beside
    // main.mjs) looks for it; the code both threads use lands in shared chunks.
    entryPoints: { main: path.join(root, "lib/cli/main.ts"), [SQLITE_WRITER_OUT]: SQLITE_WRITER_ENTRY },
    // each command (and what only it needs) in its own chunk, loaded when it runs
    splitting: true,
    chunkNames: "chunk-[hash]",
    outExtension: { ".js": ".mjs" },
    outdir: tmp,
  });
  // Each set of sources gets its own directory, never changed once renamed into place, so
  // CLIs running in parallel (the test suite) never see half a bundle or lose a chunk.
  try {
    fs.renameSync(tmp, dir);
  } catch {
    fs.rmSync(tmp, { recursive: true, force: true }); // another process built the same key
  }
  // bundles of older sources that no running CLI can still be loading
  for (const name of fs.readdirSync(cacheDir)) {
    const other = path.join(cacheDir, name);
    try {
      if (other !== dir && Date.now() - fs.statSync(other).mtimeMs > 3600_000) fs.rmSync(other, { recursive: true, force: true });
    } catch {
      /* removed meanwhile by another CLI */
    }
  }
}

async function main() {
  const stamp = [];
  for (const src of SOURCES) sourceStamp(path.join(root, src), stamp);
  const key = createHash("sha256").update(stamp.join("\n")).digest("hex").slice(0, 16);
  const dir = path.join(cacheDir, key);
  const bundle = path.join(dir, "main.mjs");
  if (!fs.existsSync(bundle)) {
    try {
      await build(dir);
    } catch (e) {
      process.stderr.write(`retrace: could not bundle the CLI (${e instanceof Error ? e.message : String(e)}); running it through tsx\n`);
      const r = spawnSync(
        path.join(root, "node_modules/.bin/tsx"),
        ["--conditions=react-server", path.join(root, "lib/cli/main.ts"), ...process.argv.slice(2)],
        { stdio: "inherit" },
      );
      process.exit(r.status ?? 2);
    }
  }
  await import(pathToFileURL(bundle).href);
}

await main();
