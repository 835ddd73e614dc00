# Sourced by start-demo.sh and test-all.sh: installs node_modules when missing or when
# package-lock.json changed since the install. The lock's hash is the stamp, not file
# times: a checkout or a linked copy of node_modules makes the lock look newer than an
# install that matches it (and reinstalling there wipes the copy it is linked to).
lock_hash="$(sha256sum package-lock.json | cut -d' ' -f1)"
stamp=node_modules/.retrace-lock-sha256
if [ ! -d node_modules ] || { [ -f "$stamp" ] && [ "$(cat "$stamp")" != "$lock_hash" ]; } ||
  { [ ! -f "$stamp" ] && [ package-lock.json -nt node_modules/.package-lock.json ]; }; then
  npm ci --no-audit --no-fund
fi
echo "$lock_hash" >"$stamp"
