/**
 * `metahooks serve`: the hook server (HTTP or HTTPS) and the admin server around
 * {@link createApp} and {@link createAdminApp}, with file reloads and graceful shutdown.
 *
 * @packageDocumentation
 */
import http from "node:http";
import https from "node:https";
import { createSecureContext } from "node:tls";
import { readFileSync, unwatchFile, watchFile, type Stats } from "node:fs";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { createApp } from "./http/app.ts";
import { ByteBudget } from "./http/body.ts";
import { closeListener, createListenerServer } from "./http/listener.ts";
import { loadAdmissionConfig, startAdmissionServer, type AdmissionServer } from "./admission/server.ts";
import { loadReceiverFromEnv, startReceiverServer, type ReceiverConfig, type ReceiverServer } from "./receiver/server.ts";
import type { ReceiverKube } from "./receiver/kube.ts";
import { createAdminApp } from "./http/admin.ts";
import { createLogger } from "./http/logger.ts";
import { createMetrics, type HookMetrics } from "./http/metrics.ts";
import { BearerToken, readTokenFile } from "./http/auth.ts";
import { loadServiceConfig, type Env, type ServiceConfig } from "./config.ts";
import { configureControllers, type ConfiguredController } from "./controllers/registry.ts";

/** A running service. */
export interface Service {
  /** The hook server (`https.Server` when TLS is configured). */
  readonly hookServer: http.Server;
  readonly adminServer: http.Server;
  /** e.g. `http://127.0.0.1:8080` (the bound port, also when 0 was asked for). */
  readonly hookUrl: string;
  readonly adminUrl: string;
  readonly metrics: HookMetrics;
  /** The HTTPS admission listener, when `ADMISSION_TLS_*` are configured. */
  readonly admission: AdmissionServer | undefined;
  /** The push receiver, when `RECEIVER_PORT` is set. */
  readonly receiver: ReceiverServer | undefined;
  /** The budget of request-body bytes in flight, shared by the hook and admission listeners. */
  readonly bodyBudget: ByteBudget;
  /** True once {@link Service.close} started. */
  readonly draining: boolean;
  /**
   * Graceful shutdown: readiness turns false, the service keeps serving for
   * `shutdownDelaySeconds` (answers carry `Connection: close`), then the hook listener closes,
   * idle keep-alive sockets are closed at once and busy ones after their answer; whatever is still
   * open when `shutdownGraceSeconds` have passed is cut. Resolves when both servers are closed.
   * Calling it again returns the same promise.
   */
  close(): Promise<void>;
}

/** Optional collaborators of {@link startService} (tests inject them). */
export interface ServiceDeps {
  logger?: Logger;
  controllers?: ConfiguredController[];
  clock?: () => Date;
  /** The admission listener's settings (from {@link loadAdmissionConfig}). @default none */
  admission?: ReturnType<typeof loadAdmissionConfig>;
  /** The push receiver's settings and Kubernetes client (from `loadReceiverFromEnv`). @default none */
  receiver?: { config: ReceiverConfig; kube: ReceiverKube };
}

/**
 * Starts the hook and admin servers and resolves once both ports are bound.
 * @param config - from {@link loadServiceConfig}
 * @throws Error when a port cannot be bound or a token/TLS file cannot be read (nothing is left
 *   listening)
 */
export async function startService(config: ServiceConfig, deps: ServiceDeps = {}): Promise<Service> {
  const logger = deps.logger ?? createLogger(config.logLevel);
  const metrics = createMetrics(true);
  const watched: string[] = [];
  const watch = (path: string, onChange: () => void) => {
    watched.push(path);
    // stat polling follows symlinks, which is how Kubernetes swaps a mounted Secret's files.
    watchFile(path, { interval: config.fileWatchIntervalMs, persistent: false }, (curr: Stats, prev: Stats) => {
      if (curr.mtimeMs !== prev.mtimeMs || curr.ino !== prev.ino || curr.size !== prev.size) onChange();
    });
  };

  const unwatchAll = () => {
    for (const path of watched) unwatchFile(path);
  };

  let authenticate: ((header: string | undefined) => boolean) | undefined;
  if (config.authTokenFile) {
    const path = config.authTokenFile;
    const token = new BearerToken(readTokenFile(path));
    authenticate = (header) => token.matches(header);
    watch(path, () => {
      try {
        token.replace(readTokenFile(path));
        metrics.fileReloads.inc({ file: "auth_token", result: "success" });
        logger.info({ file: path }, "reloaded the auth token");
      } catch (err) {
        // Keep the old token: a half-written file must not lock Metacontroller out.
        metrics.fileReloads.inc({ file: "auth_token", result: "failure" });
        logger.warn({ file: path, error: (err as Error).message }, "kept the previous auth token");
      }
    });
  }

  let draining = false;
  const controllers = deps.controllers ?? configureControllers(process.env);
  const bodyBudget = new ByteBudget(config.maxInflightBytes);
  // The admission listener starts first: if it cannot (port taken, key not matching the
  // certificate), nothing else listens and the process exits before it reports Ready. A pod that
  // is Ready without it would make a failurePolicy=Fail webhook reject every write of the kinds.
  let admission: AdmissionServer | undefined;
  if (deps.admission) {
    try {
      admission = await startAdmissionServer(deps.admission, { controllers, logger, bodyBudget, isDraining: () => draining });
    } catch (err) {
      unwatchAll();
      throw err;
    }
  }
  // The receiver too: a pod Ready without it would lose pushes.
  let receiver: ReceiverServer | undefined;
  if (deps.receiver) {
    try {
      receiver = await startReceiverServer(deps.receiver.config, {
        kube: deps.receiver.kube,
        logger,
        metrics,
        bodyBudget,
        isDraining: () => draining,
        requestTimeoutMs: config.requestTimeoutMs,
        ...(deps.clock ? { clock: deps.clock } : {}),
      });
    } catch (err) {
      unwatchAll();
      await admission?.close(Date.now());
      throw err;
    }
  }
  const app = createApp({
    controllers,
    logger,
    bodyLimitBytes: config.bodyLimitBytes,
    bodyBudget,
    ...(deps.clock ? { clock: deps.clock } : {}),
    isReady: () => !draining,
    isDraining: () => draining,
    metrics,
    ...(authenticate ? { authenticate } : {}),
    maxConcurrentHooks: config.maxConcurrentHooks,
    hookTimeBudgetMs: config.hookTimeBudgetMs,
  });

  const timeouts = { requestTimeoutMs: config.requestTimeoutMs, headersTimeoutMs: config.requestTimeoutMs };
  let hookServer: http.Server;
  if (config.tls) {
    const { certFile, keyFile } = config.tls;
    hookServer = createListenerServer(app, timeouts, { cert: readFileSync(certFile), key: readFileSync(keyFile) });
    const server = hookServer as https.Server;
    const reload = () => {
      try {
        const pair = { cert: readFileSync(certFile), key: readFileSync(keyFile) };
        // Validate first: mid-rotation the cert and key may not match yet; keep serving the old pair.
        createSecureContext(pair);
        server.setSecureContext(pair);
        metrics.fileReloads.inc({ file: "tls", result: "success" });
        logger.info({ certFile, keyFile }, "reloaded the TLS certificate");
      } catch (err) {
        metrics.fileReloads.inc({ file: "tls", result: "failure" });
        logger.warn({ certFile, keyFile, error: (err as Error).message }, "kept the previous TLS certificate");
      }
    };
    watch(certFile, reload);
    watch(keyFile, reload);
  } else {
    hookServer = createListenerServer(app, timeouts);
  }

  const adminServer = http.createServer(createAdminApp({ metrics, isReady: () => !draining, logger }));

  try {
    await listen(hookServer, config.port, config.host);
    await listen(adminServer, config.adminPort, config.host);
  } catch (err) {
    unwatchAll();
    hookServer.close();
    adminServer.close();
    await admission?.close(Date.now());
    await receiver?.close(Date.now());
    throw err;
  }

  const scheme = config.tls ? "https" : "http";
  const hookUrl = urlOf(scheme, hookServer);
  const adminUrl = urlOf("http", adminServer);
  // The URLs are where this machine reaches the listeners; `listening` says what they are bound
  // to (every interface unless HOST is set), which the URLs alone would hide.
  logger.info({ hookUrl, adminUrl, listening: [boundAddress(hookServer), boundAddress(adminServer)], tls: Boolean(config.tls), auth: Boolean(authenticate) }, "metahooks listening");

  let closing: Promise<void> | undefined;
  const service: Service = {
    hookServer,
    adminServer,
    hookUrl,
    adminUrl,
    metrics,
    admission,
    receiver,
    bodyBudget,
    get draining() {
      return draining;
    },
    close() {
      closing ??= shutdown();
      return closing;
    },
  };

  async function shutdown(): Promise<void> {
    draining = true;
    metrics.draining.set(1);
    const deadline = Date.now() + config.shutdownGraceSeconds * 1000;
    logger.info({ graceSeconds: config.shutdownGraceSeconds, delaySeconds: config.shutdownDelaySeconds }, "draining");
    unwatchAll();
    if (config.shutdownDelaySeconds > 0) await sleep(config.shutdownDelaySeconds * 1000);

    // Every body-reading listener drains the same way (see closeListener); answers carry
    // `Connection: close` while draining.
    const cut = await Promise.all([
      closeListener(hookServer, deadline),
      admission ? admission.close(deadline).then(() => false) : false,
      receiver ? receiver.close(deadline).then(() => false) : false,
    ]);
    if (cut.some(Boolean)) logger.warn("grace period over: closed the remaining connections");
    await new Promise<void>((resolve) => {
      adminServer.close(() => resolve());
      adminServer.closeAllConnections();
    });
    logger.info("stopped");
  }

  return service;
}

/**
 * Starts the service from the environment and wires SIGTERM/SIGINT to its graceful shutdown; the
 * process exits 0 once it is closed. A second signal exits at once with 1.
 * @param env - the process environment (see `metahooks --help`)
 */
export async function serve(env: Env): Promise<Service> {
  const config = loadServiceConfig(env);
  const logger = createLogger(config.logLevel);
  // The receiver is the only listener that uses the Kubernetes API: a bad kubeconfig stops start-up
  // instead of failing every delivery. Its client is loaded only when RECEIVER_PORT is set.
  const receiver = await loadReceiverFromEnv(env);
  const service = await startService(config, { logger, controllers: configureControllers(env), admission: loadAdmissionConfig(env), ...(receiver ? { receiver } : {}) });
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      logger.warn({ signal }, "second signal: exiting now");
      process.exit(1);
    }
    signalled = true;
    logger.info({ signal }, "shutting down");
    // Backstop in case something keeps close() from resolving; unref'd so it never delays exit.
    setTimeout(() => process.exit(1), (config.shutdownGraceSeconds + 5) * 1000).unref();
    void service.close().then(() => {
      logger.flush();
      process.exit(0);
    });
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  return service;
}

function listen(server: http.Server, port: number, host: string | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once("error", onError);
    server.listen({ port, ...(host ? { host } : {}) }, () => {
      server.off("error", onError);
      resolve();
    });
  });
}

function urlOf(scheme: string, server: http.Server): string {
  const { address, port } = server.address() as AddressInfo;
  // Bound to every interface: this machine reaches it on loopback.
  return `${scheme}://${hostPort(address === "0.0.0.0" || address === "::" ? "127.0.0.1" : address, port)}`;
}

/** The listener's bound address and port, e.g. `[::]:8080` (every interface) or `127.0.0.1:8080`. */
function boundAddress(server: http.Server): string {
  const { address, port } = server.address() as AddressInfo;
  return hostPort(address, port);
}

/** `host:port`, an IPv6 address in brackets. */
function hostPort(address: string, port: number): string {
  return `${address.includes(":") ? `[${address}]` : address}:${port}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
