/**
 * `local/no-cycle`: no import cycle among the repository's own files, counting type-only
 * imports (`import type`, `export type … from`) and dynamic `import()` alike. A type cycle
 * is still two modules that cannot be understood apart; import-x/no-cycle skips type imports
 * and has no option to count them, so this rule walks the import graph itself.
 *
 * Imports are read with TypeScript's `preProcessFile` (no type-check) and resolved like
 * tsconfig.json does here: relative paths and the `@/` alias, with or without an extension,
 * or a folder's index. Bare package names are outside the graph.
 */
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

const EXTENSIONS = [".ts", ".tsx", ".mjs", ".js"];

/** file → the repository files it imports (one lint run; the file being linted is read from its text) */
const graph = new Map();
const isFileCache = new Map();

function isFile(p) {
  let v = isFileCache.get(p);
  if (v === undefined) {
    try {
      v = fs.statSync(p).isFile();
    } catch {
      v = false;
    }
    isFileCache.set(p, v);
  }
  return v;
}

function resolveImport(root, fromFile, spec) {
  let base;
  if (spec.startsWith("@/")) base = path.join(root, spec.slice(2));
  else if (spec === "." || spec === ".." || spec.startsWith("./") || spec.startsWith("../"))
    base = path.resolve(path.dirname(fromFile), spec);
  else return null;
  const candidates = [base, ...EXTENSIONS.map((e) => base + e), ...EXTENSIONS.map((e) => path.join(base, `index${e}`))];
  if (base.endsWith(".js")) candidates.push(base.slice(0, -3) + ".ts", base.slice(0, -3) + ".tsx");
  for (const c of candidates) if (isFile(c) && !c.includes(`${path.sep}node_modules${path.sep}`)) return c;
  return null;
}

function importsOf(root, file, text) {
  const specs = ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
  const out = new Map();
  for (const s of specs) {
    const r = resolveImport(root, file, s);
    if (r) out.set(s, r);
  }
  return out;
}

function depsOf(root, file) {
  let d = graph.get(file);
  if (d === undefined) {
    let text = "";
    try {
      text = fs.readFileSync(file, "utf8");
    } catch {
      text = "";
    }
    d = importsOf(root, file, text);
    graph.set(file, d);
  }
  return d;
}

/** A path of files from `start` back to `goal`, or null. */
function pathBack(root, start, goal) {
  const prev = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const f = queue.shift();
    for (const next of new Set(depsOf(root, f).values())) {
      if (next === goal) {
        const chain = [f];
        for (let p = prev.get(f); p !== null; p = prev.get(p)) chain.unshift(p);
        return chain;
      }
      if (!prev.has(next)) {
        prev.set(next, f);
        queue.push(next);
      }
    }
  }
  return null;
}

export default {
  meta: {
    type: "problem",
    docs: { description: "no import cycles among the repository's files, type-only imports included" },
    schema: [{ type: "object", properties: { root: { type: "string" } }, required: ["root"], additionalProperties: false }],
    messages: { cycle: "Dependency cycle (type-only imports count): {{chain}}" },
  },
  create(context) {
    const root = context.options[0].root;
    const file = context.physicalFilename;
    if (!path.isAbsolute(file)) return {};
    const own = importsOf(root, file, context.sourceCode.text);
    graph.set(file, own);
    const rel = (f) => path.relative(root, f);
    const check = (node) => {
      const spec = node.source && node.source.type === "Literal" ? node.source.value : null;
      if (typeof spec !== "string") return;
      const target = own.get(spec);
      if (!target || target === file) return;
      const chain = pathBack(root, target, file);
      if (chain) context.report({ node: node.source, messageId: "cycle", data: { chain: [file, ...chain, file].map(rel).join(" → ") } });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};
