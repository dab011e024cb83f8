/**
 * The service logger: JSON lines on stdout, level from config, credentials redacted.
 *
 * @packageDocumentation
 */
import { randomUUID } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import { pino, type Logger } from "pino";

/**
 * Creates the process logger, writing each line to stdout synchronously.
 *
 * Why synchronously (pino's default writes asynchronously): an asynchronous write to a closed
 * stdout pipe (`metahooks serve | head -1`) reports EPIPE only in a later callback, and when that
 * line is among the last before `process.exit`, pino's exit hook flushes the rest with
 * sonic-boom's `flushSync`, which retries every error but EAGAIN for ever: the process never
 * exited and ignored further signals. A synchronous write sees EPIPE at once, pino then drops
 * every later line, and no exit-time flush is registered. The price is that a stdout reader which
 * stops reading stalls the service once the pipe buffer is full, as `console.log` on a pipe does.
 *
 * @param level - a pino level (`info`, `debug`, `silent`, …)
 */
export function createLogger(level: string): Logger {
  return pino(
    {
      level,
      base: { service: "metahooks" },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // Metacontroller can send bearer or basic credentials (v4.16+ webhook authorization).
      redact: { paths: ["req.headers.authorization", "req.headers.cookie"], censor: "[redacted]" },
    },
    pino.destination({ dest: 1, sync: true }),
  );
}

/** Request ids we echo: an incoming `X-Request-Id` of this shape, else a fresh UUID. */
const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * The id of a request: its `X-Request-Id` header when that is 1–128 characters of letters, digits,
 * `_`, `.`, `:` or `-` (so a caller can correlate), else a fresh random UUID (never an echo of
 * anything else a client sent).
 */
export function requestIdFor(req: Request): string {
  const incoming = req.headers["x-request-id"];
  return typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

declare module "node:http" {
  interface IncomingMessage {
    /** The request id ({@link createRequestLogger}), also in error bodies and the log line. */
    id?: string;
  }
  interface ServerResponse {
    /** The error behind a 5xx answer, for its log line. */
    err?: Error;
  }
}

/**
 * The request logger of every listener: one JSON line per request, written once when the answer
 * is done (or the client went away), with the request id (an incoming `X-Request-Id`, else a
 * UUID, echoed in the response), `req` `{method, url}`, the fields a route put in
 * `res.locals.hookLog` (controller, hook, parent, decision…), `res` `{statusCode}`, `err` for
 * answers of 500 and above, `durationMs` (whole milliseconds) and the message
 * `<METHOD> <url> <status>`. Level: error from 500 (or when the response stream failed), warn from
 * 400, else info; a timeout the client caused (its body still arriving when the time budget ran
 * out, `res.locals.clientTimedOut`, or Node's 408 at REQUEST_TIMEOUT_MS) is a warning without `err`. No bodies, no headers (credentials never reach the log).
 *
 * One plain `logger[level](fields, msg)` call per request: no child logger or serializer per call
 * (the line has the fields and order pino-http 11 gave it with our options).
 *
 * @param logger - the process logger
 * @param quietPaths - GET paths not logged (health checks)
 */
export function createRequestLogger(logger: Logger, quietPaths: readonly string[]) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const id = requestIdFor(req);
    req.id = id;
    res.setHeader("X-Request-Id", id);
    const quiet = req.method === "GET" && quietPaths.includes(req.url ?? "");
    const started = Date.now();
    const request = { method: req.method, url: req.url };
    const done = (err?: unknown): void => {
      res.off("close", done);
      res.off("finish", done);
      res.off("error", done);
      if (quiet && err === undefined) return;
      // Node answers 408 on the socket itself when the request outlives REQUEST_TIMEOUT_MS; our
      // response never went out, so its statusCode (200) would be a lie.
      const requestTimedOut = !res.headersSent && (req.socket as { errored?: { code?: unknown } | null } | null)?.errored?.code === "ERR_HTTP_REQUEST_TIMEOUT";
      const status = requestTimedOut ? 408 : res.statusCode;
      // A client too slow to send its body is its own problem: a warning, no stack trace.
      const clientTimedOut = requestTimedOut || res.locals?.clientTimedOut === true;
      const failed = clientTimedOut ? undefined : err instanceof Error ? err : res.err ?? (status >= 500 ? new Error(`failed with status code ${status}`) : undefined);
      const level = clientTimedOut ? "warn" : err !== undefined || status >= 500 ? "error" : status >= 400 ? "warn" : "info";
      if (!logger.isLevelEnabled(level)) return;
      const route = res.locals?.hookLog as Record<string, unknown> | undefined;
      const fields: Record<string, unknown> = { req: request, requestId: id, ...route, res: { statusCode: status } };
      if (failed) fields.err = failed;
      fields.durationMs = Date.now() - started;
      logger[level](fields, `${req.method} ${req.url} ${status}`);
    };
    if (!quiet) {
      res.on("close", done);
      res.on("finish", done);
    }
    res.on("error", done);
    next();
  };
}
