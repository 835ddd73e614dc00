/**
 * `npm run bench:redact`: for every secret pattern, its hostile 1 MiB strings
 * (lib/redact/testing/adversarial.ts: the prefix repeated, the prefix then a long run of
 * what it accepts, the near misses that were quadratic) through what ingest does with a
 * string: redaction (Redactor.redactString) and analysis (findSecrets). Prints ms per MiB
 * per input and per pattern (its worst input), and the worst pattern over the best one;
 * the shortest secret repeated (output-bound) is reported apart, as are the hostile strings
 * of what redaction finds beyond the format (lib/redact/beyond-format.ts). Writes them to
 * docs/benchmarks.json (section "redact"). Exits 1 if that ratio is over 3 or any input
 * costs more than 8x its own quarter-length string (linear time is 4x, quadratic 16x;
 * the margin is for a shared machine).
 */
import { Redactor, findSecrets, PATTERNS } from "../lib/redact";
import { adversarialInputs } from "../lib/redact/testing/adversarial";
import { writeBenchSection, type BenchFigure } from "./bench-report";

const MIB = 1 << 20;
const RATIO_GOAL = 3;
const RUNS = 7;
const redactor = new Redactor(new Uint8Array(32).fill(7));

/**
 * Best of `runs` CPU times of this process, ms: the machine is shared (the minimum is the
 * least disturbed, and CPU time does not count the waits for a core).
 */
function best(runs: number, fn: () => void): number {
  let min = Infinity;
  for (let i = 0; i < runs; i++) {
    const c0 = process.cpuUsage();
    fn();
    const c = process.cpuUsage(c0);
    min = Math.min(min, (c.user + c.system) / 1000);
  }
  return min;
}

// Strings as JSON.parse gives them (flat), as ingest sees them: built by concatenation
// they would be ropes, slower to read one character at a time.
const flat = (text: string) => JSON.parse(JSON.stringify(text)) as string;

// what one string costs ingest: redaction on arrival, then the analyzer's search
const work = (text: string) => () => {
  redactor.redactString(text);
  findSecrets({ v: text });
};

// warm up the matchers on every input once, so the first pattern does not pay for compilation
for (const p of PATTERNS) for (const { text } of adversarialInputs(p.kind, MIB / 4)) work(flat(text))();

const figures: BenchFigure[] = [];
const perPattern: Array<{ kind: string; ms: number; input: string }> = [];
const dense: BenchFigure[] = [];
let superlinear = "";
console.log(`${"pattern".padEnd(16)} ${"input".padEnd(58)} ${"ms/MiB".padStart(8)} ${"¼ MiB".padStart(8)}`);
for (const p of PATTERNS) {
  let worst = { ms: 0, input: "" };
  const quarters = adversarialInputs(p.kind, MIB / 4);
  for (const { name, text, dense: isDense } of adversarialInputs(p.kind, MIB)) {
    const ms = best(RUNS, work(flat(text)));
    // the same shape at a quarter of the length
    const quarter = best(RUNS, work(flat(quarters.find((a) => a.name === name)!.text)));
    console.log(`${p.kind.padEnd(16)} ${name.slice(0, 58).padEnd(58)} ${ms.toFixed(2).padStart(8)} ${quarter.toFixed(2).padStart(8)}`);
    if (ms > 8 * quarter && ms > 4)
      superlinear += `\n  ${p.kind}: ${name}: ${ms.toFixed(1)} ms for 1 MiB, ${quarter.toFixed(1)} ms for ¼ MiB`;
    if (isDense) dense.push({ label: `${p.kind}, its shortest secret repeated to 1 MiB (${name})`, value: ms, unit: "ms/MiB" });
    else if (ms > worst.ms) worst = { ms, input: name };
  }
  perPattern.push({ kind: p.kind, ...worst });
  figures.push({ label: `${p.kind}, worst hostile 1 MiB string (${worst.input})`, value: worst.ms, unit: "ms/MiB" });
}

// What redaction finds beyond the format (lib/redact/beyond-format.ts): its hostile shapes,
// reported apart (not in the ratio, which is the format's patterns'), checked for linearity.
const fill = (unit: string, n: number) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
const BEYOND: Array<[string, (n: number) => string]> = [
  ['"github_pat_" repeated', (n) => fill("github_pat_", n)],
  ['"github_pat_" + "a" repeated', (n) => "github_pat_" + fill("a", n - 11)],
  ['"ASIA" repeated', (n) => fill("ASIA", n)],
  [
    '"AKIA…" + key characters repeated (every run read beside a key id)',
    (n) => "AKIA" + "B".repeat(16) + " " + fill("wJalrXUtnFEMI/K7MDENG+", n - 21),
  ],
  ['"AKIA…" + 40-character runs repeated', (n) => "AKIA" + "B".repeat(16) + fill(" " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", n - 20)],
  ['"secret=" repeated', (n) => fill("secret=", n)],
  ['"_key=" + key characters repeated', (n) => "_key=" + fill("a", n - 5)],
  ['\'"token":"\' + "a" repeated', (n) => '"token":"' + fill("a", n - 9)],
  ['\'"password":"a"\' repeated', (n) => fill('"password":"a"', n)],
];
for (const [, build] of BEYOND) work(flat(build(MIB / 4)))();
for (const [name, build] of BEYOND) {
  const ms = best(RUNS, work(flat(build(MIB))));
  const quarter = best(RUNS, work(flat(build(MIB / 4))));
  console.log(
    `${"beyond-format".padEnd(16)} ${name.slice(0, 58).padEnd(58)} ${ms.toFixed(2).padStart(8)} ${quarter.toFixed(2).padStart(8)}`,
  );
  if (ms > 8 * quarter && ms > 4)
    superlinear += `\n  beyond-format: ${name}: ${ms.toFixed(1)} ms for 1 MiB, ${quarter.toFixed(1)} ms for ¼ MiB`;
  dense.push({ label: `beyond the format: ${name}, 1 MiB`, value: ms, unit: "ms/MiB" });
}

const worst = perPattern.reduce((a, b) => (b.ms > a.ms ? b : a));
const bestPattern = perPattern.reduce((a, b) => (b.ms < a.ms ? b : a));
const ratio = worst.ms / bestPattern.ms;
figures.push({
  label: `worst pattern (${worst.kind}) over best (${bestPattern.kind})`,
  value: ratio,
  unit: "×",
  baseline: { label: "goal", value: RATIO_GOAL },
});
figures.push(...dense);
console.log(
  `\nworst ${worst.kind} ${worst.ms.toFixed(2)} ms/MiB, best ${bestPattern.kind} ${bestPattern.ms.toFixed(2)} ms/MiB: ${ratio.toFixed(2)}×`,
);

writeBenchSection("redact", {
  title: "Secret matching on hostile strings (bench:redact)",
  command: "npm run bench:redact",
  figures,
  notes: [
    'What ingest does with one string: redaction (Redactor.redactString) then analysis (findSecrets), CPU time, best of 7. A pattern\'s figure is the worst of its hostile strings (lib/redact/testing/adversarial.ts): its prefix repeated, its prefix then a long run of what it accepts, and the near misses that were quadratic; the ratio is over those. Before the linear matchers, `"a".repeat(160000) + "://"` alone took 12 s to ingest.',
    "The last figures are apart: the pattern's shortest secret repeated, as many matches as 1 MiB holds, where the time goes into building the redacted text (each match becomes a 40-character placeholder); still linear, checked like the others. Then the hostile strings of what redaction finds beyond the format (GitHub fine-grained tokens, ASIA key ids, AWS secret keys beside a key id or assigned to a secret-ish name, secret-named fields as JSON in a string), checked for linearity the same way.",
  ],
});

let failed = false;
if (ratio > RATIO_GOAL) {
  console.error(`worst pattern is ${ratio.toFixed(2)}× the best (goal ${RATIO_GOAL}×)`);
  failed = true;
}
if (superlinear) {
  console.error(`more than 8× the time for 4× the length:${superlinear}`);
  failed = true;
}
process.exit(failed ? 1 : 0);
