// Prints the suite's plain closing line, "N passed, N failed", from the JSON reports that
// vitest and Playwright wrote, so CI reads one total for both runners.
import fs from "node:fs";

let passed = 0;
let failed = 0;
let skipped = 0;
const v = JSON.parse(fs.readFileSync(".test-reports/vitest.json", "utf8"));
passed += v.numPassedTests ?? 0;
failed += v.numFailedTests ?? 0;
skipped += (v.numPendingTests ?? 0) + (v.numTodoTests ?? 0);
if (fs.existsSync(".test-reports/playwright.json")) {
  const p = JSON.parse(fs.readFileSync(".test-reports/playwright.json", "utf8"));
  passed += (p.stats?.expected ?? 0) + (p.stats?.flaky ?? 0);
  failed += p.stats?.unexpected ?? 0;
  skipped += p.stats?.skipped ?? 0;
}
console.log(`${passed} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : ""));
process.exit(failed > 0 ? 1 : 0);
