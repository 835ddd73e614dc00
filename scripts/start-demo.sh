#!/usr/bin/env bash
# One command from a fresh clone to Retrace on http://127.0.0.1:3000 with demo runs:
# install (if needed), migrate the embedded SQLite database, record the demo agent's runs,
# load them with the example journals and a few real traces, build, and serve.
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1
export npm_config_nodedir="${npm_config_nodedir:-/usr}"
. scripts/ensure-deps.sh
npm run -s retrace -- migrate
mkdir -p data/demo
# the banks the demo agent leaves behind are the sandbox executors' state (data/demo/bank)
rm -rf data/demo/bank; node_modules/.bin/tsx scripts/demo-agent/main.ts --out data/demo --db data/demo/bank >/dev/null
npm run -s retrace -- import data/demo/*.jsonl tests/fixtures/examples/*.jsonl \
  tests/fixtures/corpus/otel-genai/any-agent-llama-index.json \
  tests/fixtures/corpus/langfuse/langfuse-qa-chatbot-mcp-toolcall.json \
  tests/fixtures/corpus/swe-agent/pydicom-1458-gpt4.traj >/dev/null
if [ ! -f .next/BUILD_ID ] || [ -n "$(find app components lib public -newer .next/BUILD_ID -type f -print -quit 2>/dev/null)" ]; then
  node_modules/.bin/next build
fi
# the demo bank and scripted model as the default project's sandbox executors (docs/live-actions.md);
# a fresh bearer token each start, kept by Retrace encrypted under data/retrace.executor-key
bank_port="${DEMO_BANK_PORT:-$(( ${PORT:-3000} + 1 ))}"
# executors may reach loopback only where the deployment allows it: here, the demo bank's port
export RETRACE_EXECUTOR_HOSTS="${RETRACE_EXECUTOR_HOSTS:+$RETRACE_EXECUTOR_HOSTS,}127.0.0.1:${bank_port}"
DEMO_BANK_TOKEN="$(node -e 'console.log(require("crypto").randomBytes(24).toString("hex"))')"
export DEMO_BANK_TOKEN
node_modules/.bin/tsx scripts/demo-agent/bank-server.ts --db data/demo/bank --port "$bank_port" &
bank_pid=$!
trap 'kill "$bank_pid" 2>/dev/null || true' EXIT INT TERM
echo "$DEMO_BANK_TOKEN" | npm run -s retrace -- executor add --project default --kind tool --name '*' --env sandbox \
  --url "http://127.0.0.1:${bank_port}" --credential --replace >/dev/null
echo "$DEMO_BANK_TOKEN" | npm run -s retrace -- executor add --project default --kind model --name scripted-planner-1 --env sandbox \
  --url "http://127.0.0.1:${bank_port}/v1" --credential --replace >/dev/null
unset DEMO_BANK_TOKEN
echo "Retrace is serving http://127.0.0.1:${PORT:-3000} (sandbox executors: the demo bank on 127.0.0.1:${bank_port})"
node_modules/.bin/next start -H 127.0.0.1 -p "${PORT:-3000}"
