/**
 * Seeds for the random tests: fixed by RETRACE_TEST_SEED when set (to replay a failure),
 * otherwise new on every run, and always printed so a failure can be reproduced.
 */
export function testSeed(name: string): number {
  const fixed = Number(process.env.RETRACE_TEST_SEED);
  const seed = Number.isInteger(fixed) && fixed !== 0 ? fixed : (Date.now() ^ Math.floor(Math.random() * 0x7fffffff)) >>> 1;
  console.log(`[seed] ${name}: ${seed} (rerun with RETRACE_TEST_SEED=${seed})`);
  return seed;
}

/** How many cases each property runs (RETRACE_TEST_RUNS to go deeper locally). */
export function testRuns(defaultRuns: number): number {
  const n = Number(process.env.RETRACE_TEST_RUNS);
  return Number.isInteger(n) && n > 0 ? n : defaultRuns;
}
