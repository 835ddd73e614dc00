/**
 * The import boundaries `npm run lint` enforces (eslint.config.mjs), each shown to bite on a
 * fixture linted with the project's own config through ESLint's Node API: a folder with a
 * door (index.ts) entered past it, a type-only import cycle, a layer importing above its
 * allow-list, and the pure core importing React, Next or lib/server. Each has a control
 * that the same rule lets pass, so a rule that reports everything fails too.
 */
import fs from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "../..");
let eslint: ESLint;

/** The rule ids and messages ESLint reports for `code` as if it were the file at `rel`. */
async function lint(rel: string, code: string): Promise<{ rule: string | null; message: string }[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, rel) });
  return result.messages.map((m) => ({ rule: m.ruleId, message: m.message }));
}

const rules = (msgs: { rule: string | null }[]) => msgs.map((m) => m.rule);

beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT });
});

describe("folder doors: outside lib/semantics, lib/replay, lib/analyze and lib/playback only index.ts", () => {
  it("fails on an import of lib/semantics/<file> from outside the folder, relative or by alias", async () => {
    const relative = await lint("lib/view/door-fixture.ts", `import { groupOf } from "../semantics/effects";\nexport const g = groupOf;\n`);
    expect(relative).toEqual([{ rule: "import-x/no-restricted-paths", message: expect.stringMatching(/lib\/semantics\/index\.ts/) }]);
    const alias = await lint("components/door-fixture.tsx", `import { plural } from "@/lib/semantics/health";\nexport const p = plural;\n`);
    expect(rules(alias)).toEqual(["import-x/no-restricted-paths"]);
  });

  it("lets the folder's index.ts in, and the folder's own files import each other", async () => {
    expect(await lint("lib/view/door-fixture.ts", `import { groupOf } from "../semantics";\nexport const g = groupOf;\n`)).toEqual([]);
    expect(await lint("lib/semantics/door-fixture.ts", `import { groupOf } from "./effects";\nexport const g = groupOf;\n`)).toEqual([]);
  });

  it("fails on lib/mcp/<file> from outside (the MCP proxy's edge enters through the door)", async () => {
    const msgs = await lint(
      "lib/cli/mcp/door-fixture.ts",
      `import { McpRecorder } from "../../mcp/recorder";\nexport const r = McpRecorder;\n`,
    );
    expect(rules(msgs)).toEqual(["import-x/no-restricted-paths"]);
    expect(await lint("lib/cli/mcp/door-fixture.ts", `import { McpRecorder } from "../../mcp";\nexport const r = McpRecorder;\n`)).toEqual(
      [],
    );
  });

  it("fails on lib/replay/<file> and lib/analyze/<file> from outside, tests of another folder included", async () => {
    expect(
      rules(
        await lint("lib/graph/door-fixture.ts", `import { openPagedReplay } from "../replay/paged";\nexport const o = openPagedReplay;\n`),
      ),
    ).toEqual(["import-x/no-restricted-paths"]);
    expect(
      rules(
        await lint("tests/view/door-fixture.test.ts", `import { ruleText } from "@/lib/analyze/rule-text";\nexport const r = ruleText;\n`),
      ),
    ).toEqual(["import-x/no-restricted-paths"]);
  });
});

describe("layers: each lower layer imports only the layers its allow-list names", () => {
  it("fails on lib/recorder importing lib/importers", async () => {
    const msgs = await lint(
      "lib/recorder/layer-fixture.ts",
      `import { detectFormat } from "../importers/detect";\nexport const d = detectFormat;\n`,
    );
    expect(msgs).toEqual([{ rule: "import-x/no-restricted-paths", message: expect.stringMatching(/lib\/recorder may import only/) }]);
  });

  it("lets lib/recorder import lib/journal and lib/canonical", async () => {
    const code = `import { computeEventHash } from "../journal/chain";\nimport { canonicalJson } from "../canonical";\nexport const x = [computeEventHash, canonicalJson];\n`;
    expect(await lint("lib/recorder/layer-fixture.ts", code)).toEqual([]);
  });

  it("fails on lib/journal importing anything but lib/canonical, and lib/semantics importing lib/replay", async () => {
    expect(
      rules(await lint("lib/journal/layer-fixture.ts", `import { readPolicy } from "../semantics";\nexport const r = readPolicy;\n`)),
    ).toEqual(["import-x/no-restricted-paths"]);
    expect(
      rules(await lint("lib/semantics/layer-fixture.ts", `import { foldEvents } from "../replay";\nexport const f = foldEvents;\n`)),
    ).toEqual(["import-x/no-restricted-paths"]);
  });
});

describe("the pure core: lib/live, lib/recorder, lib/evidence, lib/playback and lib/mcp import no React, Next or lib/server", () => {
  for (const dir of ["live", "recorder", "evidence", "playback", "mcp"])
    it(`fails on lib/${dir} importing react or lib/server`, async () => {
      const msgs = await lint(
        `lib/${dir}/core-fixture.ts`,
        `import { useState } from "react";\nimport { openDb } from "../server/db";\nexport const x = [useState, openDb];\n`,
      );
      expect(msgs.filter((m) => m.rule === "no-restricted-imports")).toHaveLength(2);
    });
});

describe("cycles: a type-only import cycle is a cycle", () => {
  // real files, since the rule follows imports on disk; a folder the lint covers, removed after
  const dir = path.join(ROOT, "lib", `lint-fixture-${process.pid}`);
  beforeAll(() => {
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "a.ts"), `import type { B } from "./b";\nexport interface A {\n  b?: B;\n}\n`);
    fs.writeFileSync(path.join(dir, "b.ts"), `import type { A } from "./a";\nexport interface B {\n  a?: A;\n}\n`);
    fs.writeFileSync(path.join(dir, "c.ts"), `import type { A } from "./a";\nexport interface C {\n  a?: A;\n}\n`);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("fails on two files that import each other's types, naming the cycle", async () => {
    const [a] = await eslint.lintFiles([path.join(dir, "a.ts")]);
    expect(a.messages.map((m) => ({ rule: m.ruleId, message: m.message }))).toEqual([
      {
        rule: "local/no-cycle",
        message: expect.stringContaining(`a.ts → lib/lint-fixture-${process.pid}/b.ts → lib/lint-fixture-${process.pid}/a.ts`),
      },
    ]);
  });

  it("lets a one-way type import pass", async () => {
    const [c] = await eslint.lintFiles([path.join(dir, "c.ts")]);
    expect(c.messages).toEqual([]);
  });
});

describe("app/ and components/: database access only through lib/server's edge", () => {
  it("fails on app/ importing lib/server/db, and on either importing a driver", async () => {
    // both rules used to sit in two blocks, the later replacing the earlier for app/
    expect(rules(await lint("app/edge-fixture.ts", `import { openDb } from "@/lib/server/db";\nexport const o = openDb;\n`))).toEqual([
      "no-restricted-imports",
    ]);
    expect(rules(await lint("app/edge-fixture.ts", `import pg from "pg";\nexport const p = pg;\n`))).toEqual(["no-restricted-imports"]);
    expect(rules(await lint("components/edge-fixture.tsx", `import pg from "pg";\nexport const p = pg;\n`))).toEqual([
      "no-restricted-imports",
    ]);
  });
});
