/**
 * Service configuration, read once at start-up from the environment (and CLI flags).
 * Nothing below src/controllers reads the environment: the resolved values are passed in.
 *
 * @packageDocumentation
 */

/** Settings of the hook service process. */
export interface ServiceConfig {
  /** Hook port. Env `PORT`. @default 8080 */
  port: number;
  /** Address to listen on. Env `HOST`. @default "0.0.0.0" */
  host: string;
  /** JSON body limit in bytes. Env `BODY_LIMIT_BYTES`. @default 8388608 (8 MiB) */
  bodyLimitBytes: number;
  /** pino level. Env `LOG_LEVEL`. @default "info" */
  logLevel: string;
}

/** Environment variables as a plain record (e.g. `process.env`). */
export type Env = Record<string, string | undefined>;

function intFrom(env: Env, key: string, fallback: number, min: number, max: number): number {
  const raw = env[key];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${key} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

/**
 * Reads the service configuration.
 * @throws Error naming the variable when a value is out of range
 */
export function loadServiceConfig(env: Env): ServiceConfig {
  return {
    port: intFrom(env, "PORT", 8080, 0, 65535),
    host: env.HOST || "0.0.0.0",
    bodyLimitBytes: intFrom(env, "BODY_LIMIT_BYTES", 8 * 1024 * 1024, 1024, 256 * 1024 * 1024),
    logLevel: env.LOG_LEVEL || "info",
  };
}
