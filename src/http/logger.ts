/**
 * The service logger: JSON lines on stdout, level from config, credentials redacted.
 *
 * @packageDocumentation
 */
import { randomUUID } from "node:crypto";
import type { Response } from "express";
import { pino, type Logger } from "pino";
import { pinoHttp } from "pino-http";

/**
 * Creates the process logger.
 * @param level - a pino level (`info`, `debug`, `silent`, …)
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: "metahooks" },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    // Metacontroller can send bearer or basic credentials (v4.16+ webhook authorization).
    redact: { paths: ["req.headers.authorization", "req.headers.cookie"], censor: "[redacted]" },
  });
}

/**
 * The pino-http middleware of every listener: one JSON line per request with the request id
 * (an incoming `X-Request-Id`, else a UUID, echoed in the response), the fields a route put in
 * `res.locals.hookLog` (controller, hook, parent, decision…), status and `durationMs`. No bodies,
 * no headers (credentials never reach the log).
 *
 * @param logger - the process logger
 * @param quietPaths - GET paths not logged (health checks)
 */
export function createRequestLogger(logger: Logger, quietPaths: readonly string[]) {
  return pinoHttp({
    logger,
    genReqId: (req, res) => {
      const incoming = req.headers["x-request-id"];
      const id = typeof incoming === "string" && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
      res.setHeader("X-Request-Id", id);
      return id;
    },
    autoLogging: { ignore: (req) => req.method === "GET" && quietPaths.includes(req.url ?? "") },
    customAttributeKeys: { responseTime: "durationMs" },
    // Called when the request starts (binds the id) and again when it ends (adds the route's
    // fields); returning the id only once keeps it from appearing twice in the line.
    customProps: (req, res) =>
      ((res as Response).locals?.hookLog as Record<string, unknown> | undefined) ?? { requestId: req.id },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? "error" : res.statusCode >= 400 ? "warn" : "info"),
    serializers: {
      req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customSuccessMessage: (req, res) => `${req.method} ${req.url} ${res.statusCode}`,
    customErrorMessage: (req, res) => `${req.method} ${req.url} ${res.statusCode}`,
  });
}
