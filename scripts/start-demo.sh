#!/usr/bin/env bash
# One command from a fresh clone to Retrace on http://127.0.0.1:3000 with demo runs:
# install (if needed), migrate the embedded SQLite database, record the demo agent's runs,
# load them with the example journals and a few real traces, build, and serve.
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1
export npm_config_nodedir="${npm_config_nodedir:-/usr}"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
npm run -s retrace -- migrate
mkdir -p data/demo
bank="$(mktemp -d)"; node_modules/.bin/tsx scripts/demo-agent/main.ts --out data/demo --db "$bank" >/dev/null; rm -rf "$bank"
npm run -s retrace -- import data/demo/*.jsonl tests/fixtures/examples/*.jsonl \
  tests/fixtures/corpus/otel-genai/any-agent-llama-index.json \
  tests/fixtures/corpus/langfuse/langfuse-qa-chatbot-mcp-toolcall.json \
  tests/fixtures/corpus/swe-agent/pydicom-1458-gpt4.traj >/dev/null
if [ ! -f .next/BUILD_ID ] || [ -n "$(find app components lib public -newer .next/BUILD_ID -type f -print -quit 2>/dev/null)" ]; then
  node_modules/.bin/next build
fi
echo "Retrace is serving http://127.0.0.1:${PORT:-3000}"
exec node_modules/.bin/next start -H 127.0.0.1 -p "${PORT:-3000}"
