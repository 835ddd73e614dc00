# Sourced by test-all.sh (or run: bash scripts/ensure-test-clients.sh): installs the
# test-only client package (packages/test-clients: Claude Code, Codex, the SDKs and MCP
# servers the gateway tests and bench drive) when its node_modules is missing or its lock
# changed since the install. The lock's hash is the stamp, as in ensure-deps.sh. Optional
# dependencies stay in: the CLIs ship their native binaries in them.
(
  set -euo pipefail
  cd "$(dirname "${BASH_SOURCE[0]}")/../packages/test-clients"
  lock_hash="$(sha256sum package-lock.json | cut -d' ' -f1)"
  stamp=node_modules/.retrace-lock-sha256
  if [ ! -d node_modules ] || [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_hash" ]; then
    echo "== test clients (npm install in packages/test-clients: its lock as it is)"
    npm install --no-audit --no-fund --include=optional
    echo "$lock_hash" >"$stamp"
  fi
)
