// Lint: no `any`, and the import boundaries of the architecture, checked by a machine:
// the pure core (lib/* outside lib/server, lib/cli) imports nothing from React, Next,
// Prisma or lib/server; only lib/server imports Prisma or the database drivers; no import
// cycles, type-only imports included; a folder with a door (index.ts) is entered through
// it; each lower layer imports only the layers below it; the rules of hooks; app/ reaches
// the database only through lib/server. tests/lint/boundaries.test.ts checks the rules bite.
import path from "node:path";
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import importX, { createNodeResolver } from "eslint-plugin-import-x";
import reactHooks from "eslint-plugin-react-hooks";
import noCycle from "./eslint-rules/no-cycle.mjs";

const ROOT = import.meta.dirname;

const PURE_CORE = [
  "lib/journal/**",
  "lib/canonical/**",
  "lib/state/**",
  "lib/semantics/**",
  "lib/redact/**",
  "lib/analyze/**",
  "lib/replay/**",
  "lib/graph/**",
  "lib/importers/**",
  "lib/compare/**",
  "lib/view/**",
  "lib/access/**",
  "lib/gateway/**",
  "lib/playback/**",
  "lib/mcp/**",
];

/** The pure core that runs on node only (files, sockets, crypto, zlib): no React, Next, Prisma or lib/server either. */
const NODE_CORE = ["lib/live/**", "lib/playback/**", "lib/recorder/**", "lib/evidence/**"];

const NO_REACT_NEXT_PRISMA = {
  group: ["react", "react-dom", "react/*", "next", "next/*", "@prisma/*", "prisma", "prisma/*", "pg", "better-sqlite3", "server-only"],
  message: "lib's pure core runs in the browser, node and tests: no React, Next, Prisma or drivers.",
};
const NO_SERVER = {
  group: ["**/server/**", "@/lib/server/*", "../server", "../server/*"],
  message: "the pure core must not import lib/server.",
};

const DB_ONLY_IN_SERVER = {
  group: ["@prisma/*", "pg", "better-sqlite3", "**/server/generated/**"],
  message: "database access lives in lib/server only.",
};

/** Folders entered only through their index.ts from outside (their own tests under tests/<name> aside). */
const DOORS = ["semantics", "playback", "replay", "analyze", "mcp"];

/** Files exempt from the doors until their owner rewrites them. */
// TODO(issue 28): the ordering helpers leave analyzer.ts for lib/semantics, lib/journal stops
// importing lib/semantics, lib/live/continue.ts is split (branch wt-kernel owns these three)
const DOOR_EXEMPT = [];

/** Globs of every file outside lib/<name> and tests/<name>, the exempt files aside. */
function outsideOf(name) {
  const exempt = new Map();
  for (const f of DOOR_EXEMPT) {
    const [, dir, file] = f.split("/");
    if (dir !== name) exempt.set(dir, [...(exempt.get(dir) ?? []), file.replace(/\.tsx?$/, "")]);
  }
  return [
    `${ROOT}/*`,
    `${ROOT}/!(lib|tests|node_modules)/**`,
    `${ROOT}/lib/!(${[name, ...exempt.keys()].join("|")})/**`,
    `${ROOT}/tests/!(${name})/**`,
    ...[...exempt].flatMap(([dir, files]) => [`${ROOT}/lib/${dir}/!(${files.join("|")}).{ts,tsx}`, `${ROOT}/lib/${dir}/*/**`]),
  ];
}

/**
 * Who each lower layer may import inside lib/ (their own test files aside). lib/journal also
 * reads lib/redact/patterns.ts and beyond-format.ts, the secret-pattern tables (leaves that
 * import nothing), to flag lines that may hold a secret while it parses them.
 */
const LAYERS = {
  journal: ["./journal", "./canonical", "./redact/patterns.ts", "./redact/beyond-format.ts"],
  semantics: ["./semantics", "./journal", "./canonical", "./state"],
  // lib/state too: the recorder keeps the run state (applyPatch), as lib/semantics does
  recorder: ["./recorder", "./journal", "./canonical", "./state", "./semantics", "./playback"],
};

/** Files exempt from a layer's allow-list until their owner moves them (each with its issue). */
const LAYER_EXEMPT = {};

const BOUNDARY_ZONES = [
  ...DOORS.map((name) => ({
    target: outsideOf(name),
    from: `./lib/${name}`,
    except: ["./index.ts", "./testing"],
    message: `Outside lib/${name}, import it through lib/${name}/index.ts (its door).`,
  })),
  ...Object.entries(LAYERS).map(([name, allowed]) => ({
    target: `${ROOT}/lib/${name}/**/!(${["*.test", ...(LAYER_EXEMPT[name] ?? [])].join("|")}).ts`,
    from: "./lib",
    except: allowed,
    message: `lib/${name} may import only ${allowed.map((a) => `lib/${a.slice(2)}`).join(", ")} inside lib/.`,
  })),
];

export default tseslint.config(
  {
    ignores: [
      "node_modules/**",
      ".next/**",
      "lib/server/generated/**",
      "lib/journal/generated/**",
      "packages/recorder/dist/**",
      "data/**",
      "test-results/**",
      "playwright-report/**",
      "next-env.d.ts",
      "public/**",
      ".tmp/**",
      ".bench/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // plain-JavaScript scripts and workers run on node
    files: ["**/*.mjs"],
    languageOptions: { globals: { console: "readonly", process: "readonly", Buffer: "readonly", URL: "readonly" } },
  },
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-constant-condition": ["error", { checkLoops: false }],
    },
  },
  {
    // one-way dependencies: a cycle means two modules are one module, or share a piece that
    // belongs in a third
    files: ["lib/**", "app/**", "components/**", "scripts/**"],
    plugins: { local: { rules: { "no-cycle": noCycle } } },
    rules: {
      // import-x/no-cycle skips type-only imports; this one counts them
      "local/no-cycle": ["error", { root: ROOT }],
    },
  },
  {
    // folder doors and the layers' allow-lists, tests and e2e included (a folder's own
    // tests under tests/<folder> may reach inside it)
    files: ["**/*.ts", "**/*.tsx", "**/*.mjs"],
    plugins: { "import-x": importX },
    settings: {
      "import-x/extensions": [".ts", ".tsx", ".mjs", ".js"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts", ".tsx"] },
      "import-x/resolver-next": [
        createNodeResolver({
          extensions: [".ts", ".tsx", ".mjs", ".js", ".json"],
          conditionNames: ["import", "require", "default"],
          tsconfig: { configFile: path.join(import.meta.dirname, "tsconfig.json") },
        }),
      ],
    },
    rules: {
      "import-x/no-restricted-paths": ["error", { basePath: ROOT, zones: BOUNDARY_ZONES }],
    },
  },
  {
    // the rules of hooks, and the React Compiler's checks of render purity (refs read or
    // written during render, setState called straight from an effect)
    files: ["app/**/*.tsx", "components/**/*.tsx", "components/**/*.ts"],
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs["recommended-latest"].rules,
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
      // only says the React Compiler would skip a component using TanStack Virtual's
      // useVirtualizer; the build does not run the compiler
      "react-hooks/incompatible-library": "off",
    },
  },
  {
    // pages, routes and actions stay thin: queries live in lib/server's query functions,
    // where they are tested on both databases
    files: ["app/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[property.name=/^(sql|prisma)$/]",
          message: "no db.sql / db.prisma under app/: put the query in a lib/server function.",
        },
      ],
      // the database reaches app/ only as the `db` the edge hands an authorized handler
      // one block sets this rule for app/ (a later block's options would replace these)
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            DB_ONLY_IN_SERVER,
            {
              group: ["@/lib/server/db", "**/lib/server/db"],
              message: "app/ gets the database from lib/server/edge (route, page, action), which authorizes first.",
            },
            {
              group: ["@/lib/server/access/*"],
              importNames: ["userPrincipal", "authenticate"],
              message: "authenticate through lib/server/edge.",
            },
          ],
        },
      ],
    },
  },
  {
    // every route handler is wrapped in the edge's route()
    files: ["app/**/route.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "ExportNamedDeclaration > FunctionDeclaration",
          message:
            "export route handlers as `export const GET = route({...}, handler)` (lib/server/edge): it authenticates and authorizes.",
        },
        {
          selector:
            "ExportNamedDeclaration > VariableDeclaration > VariableDeclarator[id.name=/^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)$/]:not([init.callee.name='route'])",
          message: "route handlers are `route({...}, handler)` calls (lib/server/edge).",
        },
        {
          selector: "MemberExpression[property.name=/^(sql|prisma)$/]",
          message: "no db.sql / db.prisma under app/: put the query in a lib/server function.",
        },
      ],
    },
  },
  {
    // every page is wrapped in the edge's page(), but the two that read nothing
    files: ["app/**/page.tsx"],
    ignores: ["app/login/page.tsx", "app/setup/page.tsx"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "ExportDefaultDeclaration > :not(CallExpression[callee.name='page'])",
          message: "pages are `export default page({...}, render)` (lib/server/edge): it authenticates and authorizes.",
        },
        {
          selector: "MemberExpression[property.name=/^(sql|prisma)$/]",
          message: "no db.sql / db.prisma under app/: put the query in a lib/server function.",
        },
      ],
    },
  },
  {
    // every server action is wrapped in the edge's action()
    files: ["app/actions/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "ExportNamedDeclaration > FunctionDeclaration",
          message: "server actions are `export const x = action({...}, schema, fn)` (lib/server/edge).",
        },
        {
          selector: "ExportNamedDeclaration > VariableDeclaration > VariableDeclarator:not([init.callee.name='action'])",
          message: "server actions are `action({...}, schema, fn)` calls (lib/server/edge).",
        },
      ],
    },
  },
  {
    files: PURE_CORE,
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            NO_REACT_NEXT_PRISMA,
            NO_SERVER,
            {
              group: ["node:*", "fs", "path", "crypto", "http", "https", "net", "child_process"],
              message: "the pure core runs in the browser too: no node modules.",
            },
          ],
        },
      ],
    },
  },
  {
    files: NODE_CORE,
    ignores: ["**/*.test.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [NO_REACT_NEXT_PRISMA, NO_SERVER] }] },
  },
  {
    // Playwright waits on a condition the page shows, never on a clock
    files: ["e2e/**"],
    rules: {
      "no-restricted-properties": [
        "error",
        { property: "waitForTimeout", message: "wait on a condition (expect(...), waitForFunction, a ready signal), not a timeout." },
      ],
    },
  },
  {
    files: ["components/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            DB_ONLY_IN_SERVER,
            {
              group: ["@/lib/server/*", "**/lib/server/**"],
              message: "components are presentational: server data comes through TanStack Query.",
            },
          ],
        },
      ],
    },
  },
);
