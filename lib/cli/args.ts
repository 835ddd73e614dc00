/**
 * Command-line options, parsed by node's util.parseArgs in strict mode: an option a command
 * does not declare is an error (a typo like `--jsno` is never taken for a file name), and
 * `--` ends the options for a file whose name starts with a dash.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

export type CommandOptions = NonNullable<ParseArgsConfig["options"]>;

type StrictConfig<O extends CommandOptions> = { args: string[]; options: O; strict: true; allowPositionals: true };

/** What a command's `run` receives: its declared options' values and the other arguments. */
export type CommandArgs<O extends CommandOptions> = ReturnType<typeof parseArgs<StrictConfig<O>>>;

/** The arguments, or the reason they are wrong (node's own words: which option, and why). */
export function parseCommandArgs<O extends CommandOptions>(argv: string[], options: O): CommandArgs<O> | { error: string } {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: true });
  } catch (e) {
    if (String((e as NodeJS.ErrnoException).code ?? "").startsWith("ERR_PARSE_ARGS")) return { error: (e as Error).message };
    throw e;
  }
}

/** `--help` or `-h` among the options (not after `--`, where it would be a file). */
export function asksForHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  const options = end < 0 ? argv : argv.slice(0, end);
  return options.includes("--help") || options.includes("-h");
}
