#!/usr/bin/env bash
# `npm run bench:ingest-instructions -- BASE_REF [EVENTS] [ROUNDS]`: the CLI import of one
# generated journal, counted in instructions by valgrind's callgrind (every thread of the
# process), for BASE_REF and for this checkout, alternating, ROUNDS times each. Instructions
# do not depend on what else the machine runs, so a change in ingest cost shows even on a
# shared, loaded machine where wall-clock benches (bench:ingest) swing by tens of percent.
# Prints each round and the ratio of medians, and records them in docs/benchmarks.
set -euo pipefail
cd "$(dirname "$0")/.."
base_ref="${1:?usage: bench-ingest-instructions.sh BASE_REF [EVENTS] [ROUNDS]}"
events="${2:-20000}"
rounds="${3:-2}"
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install -y valgrind)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'git worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git worktree add -q --detach "$work/base" "$base_ref"
cp -al node_modules "$work/base/"
mkdir -p "$work/base/lib/server/generated"
cp -a lib/server/generated/. "$work/base/lib/server/generated/"
[ -f "$work/base/scripts/build-sqlite-writer.mjs" ] && (cd "$work/base" && node scripts/build-sqlite-writer.mjs)
node_modules/.bin/tsx -e "import { generateJournal } from './scripts/bench-journal.ts'; import fs from 'node:fs'; fs.writeFileSync('$work/journal.jsonl', generateJournal($events, 'instr-run'));"
count() { # tree dir → instructions of one import
  local dir="$1" db="$work/db-$RANDOM.db"
  (cd "$dir" && DATABASE_URL="file:$db" node scripts/retrace.mjs migrate >/dev/null)
  (cd "$dir" && DATABASE_URL="file:$db" valgrind --tool=callgrind --trace-children=yes --smc-check=all-non-file \
    --callgrind-out-file="$work/cg.%p" node scripts/retrace.mjs import "$work/journal.jsonl" >/dev/null 2>&1)
  local total=0
  for f in "$work"/cg.*; do total=$((total + $(grep -m1 '^summary:' "$f" | awk '{print $2}'))); done
  rm -f "$work"/cg.* "$db" "$db-wal" "$db-shm"
  echo "$total"
}
base=() head=()
for r in $(seq "$rounds"); do
  b=$(count "$work/base"); base+=("$b"); echo "round $r: $base_ref $b instructions"
  h=$(count "$PWD"); head+=("$h"); echo "round $r: HEAD $h instructions"
done
node_modules/.bin/tsx -e "
import { writeBenchSection } from './scripts/bench-report.ts';
const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const base = [$(IFS=,; echo "${base[*]}")].map((n) => n / 1e6), head = [$(IFS=,; echo "${head[*]}")].map((n) => n / 1e6);
const spread = (xs: number[]) => (Math.max(...xs) - Math.min(...xs)) / median(xs);
console.log('HEAD / $base_ref (medians):', (median(head) / median(base)).toFixed(4), ' spread of $base_ref rounds:', spread(base).toFixed(4));
writeBenchSection('ingest-instructions', {
  title: 'Ingest cost in instructions: CLI import of $events events, HEAD against $base_ref',
  command: 'npm run bench:ingest-instructions -- $base_ref $events $rounds',
  figures: [{ label: 'CLI import, millions of instructions (median of $rounds)', value: median(head), unit: 'M instructions', baseline: { label: '$base_ref', value: median(base) } }],
  notes: ['rounds, $base_ref: ' + base.map((n) => n.toFixed(0)).join(', ') + '; HEAD: ' + head.map((n) => n.toFixed(0)).join(', '), 'spread between rounds of one tree: ' + (spread(base) * 100).toFixed(1) + '% (' + '$base_ref' + '), ' + (spread(head) * 100).toFixed(1) + '% (HEAD)'],
});
"
