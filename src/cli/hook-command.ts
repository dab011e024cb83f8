/**
 * `metahooks sync|finalize|customize <kind>`: one hook request JSON on stdin, the response on
 * stdout — byte for byte what the HTTP route would answer.
 *
 * @packageDocumentation
 */
import { readSync } from "node:fs";
import { invalidRequest, toErrorBody } from "../errors.ts";
import { parseJsonBody } from "../http/body.ts";
import { runHook, type HookName } from "../metacontroller/run-hook.ts";
import { configureControllers } from "../controllers/registry.ts";
import type { Env } from "../config.ts";
import { parseExactTime } from "../kube/time.ts";

/** Outcome of a CLI hook call: what to print where, and the exit code. */
export interface CliHookOutcome {
  exitCode: 0 | 1;
  stdout: string;
  stderr: string;
}

/**
 * Runs a hook over a request body, as the CLI does (pure apart from reading `env` for kind
 * options): the same body limit, JSON parsing and errors as the HTTP route.
 *
 * @param hook - `sync`, `finalize` or `customize`
 * @param kind - controller name, e.g. `cronjob`
 * @param input - the request body (bytes, or a JSON text)
 * @param now - the clock for the call
 * @param env - environment for the kind's options (e.g. build images)
 * @param limitBytes - the body limit (`BODY_LIMIT_BYTES`), as on the HTTP route. @default 8 MiB
 * @returns exit code 0 with the response on stdout, or 1 with the JSON error body on stderr
 */
export function runHookCommand(hook: HookName, kind: string, input: string | Buffer, now: Date, env: Env, limitBytes = 8 * 1024 * 1024): CliHookOutcome {
  try {
    const configured = configureControllers(env).find((c) => c.def.name === kind);
    if (!configured) throw invalidRequest(`unknown kind ${JSON.stringify(kind)}`);
    const body = parseJsonBody(typeof input === "string" ? Buffer.from(input, "utf8") : input, limitBytes);
    const result = runHook(configured.def, hook, body, now, configured.options);
    return { exitCode: 0, stdout: JSON.stringify(result.response) + "\n", stderr: "" };
  } catch (err) {
    const { body } = toErrorBody(err, "cli");
    return { exitCode: 1, stdout: "", stderr: JSON.stringify(body) + "\n" };
  }
}

/**
 * Reads a file descriptor (stdin) to its end, but never more than one byte past `limitBytes`: a
 * larger input is refused by {@link runHookCommand} as the HTTP route refuses it, without holding
 * all of it.
 */
export function readBounded(fd: number, limitBytes: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  const chunk = Buffer.alloc(64 * 1024);
  while (total <= limitBytes) {
    let n: number;
    try {
      n = readSync(fd, chunk, 0, chunk.length, null);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EAGAIN") continue;
      if ((err as NodeJS.ErrnoException).code === "EOF") break;
      throw err;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(chunk.subarray(0, n)));
    total += n;
  }
  return Buffer.concat(chunks, total);
}

/**
 * Parses `--now`: an RFC 3339 timestamp with an explicit zone (`Z` or `±hh:mm`). Every field must
 * exist on the calendar: `2026-02-30` or `T24:00:00` are refused, not shifted into the next month
 * or day as `Date` would.
 * @throws Error when the value is not such a timestamp
 */
export function parseNow(value: string | undefined, realClock: () => Date): Date {
  if (value === undefined) return realClock();
  const date = parseExactTime(value);
  if (!date) {
    throw new Error(`--now must be an RFC 3339 time such as 2026-01-02T03:04:05Z that exists on the calendar, got ${JSON.stringify(value)}`);
  }
  return date;
}
