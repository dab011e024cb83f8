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
import { CIBUILD_IMAGE_ENV, DEFAULT_CIBUILD_OPTIONS } from "./controllers/cibuild/options.ts";

const HELP = `metahooks — Metacontroller hooks for CronJob and CIBuild

Usage:
  metahooks serve                          serve the hooks over HTTP (PORT, default 8080)
  metahooks sync <kind> [--now <time>]     read a sync request JSON on stdin, print the response
  metahooks finalize <kind> [--now <time>] same for the finalize hook
  metahooks customize <kind>               same for the customize hook (kinds that have one)
  metahooks explain <kind> <name> [-n <ns>] [-o json] [--kubeconfig <file>]
                                           read a live parent and its children, run the hook
                                           locally and say what it would do now and why
  metahooks next '<schedule>' [--time-zone <zone>] [-n <count>] [--from <time>]
                                           the next slots with the hook's DST rules
  metahooks simulate <cronjob.yaml> --from <time> --to <time> [--job-duration 20m]
                  [--job-fails 10%] [--seed <n>] [--outage <start>/<end>] [-o json]
                                           what a CronJob will do: slots, Jobs created or
                                           skipped (and why), finished, deleted, final status
  metahooks --help                         this text

Kinds: ${controllers.map((c) => `${c.name} (${c.apiVersion} ${c.kind})`).join(", ")}

Options:
  --now <time>   fix the clock, an RFC 3339 time such as 2026-01-02T03:04:05Z (default: real clock)
  --port <n>     with serve: the hook port (overrides PORT)

The hook commands print exactly what the HTTP route would answer and exit 0; when the route would
answer an error they print the same JSON error on stderr and exit 1.

Environment (serve):
  PORT (8080)                   hook port: POST /sync|finalize|customize/<kind>, /healthz, /readyz
  ADMIN_PORT (9090)             plain-HTTP admin port: /metrics (Prometheus), /healthz, /readyz
  HOST (all, IPv6 and IPv4)     address the ports listen on
  LOG_LEVEL (info)              fatal, error, warn, info, debug, trace or silent (JSON lines on stdout)
  BODY_LIMIT_BYTES (8388608)    larger requests answer 413 (also after gzip/deflate/br decoding;
                                the hook commands read stdin no further than this)
  MAX_INFLIGHT_BYTES (2 x BODY_LIMIT_BYTES)
                                request-body bytes held at once by the hook and admission
                                listeners; beyond it 429 with Retry-After: 1
  REQUEST_TIMEOUT_MS (30000)    a whole request (headers and body) must arrive within this (408)
  AUTH_TOKEN_FILE (unset)       file with bearer tokens, one per line; every hook route then requires
                                "Authorization: Bearer <one of them>" (401 otherwise); re-read on change
  TLS_CERT_FILE, TLS_KEY_FILE   PEM certificate chain and key: the hook port serves HTTPS and
                                reloads them when they change (set both or neither)
  MAX_CONCURRENT_HOOKS (32)     hook calls served at once, counted once their body has arrived;
                                beyond it 429 with Retry-After: 1
  HOOK_TIME_BUDGET_MS (5000)    per-call budget from arrival to answer; past it 503, never a late 200
  SHUTDOWN_GRACE_SECONDS (20)   on SIGTERM/SIGINT: readiness turns false, in-flight calls finish,
                                keep-alive sockets close; exit after this many seconds at the latest
  SHUTDOWN_DELAY_SECONDS (0)    keep serving this long after the signal before closing the listener
                                (instead of a preStop sleep; counted inside the grace period)
  ADMISSION_TLS_CERT_FILE, ADMISSION_TLS_KEY_FILE
                                PEM chain and key: also serve the admission webhooks
                                (/validate/<kind>, /mutate/<kind>) over HTTPS; reloaded on change
  ADMISSION_PORT (9443)         port of that admission listener

Environment (cibuild build images; serve and the hook commands; pinned tag or digest required):
${(Object.keys(CIBUILD_IMAGE_ENV) as Array<keyof typeof CIBUILD_IMAGE_ENV>).map((k) => `  ${CIBUILD_IMAGE_ENV[k].padEnd(15)} ${DEFAULT_CIBUILD_OPTIONS[k]}`).join("\n")}
`;

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
    // drains them with the hook listener on SIGTERM.
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
