import fs from "node:fs";
import path from "node:path";
import type { SingleBar } from "cli-progress";
import { openDb } from "../../server/db";
import { removeTempDirs, sweepTempFiles } from "../../server/temp-files";
import type { ImportStreamResult } from "../../server/service";
import type { CommandArgs } from "../args";
import type { FolderZip } from "../folder-zip";

export const summary = "import journals (NDJSON, .gz) and trace exports into the configured database";
export const usage = `Usage: npm run -s retrace -- import [--json] [--policy POLICY.json] FILE|DIR…

Imports each file into the database named by DATABASE_URL (default file:./data/retrace.db).
The format is detected once from the content (gzip is opened first): Retrace journals
(NDJSON) stream in; OTLP JSON (and Tempo exports), Jaeger JSON, Langfuse exports, any-agent
and OTel JS span dumps, SWE-agent .traj, mini-swe-agent .traj.json, OpenHands trajectories,
Inspect AI eval logs and tau-bench results are converted into runs of fidelity "trace". The
same path as the UI's upload button (POST /api/imports).
A folder is walked (.git and node_modules are not): the parts of multi-file sessions (Cline
and Roo Code tasks, Aider's histories, Copilot CLI session files) are read as the upload
reads a zip of them, the parts of one session joined; every other file whose content
Retrace knows (a Claude Code project's sessions, Codex rollouts, trace exports) is imported
on its own, as if named; a folder with nothing Retrace reads says so.
Each run is stored atomically; errors are printed with their line numbers (the first 100,
then a count). Reading stops after 1,000 invalid lines, and nothing of that file is stored.
A run of 5,000 events or more gets its run-page summary stored with it (on PostgreSQL
built as its rows are written; on SQLite read back after the import), so the first time
it is opened it is not built from its event rows.
  --json         print one JSON object per file instead of a report
  --policy FILE  judge the runs this import creates by this declared policy (the JSON of
                 run.start.data.policy; docs/declared-policy.md) in place of the one they
                 recorded; the journals stay as recorded and the run says the policy was attached
  --no-summary   do not build the stored summary (the first opening builds it)
Exit code: 0 when every file was stored, 1 when any file had errors, 2 for unreadable input.`;

export const options = { json: { type: "boolean" }, "no-summary": { type: "boolean" }, policy: { type: "string" } } as const;

export async function run({ values, positionals: files }: CommandArgs<typeof options>): Promise<number> {
  const json = values.json ?? false;
  if (files.length === 0) {
    console.error(usage);
    return 2;
  }
  let policy: string | undefined;
  if (values.policy !== undefined) {
    let text: string;
    try {
      text = fs.readFileSync(values.policy, "utf8");
    } catch {
      console.error(`retrace import: cannot read ${values.policy}`);
      return 2;
    }
    const { readPolicyFile } = await import("../../journal/policy-file");
    const file = readPolicyFile(text);
    if (!file.ok) {
      console.error(`retrace import: ${values.policy}: ${file.message}`);
      return 2;
    }
    policy = file.policy;
  }
  for (const f of files) {
    if (!fs.existsSync(f) || !(fs.statSync(f).isFile() || fs.statSync(f).isDirectory())) {
      console.error(`retrace import: cannot read ${f}`);
      return 2;
    }
  }
  // what an import killed earlier left behind (its spans, redacted) goes first; this
  // import's own temporary files go on exit, Ctrl-C and SIGTERM included (kill -9 leaves
  // them to the next start's sweep)
  sweepTempFiles();
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const) {
    process.once(signal, () => {
      removeTempDirs();
      process.exit(code);
    });
  }
  const db = openDb();
  // openDb starts the SQLite writer thread; the ingest code loads while it boots
  const { importStream } = await import("../../server/service");
  let worst = 0;
  try {
    // a folder: its multi-file sessions as one zip, its other files one by one (folder-zip.ts)
    const work: Array<{ file: string; folder?: FolderZip }> = [];
    for (const file of files) {
      if (!fs.statSync(file).isDirectory()) {
        work.push({ file });
        continue;
      }
      const { zipFolder } = await import("../folder-zip");
      const { nothingToRead } = await import("../../importers");
      const folder = zipFolder(file, db.config.limits.maxDocumentBytes);
      for (const big of folder.tooLarge) console.error(`${file}: ${big} is larger than RETRACE_MAX_DOCUMENT_BYTES and was left out`);
      if (folder.kept === 0 && folder.alone.length === 0) {
        worst = Math.max(worst, 1);
        if (json)
          console.log(JSON.stringify({ file, runs: [], errors: [], format: { format: "unknown", message: nothingToRead(folder.looked) } }));
        else console.error(`${file}: ${nothingToRead(folder.looked)}`);
        continue;
      }
      if (folder.kept > 0) work.push({ file, folder });
      for (const alone of folder.alone) work.push({ file: alone });
    }
    for (const { file, folder } of work) {
      const size = folder ? folder.zip.length : fs.statSync(file).size;
      const tty = process.stderr.isTTY && !json;
      let bar: SingleBar | null = null;
      if (tty) {
        // loaded only for a terminal: every import paid for it at start (lib/server/README.md)
        const { default: cliProgress } = await import("cli-progress");
        bar = new cliProgress.SingleBar(
          { format: `${path.basename(file)} [{bar}] {percentage}% | {value}/{total} bytes | {events} events`, hideCursor: true },
          cliProgress.Presets.shades_classic,
        );
      }
      let read = 0;
      let events = 0;
      bar?.start(size, 0, { events: 0 });
      // 64 KB reads, as a server's socket gives them: with 1 MB ones a batch of ~2,300
      // parsed events lived through garbage collections (a 100,000-event import 1.94 → 1.83 s).
      // Read on this thread: a file stream hands every read to libuv's thread pool and
      // back, and on a two-core machine that thread took a core from ingest or the writer
      // each time (100,000 events: 1.64 → 1.60 s, 16 runs A/B). Bytes are counted as the
      // import takes them, so the progress bar shows what was read into it, not ahead of it.
      const zip = folder?.zip;
      const chunks = async function* () {
        if (zip) {
          for (let at = 0; at < zip.length; at += 1 << 16) yield zip.subarray(at, at + (1 << 16));
          return;
        }
        const fd = fs.openSync(file, "r");
        try {
          for (;;) {
            const chunk = Buffer.allocUnsafe(1 << 16);
            const n = fs.readSync(fd, chunk, 0, chunk.length, null);
            if (n === 0) break;
            yield n === chunk.length ? chunk : chunk.subarray(0, n);
          }
        } finally {
          fs.closeSync(fd);
        }
      };
      const result: ImportStreamResult = await importStream(db, chunks(), {
        accept: "any",
        fileName: folder ? `${path.basename(path.resolve(file))}.zip` : path.basename(file),
        source: "import",
        policy,
        onBytes: (n) => bar?.update((read = n), { events }),
        onProgress: (n) => bar?.update(read, { events: (events = n) }),
        storeSummaries: !values["no-summary"],
      });
      const isTrace = result.detected && result.detected.format !== "retrace-journal";
      const formatNote = isTrace ? ` (${result.detected?.label})` : "";
      for (const w of result.importWarnings ?? []) result.warnings.push({ message: w, kind: "invalid" });
      bar?.update(size, { events });
      bar?.stop();
      const failed = result.errors.length > 0 || result.tooLarge || result.unreadable || result.format;
      if (failed) worst = Math.max(worst, 1);
      if (json) {
        console.log(JSON.stringify({ file, ...result }));
        continue;
      }
      const head = result.format?.message ?? result.tooLarge ?? result.unreadable ?? result.stopped;
      if (head) console.error(`${file}: ${head}`);
      for (const r of result.runs) {
        console.log(
          `${file}${formatNote}: run ${r.run} ${r.status}: ${r.accepted} events stored, ${r.duplicates} duplicates, ${r.findings} findings`,
        );
      }
      for (const w of result.warnings) console.log(`${file}:${w.line ?? "-"}: warning: ${w.message}`);
      if (result.moreWarnings) console.log(`${file}: and ${result.moreWarnings.toLocaleString("en-US")} more warnings`);
      for (const e of result.errors) console.error(`${file}:${e.line ?? "-"}: ${e.run ? `run ${e.run}: ` : ""}${e.message}`);
      if (result.moreErrors) console.error(`${file}: and ${result.moreErrors.toLocaleString("en-US")} more errors`);
      if (result.runs.length === 0 && !head && result.errors.length === 0) console.log(`${file}: no events`);
    }
  } finally {
    await db.close();
  }
  return worst;
}
