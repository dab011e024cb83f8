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
  /**
   * Address to listen on (hook and admin ports). Env `HOST`. Unset: Node's default, every IPv6
   * and IPv4 address (`::` dual-stack, or `0.0.0.0` where the host has no IPv6), so probes work
   * on IPv4, IPv6 and dual-stack clusters.
   */
  host?: string;
  /**
   * Admin port serving `/metrics`, `/healthz` and `/readyz` over plain HTTP (never TLS, never
   * authenticated: probes and Prometheus scrape it). Env `ADMIN_PORT`; `0` picks a free port.
   * @default 9090
   */
  adminPort: number;
  /**
   * Largest request body in bytes, on the wire and after decompression (gzip, deflate, br); larger
   * ones answer 413. Env `BODY_LIMIT_BYTES`, 1024 to 268435456. @default 8388608 (8 MiB)
   */
  bodyLimitBytes: number;
  /**
   * Bytes of request bodies held at once by all listeners (hook and admission); a body that would
   * go past it answers 429 with `Retry-After: 1`, checked against its Content-Length on arrival and
   * chunk by chunk while it streams. At least `bodyLimitBytes`. Env `MAX_INFLIGHT_BYTES`.
   * @default 2 × bodyLimitBytes (16 MiB): two bodies at the limit, parsed one after the other
   *   (hooks are synchronous), keep the CPU busy without queueing calls past their time budget
   */
  maxInflightBytes: number;
  /**
   * Milliseconds a client has to send a whole request, headers and body (Node's `requestTimeout`;
   * the headers alone get the same). A slower client gets 408 and is disconnected, so trickled
   * uploads end. Env `REQUEST_TIMEOUT_MS`, 1000 to 600000. @default 30000
   */
  requestTimeoutMs: number;
  /** pino level. Env `LOG_LEVEL`. @default "info" */
  logLevel: string;
  /**
   * File holding the bearer token every hook route requires (`Authorization: Bearer <token>`):
   * one token per line, each accepted (old and new during a rotation, at most 8). Surrounding
   * whitespace and blank lines are ignored; the file is re-read when it changes. Env `AUTH_TOKEN_FILE`.
   * @default undefined (no authentication)
   */
  authTokenFile?: string;
  /**
   * PEM certificate chain and key: the hook port serves HTTPS and reloads both when they change.
   * Env `TLS_CERT_FILE` and `TLS_KEY_FILE` (both or neither).
   * @default undefined (plain HTTP)
   */
  tls?: { certFile: string; keyFile: string };
  /**
   * Hook calls served at once; one more is answered 429 with `Retry-After`.
   * Env `MAX_CONCURRENT_HOOKS`. @default 32
   */
  maxConcurrentHooks: number;
  /**
   * Per-request time budget in milliseconds, from arrival to answer. A call past it answers 503
   * (never a late or partial 200). Well under Metacontroller's 10 s default hook timeout.
   * Env `HOOK_TIME_BUDGET_MS`. @default 5000
   */
  hookTimeBudgetMs: number;
  /**
   * Seconds between SIGTERM and process exit at the latest: in-flight hooks get this long to
   * finish. Keep it under the pod's `terminationGracePeriodSeconds`.
   * Env `SHUTDOWN_GRACE_SECONDS`. @default 20
   */
  shutdownGraceSeconds: number;
  /**
   * Seconds to keep serving (readiness already false) before the listener closes, so endpoints
   * controllers and kube-proxy stop routing here first. Use it instead of a preStop sleep.
   * Counted inside the grace period. Env `SHUTDOWN_DELAY_SECONDS`. @default 0
   */
  shutdownDelaySeconds: number;
  /** How often mounted token/TLS files are checked for changes, in ms. @default 2000 */
  fileWatchIntervalMs: number;
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
 * `BODY_LIMIT_BYTES`, shared by every listener's configuration.
 * @throws Error naming the variable when it is not an integer from 1024 to 268435456
 */
export function readBodyLimitBytes(env: Env): number {
  return intFrom(env, "BODY_LIMIT_BYTES", 8 * 1024 * 1024, 1024, 256 * 1024 * 1024);
}

/**
 * `REQUEST_TIMEOUT_MS`, shared by every listener's configuration.
 * @throws Error naming the variable when it is not an integer from 1000 to 600000
 */
export function readRequestTimeoutMs(env: Env): number {
  return intFrom(env, "REQUEST_TIMEOUT_MS", 30_000, 1000, 600_000);
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/**
 * Reads the service configuration.
 * @throws Error naming the variable when a value is out of range or a pair is incomplete
 */
export function loadServiceConfig(env: Env): ServiceConfig {
  const logLevel = env.LOG_LEVEL || "info";
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got ${JSON.stringify(logLevel)}`);
  }
  const certFile = env.TLS_CERT_FILE || undefined;
  const keyFile = env.TLS_KEY_FILE || undefined;
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new Error("TLS_CERT_FILE and TLS_KEY_FILE must be set together");
  }
  const config: ServiceConfig = {
    port: intFrom(env, "PORT", 8080, 0, 65535),
    ...(env.HOST ? { host: env.HOST } : {}),
    adminPort: intFrom(env, "ADMIN_PORT", 9090, 0, 65535),
    bodyLimitBytes: readBodyLimitBytes(env),
    maxInflightBytes: 0,
    requestTimeoutMs: readRequestTimeoutMs(env),
    logLevel,
    maxConcurrentHooks: intFrom(env, "MAX_CONCURRENT_HOOKS", 32, 1, 10_000),
    hookTimeBudgetMs: intFrom(env, "HOOK_TIME_BUDGET_MS", 5000, 10, 60_000),
    shutdownGraceSeconds: intFrom(env, "SHUTDOWN_GRACE_SECONDS", 20, 0, 3600),
    shutdownDelaySeconds: intFrom(env, "SHUTDOWN_DELAY_SECONDS", 0, 0, 3600),
    fileWatchIntervalMs: 2000,
  };
  config.maxInflightBytes = intFrom(env, "MAX_INFLIGHT_BYTES", 2 * config.bodyLimitBytes, 1024, 16 * 1024 * 1024 * 1024);
  if (config.maxInflightBytes < config.bodyLimitBytes) {
    throw new Error(`MAX_INFLIGHT_BYTES (${config.maxInflightBytes}) must be at least BODY_LIMIT_BYTES (${config.bodyLimitBytes}): a body at the limit could never be read`);
  }
  if (config.port !== 0 && config.port === config.adminPort) {
    throw new Error(`PORT and ADMIN_PORT must differ, both are ${config.port}`);
  }
  if (config.shutdownDelaySeconds > config.shutdownGraceSeconds) {
    throw new Error("SHUTDOWN_DELAY_SECONDS must not exceed SHUTDOWN_GRACE_SECONDS");
  }
  if (env.AUTH_TOKEN_FILE) config.authTokenFile = env.AUTH_TOKEN_FILE;
  if (certFile !== undefined && keyFile !== undefined) config.tls = { certFile, keyFile };
  return config;
}
