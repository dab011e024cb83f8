// `metahooks <args…>` in process: runCli with a string stdin, collected output and the given
// environment. The same code path as bin/metahooks.js apart from the process itself, whose
// wiring (exit codes, stdin/stdout/stderr) test/cli.test.ts checks with a real spawn.
import { runCli } from "../../src/cli/main.ts";

/** What a command wrote and its exit code, named as spawnSync names them. */
export interface CliRun {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs `metahooks <args…>` in process. `input` is stdin; `env` defaults to this process's. */
export async function runCliInProcess(args: string[], options: { input?: string | Buffer; env?: NodeJS.ProcessEnv; clock?: () => Date } = {}): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const input = options.input ?? "";
  const status = await runCli(args, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    // All of it: test inputs are far below any body limit they are not testing.
    readStdin: () => (typeof input === "string" ? Buffer.from(input, "utf8") : input),
    env: options.env ?? process.env,
    clock: options.clock ?? (() => new Date()),
  });
  return { status, stdout, stderr };
}
