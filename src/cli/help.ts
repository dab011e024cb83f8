/**
 * The text of `metahooks --help`. The service's own variables are listed here; each kind's
 * variables come from its declaration (`options`), so a new kind documents itself.
 *
 * @packageDocumentation
 */
import type { Kind } from "../controllers/types.ts";

/** One kind's `Environment (…)` section, or "" when it has no variables. */
function optionsSection(kind: Kind): string {
  const options = kind.declaration.options;
  if (!options || options.variables.length === 0) return "";
  // A variable without a default (unset means "off") shows no empty parentheses.
  const lines = options.variables.map((v) => `  ${v.name}${v.default === "" ? "" : ` (${v.default})`}\n${" ".repeat(32)}${v.help}`);
  return `Environment (${options.title}):\n${lines.join("\n")}\n`;
}

/** The help text for the given kinds. */
export function helpText(kinds: ReadonlyArray<Kind>): string {
  return `metahooks — Metacontroller hooks for ${kinds.map((c) => c.kind).join(" and ")}

Usage:
  metahooks serve                          serve the hooks over HTTP (PORT, default 8080)
  metahooks sync <kind> [--now <time>]     read a sync request JSON on stdin, print the response
  metahooks finalize <kind> [--now <time>] same for the finalize hook
  metahooks customize <kind>               same for the customize hook (kinds that have one)
  metahooks explain <kind> <name> [-n <ns>] [-o json] [--kubeconfig <file>]
                                           read a live parent and its children, run the hook
                                           locally and say what it would do now and why
  metahooks next '<schedule>' [--time-zone <zone>] [-n <count>] [--from <time>] [-o json]
                                           the next slots with the hook's DST rules
  metahooks simulate <cronjob.yaml|-> --from <time> --to <time> [--job-duration 20m]
                  [--job-fails 10%] [--seed <n>] [--outage <start>/<end>] [--name <name>] [-o json]
                                           what a CronJob will do: slots, Jobs created or
                                           skipped (and why), finished, deleted, final status
  metahooks --help                         this text

Kinds: ${kinds.map((c) => `${c.name} (${c.apiVersion} ${c.kind})`).join(", ")}

Options:
  --now <time>   fix the clock, an RFC 3339 time such as 2026-01-02T03:04:05Z (default: real clock)
  --port <n>     with serve: the hook port (overrides PORT)

The hook commands print exactly what the HTTP route would answer and exit 0; when the route would
answer an error they print the same JSON error on stderr and exit 1. A usage error (unknown
command or option, missing or extra argument) exits 2, for every command.

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
  RECEIVER_PORT                 start the push webhook receiver on this port (off when unset)
  RECEIVER_BODY_LIMIT_BYTES (1048576), RECEIVER_MAX_IN_FLIGHT (16)
                                receiver body limit and deliveries verified at once

${kinds.map(optionsSection).filter(Boolean).join("\n")}`;
}
