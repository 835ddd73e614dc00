/**
 * `retrace replay-test [--junit FILE] [--cwd DIR] JOURNAL… [-- CMD…]`: each gateway
 * recording replayed (with CMD, or the command it recorded), a line per run, JUnit XML on
 * request; exit 1 if any diverged. For CI: a changed agent tested against recorded cases.
 */
import { writeFileSync } from "node:fs";
import { redactMessage } from "../../redact";
import type { CommandArgs } from "../args";
import { describeResult, replayAgainst, UsageError, type ReplayResult } from "../gateway/replay-command";

export const summary = "Replay gateway recordings against an agent (CI): a line per run, JUnit XML";

export const usage = `Usage: npm run -s retrace -- replay-test [--junit FILE] [--cwd DIR] JOURNAL… [-- CMD [ARGS…]]

Replays each journal's gateway recording (retrace record) as \`replay JOURNAL -- CMD\` does,
one after another, with CMD or, without it, the command each recording ran; in DIR
(default: here). Prints a line per run: "match", or the recorded seq, kind and both values
where it diverged.

Options:
  --junit FILE   also write the results as JUnit XML (one testcase per journal)
  --cwd DIR      where the agent runs (replay a coding agent in a scratch copy)

Exit status: 0 all matched, 1 any diverged, 2 bad usage or an unreadable journal.`;

export const options = {
  junit: { type: "string" },
  cwd: { type: "string" },
} as const;

function xml(s: string): string {
  return s
    .replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!)
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD]/gu, "");
}

function junit(results: Array<{ file: string; result: ReplayResult }>): string {
  const failures = results.filter((r) => !r.result.match).length;
  const cases = results.map(({ file, result }) => {
    const name = xml(`${file} (run ${redactMessage(result.run)})`);
    if (result.match) return `  <testcase classname="retrace.replay" name="${name}"/>`;
    const d = result.divergence!;
    return `  <testcase classname="retrace.replay" name="${name}">\n    <failure message="${xml(`diverged at recorded seq ${d.seq}: ${d.kind}`)}">${xml(describeResult(result))}</failure>\n  </testcase>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="retrace replay-test" tests="${results.length}" failures="${failures}">\n${cases.join("\n")}\n</testsuite>\n`;
}

export async function run({ values, positionals }: CommandArgs<typeof options>): Promise<number> {
  // what follows `--` is the command (parseArgs gives it as positionals, at the end)
  const dashes = process.argv.indexOf("--", 2);
  const command = dashes < 0 ? [] : process.argv.slice(dashes + 1);
  const journals = positionals.slice(0, positionals.length - command.length);
  if (journals.length === 0) {
    console.error(`replay-test: no journal given\n\n${usage}`);
    return 2;
  }
  const results: Array<{ file: string; result: ReplayResult }> = [];
  for (const file of journals) {
    try {
      const result = await replayAgainst({
        file,
        command,
        cwd: values.cwd,
        port: 0,
        onDivergence: "stop",
        upstream: [],
        json: true,
        ignore: [],
        mask: [],
      });
      results.push({ file, result });
      console.log(`${result.match ? "PASS" : "FAIL"} ${file}: ${describeResult(result)}`);
    } catch (e) {
      console.error(`replay-test: ${file}: ${redactMessage(e instanceof Error ? e.message : String(e))}`);
      if (!(e instanceof UsageError)) console.error("replay-test: stopped; the journals after it were not replayed");
      return 2;
    }
  }
  if (values.junit !== undefined) writeFileSync(values.junit, junit(results));
  const failed = results.filter((r) => !r.result.match).length;
  console.log(`${results.length - failed} of ${results.length} replays matched`);
  return failed > 0 ? 1 : 0;
}
