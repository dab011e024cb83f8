/**
 * The service logger: JSON lines on stdout, level from config, credentials redacted.
 *
 * @packageDocumentation
 */
import { pino, type Logger } from "pino";

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
