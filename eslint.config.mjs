// Lint: no `any`, and the import boundaries of the architecture, checked by a machine:
// the pure core (lib/* outside lib/server, lib/cli, lib/recorder) imports nothing from
// React, Next, Prisma or lib/server; only lib/server imports Prisma or the database drivers.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

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
];

export default tseslint.config(
  {
    ignores: [
      "node_modules/**",
      ".next/**",
      "lib/server/generated/**",
      "lib/journal/generated/**",
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
