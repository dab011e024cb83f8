/**
 * The `metahooks` command line: `serve`, and the hooks as pure functions over JSON.
 *
 * @packageDocumentation
 */
import { parseArgs } from "node:util";
import { readFileSync } from "node:fs";
import { runHookCommand, parseNow } from "./cli/hook-command.ts";
import { controllers } from "./controllers/registry.ts";
import { helpText } from "./cli/help.ts";

const HELP = helpText(controllers);

async function main(argv: string[]): Promise<number> {
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
  const [command, kind] = positionals;
  if (values.help || command === undefined || command === "help") {
    process.stdout.write(HELP);
    return values.help || command === "help" ? 0 : 1;
  }
  if (command === "serve") {
    const env = { ...process.env };
    if (values.port !== undefined) env.PORT = values.port;
    // The HTTPS admission webhooks (when ADMISSION_TLS_CERT_FILE/ADMISSION_TLS_KEY_FILE are set)
    // start first: if they cannot (port taken, key not matching the certificate) the process
    // exits before anything reports Ready. A pod that is Ready without its admission listener
    // would make a failurePolicy=Fail webhook reject every CronJob and CIBuild write.
    // Loaded only for this command: the hook commands never need express, pino or prom-client
    // (each CLI call starts faster without them).
    const { startAdmissionFromEnv } = await import("./admission/server.ts");
    const { serve } = await import("./server.ts");
    await startAdmissionFromEnv(env);
    await serve(env);
    return 0;
  }
  if (command === "sync" || command === "finalize" || command === "customize") {
    if (!kind) {
      process.stderr.write(`metahooks ${command}: missing <kind>\n\n${HELP}`);
      return 1;
    }
    const now = parseNow(values.now, () => new Date());
    const input = readFileSync(0, "utf8");
    const outcome = runHookCommand(command, kind, input, now, process.env);
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
