/**
 * `retrace analyze [--json] FILE…`: the format's analysis rules over journal files, each
 * file on its own (a file may hold several runs). Exit 0 whatever is found, 2 when an
 * input cannot be read as a journal or the arguments are wrong.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createAnalyzer } from "../../analyze";
import { groupByRun, orderEvents } from "../../semantics";
import { canonicalJson, useSha256Implementation } from "../../canonical";
import { readJournal } from "../../journal/reader";
import { redactMessage } from "../../redact";
import type { Finding, JournalEvent } from "../../journal/types";
import type { CommandArgs } from "../args";

export const summary = "Check journals against the format's 15 analysis rules";

export const usage = `Usage: npm run -s retrace -- analyze [--json] FILE...

Checks each journal file (.jsonl, .ndjson, optionally gzip-compressed) against the
analysis rules of journal format v1. Each file is analysed on its own; a file may hold
several runs, each analysed with the policy of its own run.start.

Options:
  --json    print exactly one JSON object:
            {"findings":[{"file","run","rule","seq","severity","message"}]}
            ("file" as given on the command line)

Exit status: 0 when every file was read (whatever was found), 2 when a file is missing
or is not a journal, or the arguments are wrong. Bad lines are reported on stderr and
skipped.`;

interface FileFinding extends Finding {
  file: string;
  run: string;
}

interface ReadResult {
  events: JournalEvent[];
  /** Events whose line cannot hold a secret (the reader looked at the raw text). */
  noSecrets: WeakSet<JournalEvent>;
  lineErrors: Array<{ line: number; message: string }>;
}

/** Reads a journal file as bytes (gzip recognised), or throws with a message for people. */
export async function readJournalFile(file: string): Promise<ReadResult> {
  let info;
  try {
    info = await stat(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(code === "ENOENT" ? `${file}: no such file` : `${file}: cannot be read (${code ?? "error"})`);
  }
  if (info.isDirectory()) throw new Error(`${file}: is a directory, not a journal`);
  const events: JournalEvent[] = [];
  const noSecrets = new WeakSet<JournalEvent>();
  const lineErrors: Array<{ line: number; message: string }> = [];
  try {
    for await (const item of readJournal(createReadStream(file))) {
      if (item.kind === "event") {
        events.push(item.event);
        if (!item.mayHoldSecret) noSecrets.add(item.event);
      } else {
        lineErrors.push({ line: item.line, message: redactMessage(item.message) });
      }
    }
  } catch (e) {
    throw new Error(`${file}: ${redactMessage(e instanceof Error ? e.message : String(e))}`);
  }
  if (events.length === 0) {
    const first = lineErrors[0];
    throw new Error(`${file}: not a journal (no valid event${first ? `; line ${first.line}: ${first.message}` : ", the file is empty"})`);
  }
  return { events, noSecrets, lineErrors };
}

/** Node's SHA-256 for the chain check: same digests as the portable one, several times faster. */
export function useNativeSha256(): void {
  useSha256Implementation((text) => createHash("sha256").update(text).digest("hex"));
}

/** Every finding of every run in one file's events. */
function analyzeFileEvents(file: string, read: ReadResult): FileFinding[] {
  const out: FileFinding[] = [];
  for (const [run, list] of groupByRun(read.events)) {
    const analyzer = createAnalyzer();
    for (const e of orderEvents(list)) analyzer.push(e, read.noSecrets.has(e) ? { secrets: [] } : undefined);
    // a run id may itself look like a secret (the server refuses to store such a run)
    const shown = redactMessage(run);
    for (const f of analyzer.findings())
      out.push({ file, run: shown, rule: f.rule, seq: f.seq, severity: f.severity, message: redactMessage(f.message) });
  }
  return out;
}

function report(file: string, runs: string[], findings: FileFinding[]): string {
  const lines = [file];
  for (const run of runs) {
    const mine = findings.filter((f) => f.run === run);
    const errors = mine.filter((f) => f.severity === "error").length;
    if (mine.length === 0) {
      lines.push(`  run ${run}: no findings`);
      continue;
    }
    lines.push(
      `  run ${run}: ${mine.length} finding${mine.length === 1 ? "" : "s"} (${errors} error${errors === 1 ? "" : "s"}, ${mine.length - errors} warning${mine.length - errors === 1 ? "" : "s"})`,
    );
    for (const f of mine) lines.push(`    seq ${String(f.seq).padEnd(6)} ${f.severity.padEnd(8)} ${f.rule.padEnd(28)} ${f.message}`);
  }
  return lines.join("\n");
}

export const options = { json: { type: "boolean" } } as const;

export async function run({ values, positionals: files }: CommandArgs<typeof options>): Promise<number> {
  const json = values.json ?? false;
  if (files.length === 0) {
    console.error(`analyze: no journal file given\n\n${usage}`);
    return 2;
  }
  useNativeSha256();
  let status = 0;
  const all: FileFinding[] = [];
  const reports: string[] = [];
  for (const file of files) {
    let read: ReadResult;
    try {
      read = await readJournalFile(file);
    } catch (e) {
      console.error(`analyze: ${e instanceof Error ? e.message : String(e)}`);
      status = 2;
      continue;
    }
    for (const err of read.lineErrors) console.error(`${file}:${err.line}: ${err.message} (line skipped)`);
    const findings = analyzeFileEvents(file, read);
    all.push(...findings);
    if (!json)
      reports.push(
        report(
          file,
          [...groupByRun(read.events).keys()].map((r) => redactMessage(r)),
          findings,
        ),
      );
  }
  if (json) process.stdout.write(canonicalJson({ findings: all }) + "\n");
  else if (reports.length > 0) console.log(reports.join("\n\n"));
  return status;
}
