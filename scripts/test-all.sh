#!/usr/bin/env bash
# The whole test suite: lint, types, unit and storage tests on SQLite and PostgreSQL
# (vitest), then the browser and HTTP tests (Playwright, Chromium from Debian).
# Needs PostgreSQL on 127.0.0.1:5432 (trust auth) and /usr/bin/chromium; .ci/run
# provides both on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1
export npm_config_nodedir="${npm_config_nodedir:-/usr}"
. scripts/ensure-deps.sh
. scripts/ensure-test-clients.sh
echo "== format"
node_modules/.bin/prettier --check --log-level warn "**/*.{ts,tsx,mjs,js,css}"
echo "== lint"
# also import cycles, the rules of hooks and no db.sql/db.prisma under app/ (eslint.config.mjs)
node_modules/.bin/eslint . --max-warnings 0
# tests assert behaviour; durations are measured by scripts/bench-*.ts (docs/benchmarks.md)
if grep -rn "performance\.now()" tests e2e --include="*.ts" || grep -rn "performance\.now()" lib app components --include="*.test.ts"; then
  echo "timing in a test: measure it in a scripts/bench-*.ts instead" >&2
  exit 1
fi
echo "== types"
node_modules/.bin/tsc --noEmit
echo "== CLI bundle"
# built once here, so the tests that run the CLI in parallel find it ready
node scripts/retrace.mjs --help > /dev/null
echo "== unit and storage tests (SQLite + PostgreSQL)"
mkdir -p .test-reports && rm -f .test-reports/*.json
node_modules/.bin/vitest run --reporter=default --reporter=json --outputFile=.test-reports/vitest.json
echo "== production build"
node_modules/.bin/next build > .next-build.log 2>&1 || { cat .next-build.log; exit 1; }
echo "== browser and HTTP tests (Playwright + Chromium, SQLite + PostgreSQL servers)"
PLAYWRIGHT_JSON_OUTPUT_NAME=.test-reports/playwright.json node_modules/.bin/playwright test --reporter=list,json
echo "== total"
node scripts/test-summary.mjs
