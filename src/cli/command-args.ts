/**
 * The argument preamble shared by the `next` and `simulate` commands: parse the options, answer
 * `--help`, demand exactly one positional and read `-o table|json`. Each command keeps its own
 * option table and usage text; only the order of checks and the wording of usage errors live here,
 * so the two commands reject bad command lines the same way.
 *
 * @packageDocumentation
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

/** An option table as `parseArgs` takes it. */
type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig["options"]>;

/** What to print where, and the exit code (0 done, 1 bad input, 2 usage error). */
export interface CliOutcome {
  exitCode: 0 | 1 | 2;
  stdout: string;
  stderr: string;
}

/** The shared options every command with this preamble has: `-o table|json` and `-h`. */
const COMMON_OPTIONS = {
  output: { type: "string", short: "o" },
  help: { type: "boolean", short: "h" },
} as const satisfies ParseArgsOptionsConfig;

/** A command line that passed the preamble: its option values, its one positional and its output format. */
export interface CommandArgs<T extends ParseArgsOptionsConfig> {
  values: ReturnType<typeof parseArgs<{ options: T & typeof COMMON_OPTIONS; allowPositionals: true; args: string[] }>>["values"];
  positional: string;
  output: "table" | "json";
}

/** How one command names itself and its positional argument in usage errors. */
export interface CommandSpec<T extends ParseArgsOptionsConfig> {
  /** The command's name after `metahooks` (`next`), the prefix of every message. */
  command: string;
  /** The full usage text, printed for `--help` (stdout) and after a usage error (stderr). */
  usage: string;
  /** The command's own options (without `output` and `help`). */
  options: T;
  /** The positional's name for "missing <…>", e.g. `<schedule>`. */
  positional: string;
  /** The message when more than one positional is given, from their count. */
  tooMany: (count: number) => string;
}

/** A usage error (exit 2): the message, then the usage text, on stderr. */
export function usageError(command: string, usage: string, message: string): CliOutcome {
  return { exitCode: 2, stdout: "", stderr: `metahooks ${command}: ${message}\n\n${usage}` };
}

/**
 * Runs the preamble over the arguments after the command name.
 * @returns the parsed arguments, or the outcome to return at once: `--help` (exit 0) or a usage
 *   error (exit 2) for an unknown option, a missing value, a wrong number of positionals or an
 *   `--output` other than table or json
 */
export function parseCommandArgs<T extends ParseArgsOptionsConfig>(spec: CommandSpec<T>, args: string[]): CommandArgs<T> | CliOutcome {
  const fail = (message: string) => usageError(spec.command, spec.usage, message);
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { ...spec.options, ...COMMON_OPTIONS } });
  } catch (err) {
    return fail((err as Error).message);
  }
  const values = parsed.values as CommandArgs<T>["values"];
  // Inside this generic function TypeScript cannot resolve the common options' types from T.
  const common = parsed.values as { help?: boolean; output?: string };
  const { positionals } = parsed;
  if (common.help) return { exitCode: 0, stdout: spec.usage, stderr: "" };
  if (positionals.length !== 1) return fail(positionals.length === 0 ? `missing ${spec.positional}` : spec.tooMany(positionals.length));
  const output = common.output ?? "table";
  if (output !== "table" && output !== "json") return fail(`--output must be table or json, got ${JSON.stringify(output)}`);
  return { values, positional: positionals[0]!, output };
}

/** Whether {@link parseCommandArgs} returned an outcome to print instead of parsed arguments. */
export function isOutcome<T extends ParseArgsOptionsConfig>(result: CommandArgs<T> | CliOutcome): result is CliOutcome {
  return "exitCode" in result;
}
