#!/usr/bin/env bash
# `npm run bench:ingest-instructions -- BASE_REF [EVENTS] [ROUNDS]` (the CLI import of one
# generated journal) and `npm run bench:replay-instructions -- BASE_REF [EVENTS] [ROUNDS]`
# (scripts/bench-replay.ts: analyze, reconstruct and seeks on a generated run), counted in
# instructions by valgrind's callgrind (every thread and child of the process), for BASE_REF
# and for this checkout's HEAD, each in a worktree of its own, alternating, ROUNDS times
# each. Instructions depend much less than seconds on what else the machine runs, so a
# change in cost shows even on a shared, loaded machine where wall-clock benches swing by
# tens of percent (JIT and GC threads still move them by a few percent: the rounds' spread
# is printed). Prints each round and the ratio of medians, and records them in docs/benchmarks.
set -euo pipefail
cd "$(dirname "$0")/.."
workload="${1:?usage: bench-instructions.sh ingest|replay BASE_REF [EVENTS] [ROUNDS]}"
base_ref="${2:?usage: bench-instructions.sh ingest|replay BASE_REF [EVENTS] [ROUNDS]}"
events="${3:-20000}"
rounds="${4:-2}"
case "$workload" in ingest | replay) ;; *) echo "workload is ingest or replay, not $workload" >&2; exit 2 ;; esac
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install -y valgrind)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'git worktree remove --force "$work/base" >/dev/null 2>&1 || true; git worktree remove --force "$work/head" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
for tree in base head; do
  ref="$base_ref"; [ "$tree" = head ] && ref=HEAD
  git worktree add -q --detach "$work/$tree" "$ref"
  # a link, not a copy: node_modules may be a mount of its own (a worktree's), which hard links cannot cross
  ln -s "$PWD/node_modules" "$work/$tree/node_modules"
  mkdir -p "$work/$tree/lib/server/generated"
  cp -a lib/server/generated/. "$work/$tree/lib/server/generated/"
  [ -f "$work/$tree/scripts/build-sqlite-writer.mjs" ] && (cd "$work/$tree" && node scripts/build-sqlite-writer.mjs)
  # bundled once beforehand: tsx's esbuild service (Go) is a child callgrind cannot trace
  [ "$workload" = replay ] && (cd "$work/$tree" && node_modules/.bin/esbuild scripts/bench-replay.ts --bundle --platform=node \
    --format=esm --conditions=react-server --packages=external --log-level=warning --outfile=bench-replay.mjs)
done
node_modules/.bin/tsx -e "import { generateJournal } from './scripts/bench-journal.ts'; import fs from 'node:fs'; fs.writeFileSync('$work/journal.jsonl', generateJournal($events, 'instr-run'));"
count() { # tree dir → instructions of one round of the workload
  local dir="$1" db="$work/db-$RANDOM.db"
  if [ "$workload" = ingest ]; then
    (cd "$dir" && DATABASE_URL="file:$db" node scripts/retrace.mjs migrate >/dev/null)
    (cd "$dir" && DATABASE_URL="file:$db" valgrind --tool=callgrind --trace-children=yes --smc-check=all-non-file \
      --callgrind-out-file="$work/cg.%p" node scripts/retrace.mjs import "$work/journal.jsonl" >/dev/null 2>&1)
  else
    # the bench's own 1 s floor is not met under valgrind: its exit code is not the point here
    (cd "$dir" && valgrind --tool=callgrind --trace-children=yes --smc-check=all-non-file \
      --callgrind-out-file="$work/cg.%p" node bench-replay.mjs "$events" >/dev/null 2>&1) || true
  fi
  local total=0
  for f in "$work"/cg.*; do total=$((total + $(grep -m1 '^summary:' "$f" | awk '{print $2}'))); done
  rm -f "$work"/cg.* "$db" "$db-wal" "$db-shm"
  echo "$total"
}
base=() head=()
for r in $(seq "$rounds"); do
  b=$(count "$work/base"); base+=("$b"); echo "round $r: $base_ref $b instructions"
  h=$(count "$work/head"); head+=("$h"); echo "round $r: HEAD $h instructions"
done
what="CLI import"; [ "$workload" = replay ] && what="bench-replay (analyze, reconstruct, seeks)"
node_modules/.bin/tsx -e "
import { writeBenchSection } from './scripts/bench-report.ts';
const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const base = [$(IFS=,; echo "${base[*]}")].map((n) => n / 1e6), head = [$(IFS=,; echo "${head[*]}")].map((n) => n / 1e6);
const spread = (xs: number[]) => (Math.max(...xs) - Math.min(...xs)) / median(xs);
console.log('HEAD / $base_ref (medians):', (median(head) / median(base)).toFixed(4), ' spread of $base_ref rounds:', spread(base).toFixed(4));
writeBenchSection('$workload-instructions', {
  title: '${workload^} cost in instructions: $what of $events events, HEAD against $base_ref',
  command: 'npm run bench:$workload-instructions -- $base_ref $events $rounds',
  figures: [{ label: '$what, millions of instructions (median of $rounds)', value: median(head), unit: 'M instructions', baseline: { label: '$base_ref', value: median(base) } }],
  notes: ['rounds, $base_ref: ' + base.map((n) => n.toFixed(0)).join(', ') + '; HEAD: ' + head.map((n) => n.toFixed(0)).join(', '), 'spread between rounds of one tree: ' + (spread(base) * 100).toFixed(1) + '% (' + '$base_ref' + '), ' + (spread(head) * 100).toFixed(1) + '% (HEAD)'],
});
"
