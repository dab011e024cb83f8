/**
 * The admission listener: HTTPS on its own port, serving only `/validate/<kind>`,
 * `/mutate/<kind>` and `/healthz`.
 *
 * Why a separate port: the apiserver calls webhooks over HTTPS only and verifies the certificate
 * against the webhook configuration's `caBundle` (injected by cert-manager, or given by the
 * user), while Metacontroller calls the sync hooks with Go's default client, which would not trust
 * a private CA. So the hook port stays as it is and admission gets its own TLS listener, which the
 * chart opens to the apiserver without opening the hook routes.
 *
 * @packageDocumentation
 */
import type https from "node:https";
import { createSecureContext } from "node:tls";
import { readFileSync, unwatchFile, watchFile, type Stats } from "node:fs";
import type { AddressInfo } from "node:net";
import type express from "express";
import type { Logger } from "pino";
import type { ConfiguredController } from "../controllers/registry.ts";
import { readBodyLimitBytes, readRequestTimeoutMs, type Env } from "../config.ts";
import { ByteBudget } from "../http/body.ts";
import { closeListener, createListenerApp, createListenerServer } from "../http/listener.ts";
import { createAdmissionRouter } from "./routes.ts";

/** Admission listener settings. */
export interface AdmissionServerConfig {
  /** HTTPS port. Env `ADMISSION_PORT`. @default 9443 */
  port: number;
  /** Address to listen on. Env `HOST`. Unset: Node's default (`::` dual-stack, else `0.0.0.0`). */
  host?: string;
  /** PEM certificate chain (e.g. cert-manager's `tls.crt`). Env `ADMISSION_TLS_CERT_FILE`. */
  certFile: string;
  /** PEM private key (`tls.key`). Env `ADMISSION_TLS_KEY_FILE`. */
  keyFile: string;
  /** JSON body limit in bytes. Env `BODY_LIMIT_BYTES` (the hook port's limit). @default 8388608 */
  bodyLimitBytes: number;
  /** Node's request timeout of the listener, ms. Env `REQUEST_TIMEOUT_MS`. @default 30000 */
  requestTimeoutMs?: number;
  /** How often the certificate files are checked for changes, in ms. @default 2000 */
  fileWatchIntervalMs: number;
}

/**
 * Reads the admission listener settings.
 * @returns `undefined` when neither TLS file is set (no admission listener)
 * @throws Error naming the variable when only one TLS file is set or a number is out of range
 */
export function loadAdmissionConfig(env: Env): AdmissionServerConfig | undefined {
  const certFile = env.ADMISSION_TLS_CERT_FILE || undefined;
  const keyFile = env.ADMISSION_TLS_KEY_FILE || undefined;
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined) {
    throw new Error("ADMISSION_TLS_CERT_FILE and ADMISSION_TLS_KEY_FILE must be set together");
  }
  const port = env.ADMISSION_PORT === undefined || env.ADMISSION_PORT === "" ? 9443 : Number(env.ADMISSION_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`ADMISSION_PORT must be an integer from 0 to 65535, got ${JSON.stringify(env.ADMISSION_PORT)}`);
  }
  return {
    port,
    ...(env.HOST ? { host: env.HOST } : {}),
    certFile,
    keyFile,
    // The same reader as the hook port's: a bad value stops the process instead of being ignored.
    bodyLimitBytes: readBodyLimitBytes(env),
    requestTimeoutMs: readRequestTimeoutMs(env),
    fileWatchIntervalMs: 2000,
  };
}

/**
 * The express app of the admission listener, from the same listener factory as the hook app: the
 * admission routes, `/healthz`, and the same body reading and JSON error envelope (400 malformed
 * JSON, 413 too large, 422 not a review, 429 over the in-flight budget).
 */
export function createAdmissionApp(options: {
  controllers: ConfiguredController[];
  logger: Logger;
  bodyLimitBytes?: number;
  /** Shared with the hook app in `serve`. @default 2 × the body limit for this app alone (as MAX_INFLIGHT_BYTES) */
  bodyBudget?: ByteBudget;
  isDraining?: () => boolean;
}): express.Express {
  const limitBytes = options.bodyLimitBytes ?? 8 * 1024 * 1024;
  return createListenerApp({
    logger: options.logger,
    quietPaths: ["/healthz"],
    ...(options.isDraining ? { isDraining: options.isDraining } : {}),
    body: { limitBytes, budget: options.bodyBudget ?? new ByteBudget(2 * limitBytes) },
    mount(app, readJson) {
      app.get("/healthz", (_req, res) => {
        res.json({ status: "ok" });
      });
      app.use(createAdmissionRouter(options.controllers, readJson));
    },
  });
}

/** A running admission listener. */
export interface AdmissionServer {
  server: https.Server;
  /** e.g. `https://127.0.0.1:9443`. */
  url: string;
  /**
   * Stops watching the certificate and closes the listener gracefully: idle sockets at once,
   * in-flight reviews answered, whatever is open at `deadline` (epoch ms; default now + 20 s) cut.
   */
  close(deadline?: number): Promise<void>;
}

/**
 * Starts the HTTPS admission listener and resolves once the port is bound. The certificate and
 * key are re-read when either file changes (cert-manager renews them in place); a pair that does
 * not load (e.g. mid-rotation) is ignored and the previous one keeps serving.
 * @throws Error when the files cannot be read or the port cannot be bound
 */
export async function startAdmissionServer(
  config: AdmissionServerConfig,
  deps: { controllers: ConfiguredController[]; logger: Logger; bodyBudget?: ByteBudget; isDraining?: () => boolean },
): Promise<AdmissionServer> {
  const app = createAdmissionApp({
    controllers: deps.controllers,
    logger: deps.logger,
    bodyLimitBytes: config.bodyLimitBytes,
    ...(deps.bodyBudget ? { bodyBudget: deps.bodyBudget } : {}),
    ...(deps.isDraining ? { isDraining: deps.isDraining } : {}),
  });
  const read = () => ({ cert: readFileSync(config.certFile), key: readFileSync(config.keyFile) });
  const requestTimeoutMs = config.requestTimeoutMs ?? 30_000;
  const server = createListenerServer(app, { requestTimeoutMs, headersTimeoutMs: requestTimeoutMs }, read()) as https.Server;
  const reload = () => {
    try {
      const pair = read();
      createSecureContext(pair);
      server.setSecureContext(pair);
      deps.logger.info({ certFile: config.certFile }, "reloaded the admission TLS certificate");
    } catch (err) {
      deps.logger.warn({ certFile: config.certFile, error: (err as Error).message }, "kept the previous admission TLS certificate");
    }
  };
  const onChange = (curr: Stats, prev: Stats) => {
    if (curr.mtimeMs !== prev.mtimeMs || curr.ino !== prev.ino || curr.size !== prev.size) reload();
  };
  for (const file of [config.certFile, config.keyFile]) {
    watchFile(file, { interval: config.fileWatchIntervalMs, persistent: false }, onChange);
  }
  const unwatch = () => {
    for (const file of [config.certFile, config.keyFile]) unwatchFile(file, onChange);
  };
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen({ port: config.port, ...(config.host ? { host: config.host } : {}) }, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (err) {
    unwatch();
    throw err;
  }
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `https://${host}:${address.port}`;
  deps.logger.info({ admissionUrl: url }, "metahooks admission webhooks listening");
  return {
    server,
    url,
    close: async (deadline = Date.now() + 20_000) => {
      unwatch();
      await closeListener(server, deadline);
    },
  };
}
