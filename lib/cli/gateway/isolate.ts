/**
 * `retrace replay --isolate`: the agent run under bubblewrap (Debian's `bubblewrap`, the
 * `bwrap` command) in a network namespace of its own, where only loopback exists, and in a
 * scratch copy of the recorded working directory. The gateway listens on a unix socket in
 * the scratch folder; inside the sandbox a small bridge (isolate-bridge.ts) listens on
 * 127.0.0.1:PORT and passes each connection to that socket, so the gateway is the one
 * place the agent's process tree can reach. Everything else is read-only, `/tmp` included
 * (the agent and its tools may live there: it is not hidden), TMPDIR and HOME are empty
 * folders of the scratch, and the recorded directory is read-only.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { BRIDGE_SOURCE } from "./isolate-bridge";

/** The port the agent's model clients are pointed at inside the sandbox (any is free there). */
export const DEFAULT_INSIDE_PORT = 4100;

/** What the branch run's run.start records. */
export interface IsolationRecord {
  tool: "bubblewrap";
  /** Only the gateway can be reached: a network namespace with loopback alone, bridged to it. */
  network: "gateway-only";
  /** The scratch copy the agent ran in. */
  cwd: string;
  /** The directory copied into it. */
  copiedFrom: string;
}

export interface Isolation {
  record: IsolationRecord;
  /** The agent's working directory and HOME inside the sandbox (folders of the scratch). */
  cwd: string;
  home: string;
  /** Where the gateway listens. */
  socket: string;
  /** The URL the agent's clients use inside the sandbox. */
  url: string;
  /** The argv that runs `command` in the sandbox. */
  argv(command: readonly string[]): string[];
}

export class IsolationError extends Error {}

/** `name` on PATH, or null. */
export function findOnPath(name: string, pathVar = process.env.PATH ?? ""): string | null {
  for (const dir of pathVar.split(path.delimiter)) {
    if (dir === "") continue;
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      /* not here */
    }
  }
  return null;
}

export interface IsolationOptions {
  /** The directory to copy: the recorded working directory, or the one `--cwd` names. */
  source: string;
  /** The recorded working directory, kept read-only in the sandbox when it exists here. */
  recordedCwd: string;
  insidePort: number;
  /** Agent config folders named in the environment (CODEX_HOME, CLAUDE_CONFIG_DIR): kept writable. */
  configDirs: string[];
}

/**
 * Checks that bubblewrap is installed and copies the source directory into a new scratch
 * folder; throws IsolationError (naming the package) when it cannot.
 */
export function prepareIsolation(opts: IsolationOptions): Isolation {
  const bwrap = findOnPath("bwrap");
  if (bwrap === null)
    throw new IsolationError(
      "--isolate needs bubblewrap (the bwrap command), which is not installed here: install the Debian package bubblewrap (apt-get install bubblewrap)",
    );
  // a bwrap that cannot make namespaces here (a container without them) says so now, not as the agent's exit status
  const probe = spawnSync(bwrap, ["--unshare-net", "--ro-bind", "/", "/", "true"], { encoding: "utf8", timeout: 10_000 });
  if (probe.status !== 0)
    throw new IsolationError(`--isolate: bubblewrap cannot make a sandbox here (${(probe.stderr || probe.error?.message || "").trim()})`);
  const source = path.resolve(opts.source);
  let st: fs.Stats;
  try {
    st = fs.statSync(source);
  } catch {
    throw new IsolationError(
      `--isolate copies the recorded working directory ${source}, which does not exist here: give --cwd DIR to copy another`,
    );
  }
  if (!st.isDirectory()) throw new IsolationError(`--isolate: ${source} is not a directory`);
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "retrace-isolate-")));
  const cwd = path.join(root, "work");
  const home = path.join(root, "home");
  fs.cpSync(source, cwd, { recursive: true, verbatimSymlinks: true });
  fs.mkdirSync(home);
  const tmp = path.join(root, "tmp");
  fs.mkdirSync(tmp);
  const socket = path.join(root, "gateway.sock");
  const recorded = path.resolve(opts.recordedCwd);
  const argv = (command: readonly string[]): string[] => {
    const args = [
      bwrap,
      "--die-with-parent",
      "--unshare-net",
      "--unshare-pid",
      "--unshare-ipc",
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
    ];
    for (const dir of opts.configDirs) if (fs.existsSync(dir)) args.push("--bind", dir, dir);
    args.push("--bind", root, root);
    // bound last: read-only even inside a writable config folder (a folder holding the
    // scratch is read-only already)
    for (const dir of new Set([recorded, source]))
      if (fs.existsSync(dir) && !root.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep)) args.push("--ro-bind", dir, dir);
    args.push("--chdir", cwd, "--setenv", "HOME", home, "--setenv", "TMPDIR", tmp, "--");
    args.push(process.execPath, "-e", BRIDGE_SOURCE, socket, String(opts.insidePort), ...command);
    return args;
  };
  return {
    record: { tool: "bubblewrap", network: "gateway-only", cwd, copiedFrom: source },
    cwd,
    home,
    socket,
    url: `http://127.0.0.1:${opts.insidePort}`,
    argv,
  };
}
