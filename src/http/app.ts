/**
 * The express app serving the hooks: parse JSON → run the hook → validate → answer.
 * It only parses, validates, logs and measures; every decision is in src/controllers.
 *
 * @packageDocumentation
 */
import express, { type NextFunction, type Request, type Response } from "express";
import { createRequestLogger } from "./logger.ts";
import type { Logger } from "pino";
import { HookError, malformedJson, toErrorBody } from "../errors.ts";
import { formatDecisions, runHook, type HookName, type RunResult } from "../metacontroller/run-hook.ts";
import type { ConfiguredController } from "../controllers/registry.ts";
import type { ControllerDefinition } from "../controllers/types.ts";
import type { KubeObject } from "../metacontroller/contract.ts";
import { createMetrics, outcomeOf, recordDecisions, recordInvalidParent, type HookMetrics, type HookOutcome } from "./metrics.ts";
import { createAdmissionRouter } from "../admission/routes.ts";

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
  /**
   * Draining for shutdown: while true every answer carries `Connection: close`, so keep-alive
   * clients reconnect (to another replica) instead of reusing this socket. Hook calls that still
   * arrive are served: they are valid work and the process is healthy. @default never
   */
  isDraining?: () => boolean;
  /** Metrics to update. @default a fresh set (reachable as `app.locals.metrics`) */
  metrics?: HookMetrics;
  /**
   * Authentication of hook calls: receives the `Authorization` header, true lets the call in;
   * false answers 401. Health routes stay open. @default every call is let in
   */
  authenticate?: (authorizationHeader: string | undefined) => boolean;
  /** Hook calls served at once; beyond it 429 with `Retry-After: 1`. @default 32 */
  maxConcurrentHooks?: number;
  /** Milliseconds from arrival to answer; past it 503 `timeout`, never a late 200. @default 5000 */
  hookTimeBudgetMs?: number;
}

/** Seconds Metacontroller waits after a 429 before it retries the parent (`Retry-After`). */
export const RETRY_AFTER_SECONDS = 1;

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
  const isDraining = options.isDraining ?? (() => false);
  const metrics = options.metrics ?? createMetrics();
  const maxConcurrent = options.maxConcurrentHooks ?? 32;
  const budgetMs = options.hookTimeBudgetMs ?? 5000;
  let inFlight = 0;
  const logsAnswers = options.logger.isLevelEnabled("info");
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.locals.metrics = metrics;

  // Draining can start while a call is in flight, so the header is decided when the answer is
  // written, not when the request arrived.
  app.use((_req: Request, res: Response, next: NextFunction) => {
    const writeHead = res.writeHead;
    res.writeHead = function (this: Response, ...args: Parameters<typeof writeHead>) {
      if (isDraining() && !this.headersSent) this.setHeader("Connection", "close");
      return writeHead.apply(this, args);
    } as typeof writeHead;
    next();
  });

  app.use(createRequestLogger(options.logger, ["/healthz", "/readyz"]));

  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.get("/readyz", (_req, res) => {
    if (isReady()) res.json({ status: "ready" });
    else res.status(503).json({ status: "draining" });
  });

  // strict: false so that valid JSON which is not an object (`null`, `5`) reaches the envelope
  // check and gets 422 "not a hook request", not 400 "malformed JSON".
  const json = express.json({ limit: options.bodyLimitBytes ?? 8 * 1024 * 1024, type: () => true, strict: false });

  /**
   * First on every hook route: measures the call, counts it when the answer is done (or the
   * client went away), and arms the time budget. Runs before authentication so 401s and 429s are
   * counted too.
   */
  const track = (controller: string, hook: HookName) => (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.locals.startedNs = started;
    res.locals.hookLog = { controller, hook } satisfies HookLogFields;
    const length = Number(req.headers["content-length"]);
    if (Number.isFinite(length) && length >= 0) metrics.requestSize.observe({ controller, hook }, length);
    // A hook is synchronous, so this timer only fires while the body is still arriving (a slow or
    // stalled client); a slow hook is caught after it returns (see the route handler).
    const timer = setTimeout(() => {
      if (res.headersSent) return;
      res.locals.outcome = "timeout";
      res.setHeader("Connection", "close");
      sendError(req, res, budgetExceeded(budgetMs));
    }, budgetMs);
    res.once("close", () => {
      clearTimeout(timer);
      if (res.locals.admitted) {
        inFlight--;
        metrics.inFlight.set(inFlight);
      }
      const outcome: HookOutcome = !res.writableFinished ? "aborted" : (res.locals.outcome ?? outcomeOf(res.statusCode));
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.requests.inc({ controller, hook, code: res.writableFinished ? String(res.statusCode) : "0", outcome });
      metrics.duration.observe({ controller, hook, outcome }, seconds);
    });
    next();
  };

  const authenticate = options.authenticate;
  const guard = (_req: Request, res: Response, next: NextFunction) => {
    if (authenticate && !authenticate(_req.headers.authorization)) {
      res.setHeader("WWW-Authenticate", 'Bearer realm="metahooks"');
      throw new HookError(401, "unauthorized", "missing or invalid bearer token");
    }
    if (inFlight >= maxConcurrent) {
      // Without Retry-After Metacontroller requeues at once, which would turn overload into a
      // hot loop; with it the parent is retried after that many seconds.
      res.setHeader("Retry-After", String(RETRY_AFTER_SECONDS));
      throw new HookError(429, "overloaded", `more than ${maxConcurrent} hook calls at once (MAX_CONCURRENT_HOOKS); retry after ${RETRY_AFTER_SECONDS} s`);
    }
    inFlight++;
    res.locals.admitted = true;
    metrics.inFlight.set(inFlight);
    next();
  };

  for (const { def, options: kindOptions } of options.controllers) {
    const hooks: HookName[] = def.customize ? ["sync", "finalize", "customize"] : ["sync", "finalize"];
    for (const hook of hooks) {
      app.post(`/${hook}/${def.name}`, track(def.name, hook), guard, json, (req: Request, res: Response) => {
        // The budget timer answered while the body was arriving: nothing more to say.
        if (res.headersSent) return;
        const log = res.locals.hookLog as HookLogFields;
        // body-parser turns an empty body into `{}`; an empty request is malformed, not a 422.
        if (req.body === undefined || req.headers["content-length"] === "0") throw malformedJson("empty body");
        const result = runHook(def, hook, req.body, clock(), kindOptions);
        Object.assign(log, result.summary);
        // A 200 is logged at info: below that level the decisions string would never be printed.
        if (logsAnswers) log.decision = formatDecisions(result.decisions);
        const elapsedMs = Number(process.hrtime.bigint() - (res.locals.startedNs as bigint)) / 1e6;
        if (elapsedMs > budgetMs) {
          log.decision ??= formatDecisions(result.decisions); // the 503 is logged at error
          // Metacontroller may already have given up; a 503 makes it retry instead of applying an
          // answer computed too late. The decisions are not counted: nothing was applied.
          res.locals.outcome = "timeout";
          throw budgetExceeded(budgetMs);
        }
        recordDecisions(metrics, def.name, result.decisions);
        const invalid = result.summary.finalizing ? undefined : invalidSpecReason(def, hook, req.body, result);
        if (invalid !== undefined) recordInvalidParent(metrics, def.name, invalid);
        if ("children" in result.response) {
          log.children = result.response.children.length;
          metrics.childrenDesired.observe({ controller: def.name, hook }, result.response.children.length);
        }
        res.status(200).json(result.response);
      });
    }
  }

  // Admission webhooks (`/validate/<kind>`, `/mutate/<kind>`) for kinds with admission support.
  app.use(createAdmissionRouter(options.controllers, json, options.authenticate));

  app.use((req: Request, _res: Response, next: NextFunction) => {
    next(new HookError(404, "not_found", `no route for ${req.method} ${req.path}`));
  });

  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    // A late error (e.g. the body stream failing after the budget timer answered) has no one to
    // tell; the answer already went out.
    if (res.headersSent) return;
    sendError(req, res, err);
  });

  return app;
}

/**
 * The reason a sync call's parent spec is invalid, for `metahooks_parents_invalid_total`: the first
 * problem of the kind's admission validation (the same rules its sync hook applies, so the reason
 * is the one in the parent's condition), or, for kinds without admission support, the reason of an
 * `invalid` decision. Undefined when the spec is valid or the call is not a plain sync.
 *
 * An invalid spec always answers with a `False` condition (project rule), so validation only runs
 * when the answer has one: the common, healthy call pays nothing.
 */
function invalidSpecReason(def: ControllerDefinition<any>, hook: HookName, body: unknown, result: RunResult): string | undefined {
  if (hook !== "sync") return undefined;
  if (def.admission) {
    const conditions = "status" in result.response ? (result.response.status as { conditions?: unknown }).conditions : undefined;
    if (!Array.isArray(conditions) || !conditions.some((c) => (c as { status?: unknown } | null)?.status === "False")) return undefined;
    try {
      const parent = (body as { parent: KubeObject }).parent;
      return def.admission.validate(parent)[0]?.reason;
    } catch {
      return undefined; // a validator failing on odd input must not fail the answer
    }
  }
  const invalid = result.decisions.find((d) => d.action === "invalid");
  return invalid ? (invalid.reason ?? "") : undefined;
}

function budgetExceeded(budgetMs: number): HookError {
  return new HookError(503, "timeout", `hook call exceeded its time budget of ${budgetMs} ms (HOOK_TIME_BUDGET_MS)`);
}

function sendError(req: Request, res: Response, err: unknown): void {
  const mapped = mapParserError(err);
  const { status, body } = toErrorBody(mapped, String(req.id ?? ""));
  if (status >= 500) res.err = err instanceof Error ? err : new Error(String(err));
  res.status(status).json(body);
}

/** body-parser errors carry `type`; map them to our codes (400 malformed, 413 too large). */
function mapParserError(err: unknown): unknown {
  const e = err as { type?: string; status?: number; message?: string; limit?: number; length?: number };
  if (e?.type === "entity.parse.failed") return malformedJson(withoutExcerpt(e.message ?? "parse error"));
  if (e?.type === "entity.too.large") {
    return new HookError(413, "too_large", `request body of ${e.length} bytes exceeds the limit of ${e.limit} bytes (BODY_LIMIT_BYTES)`);
  }
  if (e?.type === "encoding.unsupported" || e?.type === "charset.unsupported") {
    return new HookError(415, "unsupported_media_type", e.message ?? "unsupported encoding");
  }
  if (e?.type === "request.aborted") return new HookError(400, "aborted", "request aborted by the client");
  return err;
}

/**
 * V8's JSON.parse messages quote a piece of the body (`Unexpected token 'n', "{nope" is not valid
 * JSON`); the body can hold credentials' neighbours and error bodies end up in Kubernetes events,
 * so the quote is dropped and only the position remains.
 */
function withoutExcerpt(message: string): string {
  return message.replace(/, ".*" is not valid JSON$/s, "").slice(0, 200);
}
