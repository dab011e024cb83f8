/**
 * The `metahooks` command line as a function: `runCli(argv, io)` over injected streams, environment
 * and clock. `src/main.ts` runs it with the process's own.
 *
 * @packageDocumentation
 */
import { parseArgs } from "node:util";
import { readFileSync } from "node:fs";
import { parseNow, readBounded, runHookCommand } from "./hook-command.ts";
import { readBodyLimitBytes } from "../config.ts";
import { controllers } from "../controllers/registry.ts";
import { helpText } from "./help.ts";

const HELP = helpText(controllers);

/**
 * What the command line touches outside itself: the streams, the environment and the clock. The
 * entry point (`src/main.ts`) passes the process's own; tests pass strings and a fixed clock, so
 * a command runs in process exactly as the binary runs it.
 */
export interface CliIo {
  /** Writes to standard output. */
  stdout: (text: string) => void;
  /** Writes to standard error. */
  stderr: (text: string) => void;
  /** Reads standard input to its end, stopping once more than `limitBytes` were read (the caller refuses that). */
  readStdin: (limitBytes: number) => Buffer;
  /** The environment (`BODY_LIMIT_BYTES`, kind options, `KUBECONFIG`, `PORT`…). */
  env: NodeJS.ProcessEnv;
  /** The clock for commands run without `--now` / `--from`. */
  clock: () => Date;
}

/** The process's own streams, environment and clock: what `bin/metahooks.js` runs with. */
export function processIo(): CliIo {
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    readStdin: (limitBytes) => readBounded(0, limitBytes),
    env: process.env,
    clock: () => new Date(),
  };
}

/**
 * Runs `metahooks <argv…>` and resolves to its exit code: 0 success, 1 when the input is refused
 * (a hook's error answer, an unreadable file) or on an unexpected failure (then
 * `metahooks: <message>` on stderr), 2 on a usage error (unknown command or option, a missing or
 * extra argument; the message and the usage on stderr). Never rejects.
 * `serve` resolves once the servers are listening.
 */
export async function runCli(argv: string[], io: CliIo = processIo()): Promise<number> {
  try {
    return await runCommand(argv, io);
  } catch (err) {
    io.stderr(`metahooks: ${(err as Error)?.message ?? String(err)}\n`);
    return 1;
  }
}

async function runCommand(argv: string[], io: CliIo): Promise<number> {
  if (argv[0] === "next") {
    const { runNext } = await import("./next.ts");
    const outcome = runNext(argv.slice(1), io.clock);
    io.stdout(outcome.stdout);
    io.stderr(outcome.stderr);
    return outcome.exitCode;
  }
  if (argv[0] === "simulate") {
    const { runSimulate } = await import("./simulate.ts");
    // `-` reads the injected stdin, so an in-process run never blocks on the caller's own.
    const outcome = await runSimulate(argv.slice(1), (path) => (path === "-" ? io.readStdin(Number.POSITIVE_INFINITY).toString("utf8") : readFileSync(path, "utf8")));
    io.stdout(outcome.stdout);
    io.stderr(outcome.stderr);
    return outcome.exitCode;
  }
  if (argv[0] === "explain") {
    // Loaded only for this command: it pulls in @kubernetes/client-node, which serve never needs.
    const { runExplain } = await import("../explain/command.ts");
    const outcome = await runExplain(argv.slice(1), { env: io.env, clock: io.clock });
    io.stdout(outcome.stdout);
    io.stderr(outcome.stderr);
    return outcome.exitCode;
  }
  // A usage error exits 2, as in next, simulate and explain (and most command-line tools): a
  // script can tell "you called me wrong" from "the hook refused the request" (1).
  const usage = (message: string): number => {
    io.stderr(`${message}\n\n${HELP}`);
    return 2;
  };
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        help: { type: "boolean", short: "h" },
        now: { type: "string" },
        port: { type: "string" },
      },
    });
  } catch (err) {
    return usage(`metahooks: ${(err as Error).message}`);
  }
  const { values, positionals } = parsed;
  const [command, kind, ...extra] = positionals;
  if (values.help || command === "help") {
    io.stdout(HELP);
    return 0;
  }
  if (command === undefined) return usage("metahooks: missing command");
  if (extra.length > 0 || (command === "serve" && kind !== undefined)) {
    const unexpected = command === "serve" ? [kind, ...extra] : extra;
    return usage(`metahooks ${command}: unexpected argument ${JSON.stringify(unexpected[0])}`);
  }
  // An option that does nothing for this command is a mistake worth saying (`serve --now` would
  // otherwise serve on the real clock as if the flag had been read).
  if (command === "serve" && values.now !== undefined) return usage("metahooks serve: --now applies to the hook commands (sync, finalize, customize), not serve");
  if (command !== "serve" && values.port !== undefined) return usage(`metahooks ${command}: --port applies to serve only`);
  if (command === "serve") {
    // Loaded only for this command: express, pino and prom-client cost about 100 ms of start-up
    // that the one-shot hook commands never need.
    const { serve } = await import("../server.ts");
    const env = { ...io.env };
    if (values.port !== undefined) env.PORT = values.port;
    // serve also starts the HTTPS admission webhooks when ADMISSION_TLS_CERT_FILE and
    // ADMISSION_TLS_KEY_FILE are set (first, so a failure exits before anything is Ready) and
    // drains them with the hook listener on SIGTERM; likewise the push receiver (RECEIVER_PORT).
    await serve(env);
    return 0;
  }
  if (command === "sync" || command === "finalize" || command === "customize") {
    if (!kind) return usage(`metahooks ${command}: missing <kind>`);
    let now: Date;
    try {
      now = parseNow(values.now, io.clock);
    } catch (err) {
      return usage(`metahooks ${command}: ${(err as Error).message}`);
    }
    // The same limit as the HTTP route (BODY_LIMIT_BYTES); stdin is read no further than that.
    const limitBytes = readBodyLimitBytes(io.env);
    const outcome = runHookCommand(command, kind, io.readStdin(limitBytes), now, io.env, limitBytes);
    io.stdout(outcome.stdout);
    io.stderr(outcome.stderr);
    return outcome.exitCode;
  }
  return usage(`metahooks: unknown command ${JSON.stringify(command)}`);
}
