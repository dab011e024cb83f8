/**
 * The `metahooks` command line: `serve`, and the hooks as pure functions over JSON.
 *
 * @packageDocumentation
 */
import { parseArgs } from "node:util";
import { readFileSync } from "node:fs";
import { runHookCommand, parseNow, readBounded } from "./cli/hook-command.ts";
import { readBodyLimitBytes } from "./config.ts";
import { controllers } from "./controllers/registry.ts";
import { helpText } from "./cli/help.ts";

const HELP = helpText(controllers);

async function main(argv: string[]): Promise<number> {
  if (argv[0] === "next") {
    const { runNext } = await import("./cli/next.ts");
    const outcome = runNext(argv.slice(1), () => new Date());
    process.stdout.write(outcome.stdout);
    process.stderr.write(outcome.stderr);
    return outcome.exitCode;
  }
  if (argv[0] === "simulate") {
    const { runSimulate } = await import("./cli/simulate.ts");
    const outcome = await runSimulate(argv.slice(1));
    process.stdout.write(outcome.stdout);
    process.stderr.write(outcome.stderr);
    return outcome.exitCode;
  }
  if (argv[0] === "explain") {
    // Loaded only for this command: it pulls in @kubernetes/client-node, which serve never needs.
    const { runExplain } = await import("./explain/command.ts");
    const outcome = await runExplain(argv.slice(1), { env: process.env, clock: () => new Date() });
    process.stdout.write(outcome.stdout);
    process.stderr.write(outcome.stderr);
    return outcome.exitCode;
  }
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      help: { type: "boolean", short: "h" },
      now: { type: "string" },
      port: { type: "string" },
    },
  });
  const [command, kind, ...extra] = positionals;
  if (values.help || command === undefined || command === "help") {
    process.stdout.write(HELP);
    return values.help || command === "help" ? 0 : 1;
  }
  if (extra.length > 0 || (command === "serve" && kind !== undefined)) {
    const unexpected = command === "serve" ? [kind, ...extra] : extra;
    process.stderr.write(`metahooks ${command}: unexpected argument ${JSON.stringify(unexpected[0])}\n\n${HELP}`);
    return 1;
  }
  if (command === "serve") {
    // Loaded only for this command: express, pino and prom-client cost about 100 ms of start-up
    // that the one-shot hook commands never need.
    const { serve } = await import("./server.ts");
    const env = { ...process.env };
    if (values.port !== undefined) env.PORT = values.port;
    // serve also starts the HTTPS admission webhooks when ADMISSION_TLS_CERT_FILE and
    // ADMISSION_TLS_KEY_FILE are set (first, so a failure exits before anything is Ready) and
    // drains them with the hook listener on SIGTERM; likewise the push receiver (RECEIVER_PORT).
    await serve(env);
    return 0;
  }
  if (command === "sync" || command === "finalize" || command === "customize") {
    if (!kind) {
      process.stderr.write(`metahooks ${command}: missing <kind>\n\n${HELP}`);
      return 1;
    }
    const now = parseNow(values.now, () => new Date());
    // The same limit as the HTTP route (BODY_LIMIT_BYTES); stdin is read no further than that.
    const limitBytes = readBodyLimitBytes(process.env);
    const outcome = runHookCommand(command, kind, readBounded(0, limitBytes), now, process.env, limitBytes);
    process.stdout.write(outcome.stdout);
    process.stderr.write(outcome.stderr);
    return outcome.exitCode;
  }
  process.stderr.write(`metahooks: unknown command ${JSON.stringify(command)}\n\n${HELP}`);
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`metahooks: ${(err as Error)?.message ?? String(err)}\n`);
    process.exitCode = 1;
  },
);
