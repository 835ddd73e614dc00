/**
 * Demo agent: runs the scenarios of scenarios.ts against a local SQLite bank and records them.
 *
 *   npx tsx scripts/demo-agent/main.ts --out DIR            one <scenario>.jsonl per scenario
 *   npx tsx scripts/demo-agent/main.ts --url http://127.0.0.1:PORT [--token T]
 *
 * Options: --db DIR (bank files; default a temp folder), --fixed-clock (stable journals; on
 * by default with --out, off with --url so run ids are unique), --real-clock,
 * --scenario NAME (repeatable), --spool DIR (HTTP spool folder).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runScenarios, SCENARIOS, type ScenarioName } from "./scenarios";

function parse(argv: string[]) {
  const opts: {
    out?: string;
    url?: string;
    token?: string;
    db?: string;
    spool?: string;
    fixed?: boolean;
    scenarios: ScenarioName[];
    help?: boolean;
  } = { scenarios: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === "--out") opts.out = next();
    else if (a === "--url") opts.url = next();
    else if (a === "--token") opts.token = next();
    else if (a === "--db") opts.db = next();
    else if (a === "--spool") opts.spool = next();
    else if (a === "--fixed-clock") opts.fixed = true;
    else if (a === "--real-clock") opts.fixed = false;
    else if (a === "--scenario") {
      const s = next();
      if (!(SCENARIOS as readonly string[]).includes(s)) throw new Error(`unknown scenario ${s} (one of ${SCENARIOS.join(", ")})`);
      opts.scenarios.push(s as ScenarioName);
    } else if (a === "--help" || a === "-h") opts.help = true;
    else throw new Error(`unknown option ${a}`);
  }
  return opts;
}

async function main(): Promise<number> {
  const opts = parse(process.argv.slice(2));
  if (opts.help || (!opts.out && !opts.url)) {
    console.log(
      "usage: npx tsx scripts/demo-agent/main.ts (--out DIR | --url URL [--token T]) [--db DIR] [--fixed-clock|--real-clock] [--scenario NAME]…",
    );
    return opts.help ? 0 : 1;
  }
  const results = await runScenarios({
    outDir: opts.url ? undefined : opts.out,
    url: opts.url,
    token: opts.token ?? process.env.RETRACE_TOKEN,
    spoolDir: opts.spool,
    dbDir: opts.db ?? mkdtempSync(join(tmpdir(), "retrace-demo-bank-")),
    fixedClock: opts.fixed ?? !opts.url,
    scenarios: opts.scenarios.length > 0 ? opts.scenarios : undefined,
    log: (line) => console.log(line),
  });
  return results.every((r) => r.delivered) ? 0 : 2;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`demo-agent: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
