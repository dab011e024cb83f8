/**
 * The admin app on `ADMIN_PORT`: `/metrics` (Prometheus text format), `/healthz` and `/readyz`.
 * Plain HTTP and never authenticated: kubelet probes and Prometheus scrape it, and the
 * NetworkPolicy decides who reaches it. It serves no hook.
 *
 * @packageDocumentation
 */
import express, { type NextFunction, type Request, type Response } from "express";
import type { HookMetrics } from "./metrics.ts";

/** What {@link createAdminApp} needs. */
export interface AdminAppOptions {
  metrics: HookMetrics;
  /** Readiness: `/readyz` answers 503 while this returns false. @default always ready */
  isReady?: () => boolean;
}

/** Builds the admin app (no listening). Unknown routes answer 404 JSON. */
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
    res.status(404).json({ error: "not_found", message: `no route for ${req.method} ${req.path}`, requestId: "" });
  });
  app.use((_err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    res.status(500).json({ error: "internal", message: "internal error", requestId: "" });
  });
  return app;
}
