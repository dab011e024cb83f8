/**
 * `metahooks sync|finalize|customize <kind>`: one hook request JSON on stdin, the response on
 * stdout — byte for byte what the HTTP route would answer.
 *
 * @packageDocumentation
 */
import { malformedJson, invalidRequest, toErrorBody } from "../errors.ts";
import { runHook, type HookName } from "../metacontroller/run-hook.ts";
import { configureControllers } from "../controllers/registry.ts";
import type { Env } from "../config.ts";

/** Outcome of a CLI hook call: what to print where, and the exit code. */
export interface CliHookOutcome {
  exitCode: 0 | 1;
  stdout: string;
  stderr: string;
}

/**
 * Runs a hook over a JSON text, as the CLI does (pure apart from reading `env` for kind options).
 *
 * @param hook - `sync`, `finalize` or `customize`
 * @param kind - controller name, e.g. `cronjob`
 * @param input - the request JSON text
 * @param now - the clock for the call
 * @param env - environment for the kind's options (e.g. build images)
 * @returns exit code 0 with the response on stdout, or 1 with the JSON error body on stderr
 */
export function runHookCommand(hook: HookName, kind: string, input: string, now: Date, env: Env): CliHookOutcome {
  try {
    const configured = configureControllers(env).find((c) => c.def.name === kind);
    if (!configured) throw invalidRequest(`unknown kind ${JSON.stringify(kind)}`);
    let body: unknown;
    try {
      body = input.trim() === "" ? undefined : JSON.parse(input);
    } catch (err) {
      throw malformedJson((err as Error).message);
    }
    if (body === undefined) throw malformedJson("empty input");
    const result = runHook(configured.def, hook, body, now, configured.options);
    return { exitCode: 0, stdout: JSON.stringify(result.response) + "\n", stderr: "" };
  } catch (err) {
    const { body } = toErrorBody(err, "cli");
    return { exitCode: 1, stdout: "", stderr: JSON.stringify(body) + "\n" };
  }
}

/**
 * Parses `--now`: an RFC 3339 timestamp with an explicit zone (`Z` or `±hh:mm`).
 * @throws Error when the value is not such a timestamp
 */
export function parseNow(value: string | undefined, realClock: () => Date): Date {
  if (value === undefined) return realClock();
  const rfc3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
  const date = new Date(value);
  if (!rfc3339.test(value) || Number.isNaN(date.getTime())) {
    throw new Error(`--now must be an RFC 3339 time such as 2026-01-02T03:04:05Z, got ${JSON.stringify(value)}`);
  }
  return date;
}
