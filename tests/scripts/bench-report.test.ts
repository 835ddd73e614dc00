import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeBenchSection, type BenchReport } from "../../scripts/bench-report";

const dirs: string[] = [];
const tempDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "bench-report-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe("the benchmark report", () => {
  it("keeps every bench's section when one bench writes its own again", () => {
    const dir = tempDir();
    writeBenchSection(
      "replay",
      { title: "Replay", command: "npm run bench:replay", figures: [{ label: "analyze", value: 400, unit: "ms" }] },
      dir,
    );
    writeBenchSection(
      "ingest",
      { title: "Ingest", command: "npm run bench:ingest", figures: [{ label: "POST", value: 9000, unit: "events/s" }] },
      dir,
    );
    writeBenchSection(
      "replay",
      { title: "Replay", command: "npm run bench:replay", figures: [{ label: "analyze", value: 380, unit: "ms" }] },
      dir,
    );
    const report = JSON.parse(fs.readFileSync(path.join(dir, "benchmarks.json"), "utf8")) as BenchReport;
    expect(Object.keys(report.sections)).toEqual(["ingest", "replay"]);
    expect(report.sections.replay.figures).toEqual([{ label: "analyze", value: 380, unit: "ms" }]);
    expect(report.sections.ingest.figures[0].value).toBe(9000);
  });

  it("gives a figure with a baseline its ratio, in the JSON and the Markdown", () => {
    const dir = tempDir();
    writeBenchSection(
      "ingest",
      {
        title: "Ingest",
        command: "npm run bench:ingest",
        figures: [{ label: "SQLite POST", value: 30_000, unit: "events/s", baseline: { label: "raw INSERT", value: 120_000 } }],
      },
      dir,
    );
    const report = JSON.parse(fs.readFileSync(path.join(dir, "benchmarks.json"), "utf8")) as BenchReport;
    expect(report.sections.ingest.figures[0].ratio).toBe(0.25);
    const md = fs.readFileSync(path.join(dir, "benchmarks.md"), "utf8");
    expect(md).toContain("| SQLite POST | 30,000 | events/s | raw INSERT: 120,000 | 0.25 |");
    expect(md).toContain(`${os.cpus().length} cores`);
    expect(md).toContain(`node ${process.version}`);
  });
});
