/**
 * The agent's command, run with the gateway as its model APIs' base URL. Signals the
 * gateway gets (Ctrl-C) are passed on; the command's exit status is the result.
 */
import { spawn } from "node:child_process";

/**
 * The environment that points every supported client at the gateway at `url`, and tells an
 * MCP proxy the agent starts (`retrace mcp-proxy`) which session it is in and its token.
 */
export function gatewayEnv(url: string, session?: { mode: "record" | "replay"; token: string }): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: url,
    OPENAI_BASE_URL: `${url}/v1`,
    GOOGLE_GEMINI_BASE_URL: url,
    RETRACE_GATEWAY_URL: url,
    ...(session ? { RETRACE_SESSION: session.mode, RETRACE_SESSION_TOKEN: session.token } : {}),
  };
}

/**
 * Runs `argv` with `env` added; resolves with its exit status (128 + signal number when a
 * signal ended it, 127 when it cannot be started). `stdoutToStderr` keeps the gateway's own
 * stdout for its one JSON object.
 */
export function runCommand(
  argv: readonly string[],
  env: Record<string, string>,
  opts: { stdoutToStderr?: boolean; cwd?: string } = {},
): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), {
      env: { ...process.env, ...env },
      cwd: opts.cwd,
      stdio: ["inherit", opts.stdoutToStderr ? process.stderr : "inherit", "inherit"],
    });
    const pass = (signal: NodeJS.Signals) => () => child.kill(signal);
    const onInt = pass("SIGINT");
    const onTerm = pass("SIGTERM");
    process.on("SIGINT", onInt);
    process.on("SIGTERM", onTerm);
    const done = (code: number) => {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      resolve(code);
    };
    child.on("error", (e) => {
      console.error(`retrace: cannot run ${argv[0]}: ${e.message}`);
      done(127);
    });
    child.on("exit", (code, signal) => done(code ?? (signal ? 128 + (signalNumber(signal) ?? 0) : 1)));
  });
}

function signalNumber(signal: NodeJS.Signals): number | undefined {
  return ({ SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 } as Record<string, number>)[signal];
}
