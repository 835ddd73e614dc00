// The two agent CLIs as the gateway's tests drive them (tests/gateway/fakes/README.md says
// what each sends): the command, its environment with a fresh HOME, the script of a run
// that writes out.txt through the CLI's own tool, and an async runner (the fakes answer
// in this process, so a CLI must never be run with spawnSync).
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Turn } from "./fakes/index.ts";
import { clientBin } from "./test-clients.ts";

export const PROMPT = "Write hello to out.txt";
export const FILE_TEXT = "hello from the fake\n";
export const FINAL_TEXT = "I wrote out.txt.";

/** a child's whole environment (no NODE_ENV: Next's ProcessEnv type would require one) */
export type Env = Record<string, string | undefined>;

export interface Finished {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** runs a command with stdin closed (Claude Code waits on an open stdin) */
export function run(command: string[], options: { cwd: string; env: Env; timeoutMs?: number }): Promise<Finished> {
  return new Promise((resolve, reject) => {
    // the whole environment is ours (a fresh HOME, no inherited keys); Next's ProcessEnv type
    // wants NODE_ENV, which these CLIs do not read
    const env = options.env as NodeJS.ProcessEnv;
    const child = spawn(command[0], command.slice(1), { cwd: options.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000);
    child.on("error", reject);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** a fresh working directory and HOME under `root` */
export function freshDirs(root: string, name: string): { work: string; home: string } {
  const base = fs.mkdtempSync(path.join(root, `${name}-`));
  const work = path.join(base, "work");
  const home = path.join(base, "home");
  fs.mkdirSync(work);
  fs.mkdirSync(home);
  return { work, home };
}

// Claude Code 2.1 ----------------------------------------------------------------------

export const claudeCommand = (): string[] => [
  clientBin("claude"),
  "-p",
  PROMPT,
  "--output-format",
  "json",
  "--permission-mode",
  "acceptEdits",
];

/** Claude Code's environment; ANTHROPIC_BASE_URL only when not run under the gateway */
export function claudeEnv(home: string, baseUrl?: string): Env {
  return {
    PATH: process.env.PATH,
    HOME: home,
    ANTHROPIC_API_KEY: "sk-ant-test-fake-key",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    ...(baseUrl ? { ANTHROPIC_BASE_URL: baseUrl } : {}),
  };
}

/** the model asks Claude Code's Write tool for `work`/out.txt, then answers */
export const claudeScript = (work: string): Turn[] => [
  { toolCalls: [{ name: "Write", arguments: { file_path: path.join(work, "out.txt"), content: FILE_TEXT } }] },
  { text: FINAL_TEXT },
];

// Codex CLI 0.171 ----------------------------------------------------------------------

export const codexCommand = (): string[] => [clientBin("codex"), "exec", "--skip-git-repo-check", "--json", PROMPT];

/** writes HOME/.codex/config.toml naming the model provider at `port` */
export function codexEnv(home: string, port: number): Env {
  const codexHome = path.join(home, ".codex");
  fs.mkdirSync(codexHome, { recursive: true });
  fs.writeFileSync(
    path.join(codexHome, "config.toml"),
    [
      'model = "gpt-fake-1"',
      'model_provider = "fake"',
      'approval_policy = "never"',
      'sandbox_mode = "danger-full-access"',
      "",
      "[model_providers.fake]",
      'name = "fake"',
      `base_url = "http://127.0.0.1:${port}/v1"`,
      'wire_api = "responses"',
      'env_key = "FAKE_OPENAI_KEY"',
      "",
      "[features]",
      "plugins = false",
      "remote_plugin = false",
      "apps = false",
      "",
    ].join("\n"),
  );
  return { PATH: process.env.PATH, HOME: home, CODEX_HOME: codexHome, FAKE_OPENAI_KEY: "sk-test-fake-key" };
}

/** the model asks Codex's shell tool (exec_command) to write `work`/out.txt, then answers */
export const codexScript = (work: string): Turn[] => [
  { toolCalls: [{ name: "exec_command", arguments: { cmd: `printf 'hello from the fake\\n' > ${path.join(work, "out.txt")}` } }] },
  { text: FINAL_TEXT },
];

/** every file under `dir` with its content, to see that nothing was touched */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, file)] = fs.readFileSync(file, "utf8");
  }
  return out;
}
