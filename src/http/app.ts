/**
 * The express app serving the hooks: parse JSON → run the hook → validate → answer.
 * It only parses, validates, logs and measures; every decision is in src/controllers.
 *
 * @packageDocumentation
 */
import { randomUUID } from "node:crypto";
import express, { type NextFunction, type Request, type Response } from "express";
import { pinoHttp } from "pino-http";
import type { Logger } from "pino";
import { HookError, malformedJson, toErrorBody } from "../errors.ts";
import { formatDecisions, runHook, type HookName } from "../metacontroller/run-hook.ts";
import type { ConfiguredController } from "../controllers/registry.ts";

/** What {@link createApp} needs. */
export interface AppOptions {
  /** The controller kinds to serve, with their options. */
  controllers: ConfiguredController[];
  logger: Logger;
  /** JSON body limit in bytes. @default 8 MiB */
  bodyLimitBytes?: number;
  /** The clock handed to hooks. @default the real clock */
  clock?: () => Date;
  /** Readiness: `/readyz` answers 503 while this returns false. @default always ready */
  isReady?: () => boolean;
}

/** Fields of the one log line per hook call, filled in by the route handler. */
interface HookLogFields {
  controller: string;
  hook: HookName;
  parent?: string;
  uid?: string;
  generation?: number;
  finalizing?: boolean;
  decision?: string;
  children?: number;
}

/**
 * Builds the express app (no listening; supertest and `serve` both use it).
 *
 * Routes: `POST /sync/<kind>`, `POST /finalize/<kind>`, `POST /customize/<kind>` (where the kind
 * has one), `GET /healthz`, `GET /readyz`. Every non-200 answer is `{error, message, requestId}`.
 */
export function createApp(options: AppOptions): express.Express {
  const clock = options.clock ?? (() => new Date());
  const isReady = options.isReady ?? (() => true);
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);

  app.use(
    pinoHttp({
      logger: options.logger,
      genReqId: (req, res) => {
        const incoming = req.headers["x-request-id"];
        const id = typeof incoming === "string" && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
        res.setHeader("X-Request-Id", id);
        return id;
      },
      autoLogging: { ignore: (req) => req.method === "GET" && (req.url === "/healthz" || req.url === "/readyz") },
      customAttributeKeys: { responseTime: "durationMs" },
      // Called when the request starts (binds the id) and again when it ends (adds the hook
      // fields); returning the id only once keeps it from appearing twice in the line.
      customProps: (req, res) => ((res as Response).locals?.hookLog as HookLogFields | undefined) ?? { requestId: req.id },
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? "error" : res.statusCode >= 400 ? "warn" : "info"),
      serializers: {
        req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      customSuccessMessage: (req, res) => `${req.method} ${req.url} ${res.statusCode}`,
      customErrorMessage: (req, res) => `${req.method} ${req.url} ${res.statusCode}`,
    }),
  );

  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.get("/readyz", (_req, res) => {
    if (isReady()) res.json({ status: "ready" });
    else res.status(503).json({ status: "draining" });
  });

  const json = express.json({ limit: options.bodyLimitBytes ?? 8 * 1024 * 1024, type: () => true, strict: true });

  for (const { def, options: kindOptions } of options.controllers) {
    const hooks: HookName[] = def.customize ? ["sync", "finalize", "customize"] : ["sync", "finalize"];
    for (const hook of hooks) {
      app.post(`/${hook}/${def.name}`, json, (req: Request, res: Response) => {
        const log: HookLogFields = { controller: def.name, hook };
        res.locals.hookLog = log;
        // body-parser turns an empty body into `{}`; an empty request is malformed, not a 422.
        if (req.body === undefined || req.headers["content-length"] === "0") throw malformedJson("empty body");
        const result = runHook(def, hook, req.body, clock(), kindOptions);
        Object.assign(log, result.summary, { decision: formatDecisions(result.decisions) });
        if ("children" in result.response) log.children = result.response.children.length;
        res.status(200).json(result.response);
      });
    }
  }

  app.use((req: Request, _res: Response, next: NextFunction) => {
    next(new HookError(404, "not_found", `no route for ${req.method} ${req.path}`));
  });

  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const mapped = mapParserError(err);
    const { status, body } = toErrorBody(mapped, String(req.id ?? ""));
    if (status >= 500) res.err = err instanceof Error ? err : new Error(String(err));
    res.status(status).json(body);
  });

  return app;
}

/** body-parser errors carry `type`; map them to our codes (400 malformed, 413 too large). */
function mapParserError(err: unknown): unknown {
  const e = err as { type?: string; status?: number; message?: string; limit?: number; length?: number };
  if (e?.type === "entity.parse.failed") return malformedJson(e.message ?? "parse error");
  if (e?.type === "entity.too.large") {
    return new HookError(413, "too_large", `request body of ${e.length} bytes exceeds the limit of ${e.limit} bytes (BODY_LIMIT_BYTES)`);
  }
  if (e?.type === "encoding.unsupported" || e?.type === "charset.unsupported") {
    return new HookError(415, "unsupported_media_type", e.message ?? "unsupported encoding");
  }
  if (e?.type === "request.aborted") return new HookError(400, "aborted", "request aborted by the client");
  return err;
}
