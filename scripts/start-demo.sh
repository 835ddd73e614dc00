#!/usr/bin/env bash
# One command from a fresh clone to Retrace on http://127.0.0.1:3000 with demo runs:
# install (if needed), migrate the embedded SQLite database, load the demo journals,
# build and serve.
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1
export npm_config_nodedir="${npm_config_nodedir:-/usr}"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
npm run -s retrace -- migrate
npm run -s retrace -- import tests/fixtures/examples/*.jsonl >/dev/null
if [ -d scripts/demo-agent ] && [ -f demo/journals/.keep ] ; then :; fi
if [ ! -f .next/BUILD_ID ] || [ -n "$(find app components lib -newer .next/BUILD_ID -name '*.ts*' -print -quit 2>/dev/null)" ]; then
  node_modules/.bin/next build
fi
echo "Retrace is serving http://127.0.0.1:${PORT:-3000}"
exec node_modules/.bin/next start -H 127.0.0.1 -p "${PORT:-3000}"
