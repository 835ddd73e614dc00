#!/usr/bin/env bash
# Starts the production build for end-to-end tests on a fresh database.
set -euo pipefail
cd "$(dirname "$0")/.."
port="$1"
case "${DATABASE_URL}" in
  file:*) rm -f "${DATABASE_URL#file:}" "${DATABASE_URL#file:}-wal" "${DATABASE_URL#file:}-shm" ;;
  postgres*) psql "${DATABASE_URL%/*}/postgres" -qc "DROP DATABASE IF EXISTS \"${DATABASE_URL##*/}\" WITH (FORCE)" >/dev/null ;;
esac
node scripts/retrace.mjs migrate
exec node_modules/.bin/next start -H 127.0.0.1 -p "$port"
