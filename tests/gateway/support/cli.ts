/** Runs the retrace CLI (asynchronously: the fake upstream lives in the test's process). */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

const CLI = path.resolve("scripts/retrace.mjs");

export function retrace(args: string[], opts: { cwd: string; env?: Record<string, string | undefined> }): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: opts.cwd, env: { ...process.env, ...opts.env }, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

export interface Line {
  seq: number;
  type: string;
  run: string;
  data: Record<string, unknown>;
}

export function readJournal(file: string): Line[] {
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Line);
}
