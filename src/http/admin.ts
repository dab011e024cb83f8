/**
 * The admin app on `ADMIN_PORT`: `/metrics` (Prometheus text format), `/healthz` and `/readyz`.
 * Plain HTTP and never authenticated: kubelet probes and Prometheus scrape it, and the
 * NetworkPolicy decides who reaches it. It serves no hook.
 *
 * @packageDocumentation
 */
import express, { type NextFunction, type Request, type Response } from "express";
import type { Logger } from "pino";
import { requestIdFor } from "./logger.ts";
import type { HookMetrics } from "./metrics.ts";

/** What {@link createAdminApp} needs. */
export interface AdminAppOptions {
  metrics: HookMetrics;
  /** Readiness: `/readyz` answers 503 while this returns false. @default always ready */
  isReady?: () => boolean;
  /**
   * Where a failed admin request (a 500, e.g. a metrics collector that threw) is logged, with its
   * request id. Probes and scrapes that succeed, and 404s, are not logged (they come every few
   * seconds). @default not logged
   */
  logger?: Logger;
}

/**
 * Builds the admin app (no listening). Unknown routes answer 404 and failures 500, both as the
 * hook app's error body `{error, message, requestId}` with the id also in `X-Request-Id` (the
 * caller's valid `X-Request-Id`, else a fresh UUID; see {@link requestIdFor}).
 */
export function createAdminApp(options: AdminAppOptions): express.Express {
  const isReady = options.isReady ?? (() => true);
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.get("/readyz", (_req, res) => {
    if (isReady()) res.json({ status: "ready" });
    else res.status(503).json({ status: "draining" });
  });
  app.get("/metrics", async (_req, res) => {
    const text = await options.metrics.registry.metrics();
    res.setHeader("Content-Type", options.metrics.registry.contentType);
    res.send(text);
  });
  app.use((req: Request, res: Response, _next: NextFunction) => {
    const requestId = requestIdFor(req);
    res.setHeader("X-Request-Id", requestId);
    res.status(404).json({ error: "not_found", message: `no route for ${req.method} ${req.path}`, requestId });
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const requestId = requestIdFor(req);
    // The detail goes to the log only: the admin port is unauthenticated.
    options.logger?.error({ req: { method: req.method, url: req.url }, requestId, err }, `${req.method} ${req.url} 500`);
    res.setHeader("X-Request-Id", requestId);
    res.status(500).json({ error: "internal", message: "internal error; see the hook service logs", requestId });
  });
  return app;
}
