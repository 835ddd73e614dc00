// Adds file extensions to the relative imports of the emitted declarations: consumers that
// resolve as Node does (`moduleResolution: node16 | nodenext`) need `./x.js`, not `./x`.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const root = join(dirname(new URL(import.meta.url).pathname), "dist", "types");

/** @param {string} dir @returns {string[]} */
function declarations(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? declarations(p) : p.endsWith(".d.ts") ? [p] : [];
  });
}

for (const file of declarations(root)) {
  const text = readFileSync(file, "utf8");
  const fixed = text.replace(/(from\s+|import\()(["'])(\.{1,2}\/[^"']*)\2/g, (whole, lead, quote, spec) => {
    if (/\.js$/.test(spec)) return whole;
    const base = join(dirname(file), spec);
    if (existsSync(`${base}.d.ts`)) return `${lead}${quote}${spec}.js${quote}`;
    if (existsSync(join(base, "index.d.ts"))) return `${lead}${quote}${spec}/index.js${quote}`;
    throw new Error(`${file}: cannot resolve ${spec}`);
  });
  if (fixed !== text) writeFileSync(file, fixed);
}
