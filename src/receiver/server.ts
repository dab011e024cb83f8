/**
 * The push receiver listener of `metahooks serve`: plain HTTP on its own port (`RECEIVER_PORT`),
 * off unless that variable is set. Put TLS in front of it (the chart's optional Ingress): the
 * signature proves who sent a delivery, not that nobody else read it.
 *
 * Built on the shared listener factory (request logger, error mapper, timeouts, graceful close) and
 * started by `startService` with the hook and admission listeners: readiness, `Connection: close`
 * while draining, and the drain on SIGTERM are theirs, its metrics are on the admin port. It is the
 * only listener that faces the internet, and the only part of metahooks that talks to the
 * Kubernetes API.
 *
 * @packageDocumentation
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import type { Env } from "../config.ts";
import { DEFAULT_RECEIVER_BODY_LIMIT, DEFAULT_RECEIVER_MAX_IN_FLIGHT, createReceiverApp } from "./app.ts";
import type { ReceiverKube } from "./kube.ts";
import { closeListener, createListenerServer } from "../http/listener.ts";
import type { ByteBudget } from "../http/body.ts";
import type { HookMetrics } from "../http/metrics.ts";

/** Receiver settings. */
export interface ReceiverConfig {
  /** Env `RECEIVER_PORT`. */
  port: number;
  /** Env `HOST`. */
  host?: string;
  /** Env `RECEIVER_BODY_LIMIT_BYTES`. @default 1048576 */
  bodyLimitBytes: number;
  /** Env `RECEIVER_MAX_IN_FLIGHT`. @default 16 */
  maxInFlight: number;
}

function intFrom(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  return n;
}

/**
 * Reads the receiver settings.
 * @returns undefined when `RECEIVER_PORT` is unset or empty (no receiver)
 * @throws Error naming the variable when a value is out of range
 */
export function loadReceiverConfig(env: Env): ReceiverConfig | undefined {
  if (env.RECEIVER_PORT === undefined || env.RECEIVER_PORT === "") return undefined;
  return {
    port: intFrom(env, "RECEIVER_PORT", 0, 0, 65535),
    ...(env.HOST ? { host: env.HOST } : {}),
    bodyLimitBytes: intFrom(env, "RECEIVER_BODY_LIMIT_BYTES", DEFAULT_RECEIVER_BODY_LIMIT, 1024, 64 * 1024 * 1024),
    maxInFlight: intFrom(env, "RECEIVER_MAX_IN_FLIGHT", DEFAULT_RECEIVER_MAX_IN_FLIGHT, 1, 1024),
  };
}

/** A running receiver. */
export interface ReceiverServer {
  server: http.Server;
  /** e.g. `http://127.0.0.1:8090`. */
  url: string;
  /** Closes gracefully; what is still open at `deadline` (epoch ms, default in 5 s) is cut. */
  close(deadline?: number): Promise<void>;
}

/** Longest a delivery may take to arrive, ms: providers send the whole body at once. */
const RECEIVER_REQUEST_TIMEOUT_MS = 15_000;

/** Collaborators of {@link startReceiverServer}; `startService` passes its own. */
export interface ReceiverDeps {
  kube: ReceiverKube;
  logger: Logger;
  clock?: () => Date;
  /** The service's metrics (deliveries and patched CIBuilds are counted there). */
  metrics?: HookMetrics;
  /** While true every answer carries `Connection: close` (the service is draining). */
  isDraining?: () => boolean;
  /** The process's request timeout (`REQUEST_TIMEOUT_MS`); the receiver uses at most 15 s. */
  requestTimeoutMs?: number;
  /** The process's budget of body bytes in flight. */
  bodyBudget?: ByteBudget;
}

/** Starts the receiver and resolves once the port is bound. */
export async function startReceiverServer(config: ReceiverConfig, deps: ReceiverDeps): Promise<ReceiverServer> {
  const app = createReceiverApp({
    kube: deps.kube,
    logger: deps.logger,
    bodyLimitBytes: config.bodyLimitBytes,
    maxInFlight: config.maxInFlight,
    ...(deps.clock ? { clock: deps.clock } : {}),
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
    ...(deps.isDraining ? { isDraining: deps.isDraining } : {}),
    ...(deps.bodyBudget ? { bodyBudget: deps.bodyBudget } : {}),
  });
  // A slow sender must not hold a socket for long: providers send the whole body at once.
  const requestTimeoutMs = Math.min(RECEIVER_REQUEST_TIMEOUT_MS, deps.requestTimeoutMs ?? RECEIVER_REQUEST_TIMEOUT_MS);
  const server = createListenerServer(app, { requestTimeoutMs, headersTimeoutMs: Math.min(10_000, requestTimeoutMs) });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port: config.port, ...(config.host ? { host: config.host } : {}) }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  deps.logger.info({ receiverUrl: url }, "metahooks push receiver listening");
  return {
    server,
    url,
    close: async (deadline = Date.now() + 5_000) => {
      await closeListener(server, deadline);
    },
  };
}

/**
 * `metahooks serve`'s receiver settings and Kubernetes client, when `RECEIVER_PORT` is set: the
 * in-cluster (or `$KUBECONFIG`) credentials. Only then is `@kubernetes/client-node` loaded.
 * @returns undefined when the receiver is off
 * @throws Error when the settings are invalid or no kubeconfig loads
 */
export async function loadReceiverFromEnv(env: Env): Promise<{ config: ReceiverConfig; kube: ReceiverKube } | undefined> {
  const config = loadReceiverConfig(env);
  if (!config) return undefined;
  const { loadReceiverKube } = await import("./kube.ts");
  return { config, kube: await loadReceiverKube() };
}
