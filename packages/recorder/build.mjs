// Bundles lib/recorder (and its testing entry) into dist/ with esbuild. The repository's lib/
// modules are marked free of side effects (they are: tables and functions, no registration at
// import), so esbuild leaves out what the recorder never calls: lib/playback's door also
// re-exports the gateway's matcher, whose wire codecs would bring the journal validator and
// zod (about 1.2 MB) into a package that needs neither.
import { build } from "esbuild";
import path from "node:path";

const lib = path.resolve(import.meta.dirname, "../../lib");

await build({
  entryPoints: [path.join(lib, "recorder/index.ts"), path.join(lib, "recorder/testing/index.ts")],
  outbase: path.join(lib, "recorder"),
  outdir: path.join(import.meta.dirname, "dist"),
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node20",
  chunkNames: "chunks/[name]-[hash]",
  logLevel: "warning",
  metafile: process.argv.includes("--metafile"),
  plugins: [
    {
      name: "pure-lib",
      setup(b) {
        b.onResolve({ filter: /^\.\.?\// }, async (args) => {
          if (args.pluginData?.pure) return undefined;
          const r = await b.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, pluginData: { pure: true } });
          if (r.errors.length > 0) return undefined;
          return r.path.startsWith(lib + path.sep) ? { path: r.path, sideEffects: false } : undefined;
        });
      },
    },
  ],
}).then((r) => {
  if (r.metafile) {
    const bytes = Object.values(r.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
    console.log(`dist: ${bytes} bytes`);
  }
});
