/**
 * `npm run -s retrace -- <command>`: each command lives in commands/<name>.ts and exports
 * `summary`, `usage`, the `options` it takes (util.parseArgs's form) and
 * `run(args): Promise<number>` (the exit code). Arguments are parsed here, before the
 * command loads anything: an unknown option stops it with exit status 2.
 */
import { failureMessage } from "./failure";
import { asksForHelp, parseCommandArgs, type CommandOptions } from "./args";

const COMMANDS = [
  "import",
  "migrate",
  "analyze",
  "replay",
  "record",
  "mcp-proxy",
  "replay-test",
  "redaction-key",
  "export",
  "verify",
  "keys",
  "purge",
  "hold",
  "user",
  "project",
  "policy",
  "key",
  "log",
  "executor",
] as const;
type CommandName = (typeof COMMANDS)[number];

interface CliCommand {
  summary: string;
  usage: string;
  options: CommandOptions;
  run(args: { values: Record<string, unknown>; positionals: string[] }): Promise<number>;
}

async function load(name: CommandName): Promise<CliCommand | null> {
  try {
    return (await import(`./commands/${name}.ts`)) as CliCommand;
  } catch (e) {
    // a command not written yet: node says so when run from source, the bundle in its own words
    const missing = (e as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND" || String(e).includes("Module not found in bundle");
    if (missing && String(e).includes(`commands/${name}`)) return null;
    throw e;
  }
}

async function help(): Promise<void> {
  const lines = ["Retrace: replay debugger for AI agent runs", "", "Usage: npm run -s retrace -- <command> [options]", "", "Commands:"];
  for (const name of COMMANDS) {
    const cmd = await load(name);
    if (cmd) lines.push(`  ${name.padEnd(13)} ${cmd.summary}`);
  }
  lines.push("", "Run `npm run -s retrace -- <command> --help` for a command's options.");
  console.log(lines.join("\n"));
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    await help();
    return name ? 0 : 1;
  }
  const cmd = (COMMANDS as readonly string[]).includes(name) ? await load(name as CommandName) : null;
  if (!cmd) {
    console.error(`retrace: unknown command "${name}". Try --help.`);
    return 1;
  }
  if (asksForHelp(rest)) {
    console.log(cmd.usage);
    return 0;
  }
  const args = parseCommandArgs(rest, cmd.options);
  if ("error" in args) {
    console.error(`retrace ${name}: ${args.error}\n\n${cmd.usage}`);
    return 2;
  }
  return cmd.run(args);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`retrace: ${failureMessage(err)}`);
    process.exit(2);
  },
);
