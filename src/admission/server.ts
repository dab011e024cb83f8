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
import https from "node:https";
import { createSecureContext } from "node:tls";
import { readFileSync, unwatchFile, watchFile, type Stats } from "node:fs";
import type { AddressInfo } from "node:net";
import express, { type NextFunction, type Request, type Response } from "express";
import { createRequestLogger } from "../http/logger.ts";
import type { Logger } from "pino";
import { HookError, malformedJson, toErrorBody } from "../errors.ts";
import type { ConfiguredController } from "../controllers/registry.ts";
import type { Env } from "../config.ts";
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
  /** JSON body limit in bytes. Env `BODY_LIMIT_BYTES`. @default 8388608 */
  bodyLimitBytes: number;
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
  const limit = env.BODY_LIMIT_BYTES ? Number(env.BODY_LIMIT_BYTES) : 8 * 1024 * 1024;
  return {
    port,
    ...(env.HOST ? { host: env.HOST } : {}),
    certFile,
    keyFile,
    bodyLimitBytes: Number.isInteger(limit) && limit > 0 ? limit : 8 * 1024 * 1024,
    fileWatchIntervalMs: 2000,
  };
}

/**
 * The express app of the admission listener: the admission routes, `/healthz`, and the same
 * JSON error envelope as the hook app (400 malformed JSON, 413 too large, 422 not a review).
 */
export function createAdmissionApp(options: { controllers: ConfiguredController[]; logger: Logger; bodyLimitBytes?: number }): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use(createRequestLogger(options.logger, ["/healthz"]));
  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  const json = express.json({ limit: options.bodyLimitBytes ?? 8 * 1024 * 1024, type: () => true, strict: true });
  app.use(createAdmissionRouter(options.controllers, json));
  app.use((req: Request, _res: Response, next: NextFunction) => {
    next(new HookError(404, "not_found", `no route for ${req.method} ${req.path}`));
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) return;
    const e = err as { type?: string; message?: string; limit?: number; length?: number };
    let mapped: unknown = err;
    if (e?.type === "entity.parse.failed") mapped = malformedJson(e.message ?? "parse error");
    else if (e?.type === "entity.too.large") mapped = new HookError(413, "too_large", `request body of ${e.length} bytes exceeds the limit of ${e.limit} bytes`);
    else if (e?.type === "encoding.unsupported" || e?.type === "charset.unsupported") mapped = new HookError(415, "unsupported_media_type", e.message ?? "unsupported encoding");
    const { status, body } = toErrorBody(mapped, String(req.id ?? ""));
    if (status >= 500) res.err = err instanceof Error ? err : new Error(String(err));
    res.status(status).json(body);
  });
  return app;
}

/** A running admission listener. */
export interface AdmissionServer {
  server: https.Server;
  /** e.g. `https://127.0.0.1:9443`. */
  url: string;
  /** Stops watching the certificate and closes the listener (idle sockets at once). */
  close(): Promise<void>;
}

/**
 * Starts the HTTPS admission listener and resolves once the port is bound. The certificate and
 * key are re-read when either file changes (cert-manager renews them in place); a pair that does
 * not load (e.g. mid-rotation) is ignored and the previous one keeps serving.
 * @throws Error when the files cannot be read or the port cannot be bound
 */
export async function startAdmissionServer(
  config: AdmissionServerConfig,
  deps: { controllers: ConfiguredController[]; logger: Logger },
): Promise<AdmissionServer> {
  const app = createAdmissionApp({ controllers: deps.controllers, logger: deps.logger, bodyLimitBytes: config.bodyLimitBytes });
  const read = () => ({ cert: readFileSync(config.certFile), key: readFileSync(config.keyFile) });
  const server = https.createServer(read(), app);
  server.keepAliveTimeout = 95_000;
  server.headersTimeout = 96_000;
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
    close: () =>
      new Promise<void>((resolve) => {
        unwatch();
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

/**
 * `metahooks serve`'s admission part: starts the HTTPS admission listener when
 * `ADMISSION_TLS_CERT_FILE` and `ADMISSION_TLS_KEY_FILE` are set (the chart sets them when
 * `admissionWebhooks.enabled`), else does nothing. The process's signal handling ends it with the
 * hook server.
 * @returns the listener, or `undefined` when admission is not configured
 * @throws Error when the settings are invalid, the files cannot be read or the port is taken
 */
export async function startAdmissionFromEnv(env: Env): Promise<AdmissionServer | undefined> {
  const config = loadAdmissionConfig(env);
  if (!config) return undefined;
  const { createLogger } = await import("../http/logger.ts");
  const { configureControllers } = await import("../controllers/registry.ts");
  return startAdmissionServer(config, { controllers: configureControllers(env), logger: createLogger(env.LOG_LEVEL || "info") });
}
