// Lint: no `any`, and the import boundaries of the architecture, checked by a machine:
// the pure core (lib/* outside lib/server, lib/cli, lib/recorder) imports nothing from
// React, Next, Prisma or lib/server; only lib/server imports Prisma or the database drivers;
// no import cycles; the rules of hooks; app/ reaches the database only through lib/server.
import path from "node:path";
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import importX, { createNodeResolver } from "eslint-plugin-import-x";
import reactHooks from "eslint-plugin-react-hooks";

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
    plugins: { "import-x": importX },
    settings: {
      "import-x/extensions": [".ts", ".tsx", ".mjs", ".js"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts", ".tsx"] },
      "import-x/resolver-next": [
        createNodeResolver({
          extensions: [".ts", ".tsx", ".mjs", ".js", ".json"],
          conditionNames: ["import", "require", "default"],
          // resolves the `@/` alias from tsconfig.json's paths
          tsconfig: { configFile: path.join(import.meta.dirname, "tsconfig.json") },
        }),
      ],
    },
    rules: {
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
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
      "no-restricted-imports": [
        "error",
        {
          patterns: [
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
            {
              group: [
                "react",
                "react-dom",
                "react/*",
                "next",
                "next/*",
                "@prisma/*",
                "prisma",
                "prisma/*",
                "pg",
                "better-sqlite3",
                "server-only",
              ],
              message: "lib's pure core runs in the browser, node and tests: no React, Next, Prisma or drivers.",
            },
            { group: ["**/server/**", "@/lib/server/*", "../server", "../server/*"], message: "the pure core must not import lib/server." },
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
    files: ["app/**", "components/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["@prisma/*", "pg", "better-sqlite3", "**/server/generated/**"],
              message: "database access lives in lib/server only.",
            },
          ],
        },
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
