/**
 * The express app serving the hooks: parse JSON → run the hook → validate → answer.
 * It only parses, validates, logs and measures; every decision is in src/controllers.
 *
 * @packageDocumentation
 */
import type express from "express";
import type { Request, Response } from "express";
import type { Logger } from "pino";
import { HookError, malformedJson } from "../errors.ts";
import { formatDecisions, runHook, type HookName } from "../metacontroller/run-hook.ts";
import type { ConfiguredController } from "../controllers/registry.ts";
import { createMetrics, outcomeOf, recordDecisions, recordInvalidParent, type HookMetrics, type HookOutcome } from "./metrics.ts";
import { createAdmissionRouter } from "../admission/routes.ts";
import { ByteBudget, RETRY_AFTER_SECONDS } from "./body.ts";
import { createListenerApp, postOnly, sendError, sendJson, type BodyReader } from "./listener.ts";

export { RETRY_AFTER_SECONDS };

/** Default `BODY_LIMIT_BYTES`: 8 MiB. */
export const DEFAULT_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

/** What {@link createApp} needs. */
export interface AppOptions {
  /** The controller kinds to serve, with their options. */
  controllers: ConfiguredController[];
  logger: Logger;
  /** JSON body limit in bytes, on the wire and after decompression. @default 8 MiB */
  bodyLimitBytes?: number;
  /**
   * Budget of request-body bytes in flight, shared with the admission listener; past it 429 with
   * `Retry-After`. @default a budget of 2 × `bodyLimitBytes` for this app alone (as MAX_INFLIGHT_BYTES)
   */
  bodyBudget?: ByteBudget;
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
  const metrics = options.metrics ?? createMetrics();
  const maxConcurrent = options.maxConcurrentHooks ?? 32;
  const budgetMs = options.hookTimeBudgetMs ?? 5000;
  const bodyLimitBytes = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const budget = options.bodyBudget ?? new ByteBudget(2 * bodyLimitBytes);
  let inFlight = 0;
  const logsAnswers = options.logger.isLevelEnabled("info");

  /**
   * Starts measuring a hook call: counts it when the answer is done (or the client went away),
   * frees its slot, and arms the time budget. Runs before authentication, so 401s and 429s are
   * counted too.
   * @returns when the call started (`process.hrtime.bigint()`, ns)
   */
  const trackCall = (req: Request, res: Response, controller: string, hook: HookName): bigint => {
    const started = process.hrtime.bigint();
    res.locals.hookLog = { controller, hook } satisfies HookLogFields;
    const length = Number(req.headers["content-length"]);
    if (Number.isFinite(length) && length >= 0) metrics.requestSize.observe({ controller, hook }, length);
    // A hook is synchronous, so this timer only fires while the body is still arriving (a slow or
    // stalled client); a slow hook is caught after it returns (see serveHook).
    const timer = setTimeout(() => {
      if (res.headersSent) return;
      // The body is still arriving: the client's slowness, not a failure of ours. It is logged at
      // warn and counted apart (`client_timeout`), so an alert on hook timeouts does not fire for
      // a slow or congested client; the answer stays the 503 Metacontroller retries.
      res.locals.outcome = "client_timeout";
      res.locals.clientTimedOut = true;
      res.setHeader("Connection", "close");
      sendError(req, res, new HookError(503, "timeout", `the request body did not arrive within the time budget of ${budgetMs} ms (HOOK_TIME_BUDGET_MS); the hook did not run`));
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
    return started;
  };

  const authenticate = options.authenticate;
  /** @throws HookError 401 (with `WWW-Authenticate`) when a token is configured and this one is not valid */
  const checkToken = (req: Request, res: Response): void => {
    if (authenticate && !authenticate(req.headers.authorization)) {
      res.setHeader("WWW-Authenticate", 'Bearer realm="metahooks"');
      throw new HookError(401, "unauthorized", "missing or invalid bearer token");
    }
  };

  // A slot is taken only once the whole body is here: a client trickling its body holds bytes of
  // the budget (what it has sent), never a slot, so slow uploads cannot starve real calls. The
  // server's request timeout and the time budget bound how long it may trickle.
  /** @throws HookError 429 (with `Retry-After`) when every slot is taken */
  const takeSlot = (res: Response): void => {
    if (inFlight >= maxConcurrent) {
      // Without Retry-After Metacontroller requeues at once, which would turn overload into a
      // hot loop; with it the parent is retried after that many seconds.
      res.setHeader("Retry-After", String(RETRY_AFTER_SECONDS));
      throw new HookError(429, "overloaded", `more than ${maxConcurrent} hook calls at once (MAX_CONCURRENT_HOOKS); retry after ${RETRY_AFTER_SECONDS} s`);
    }
    inFlight++;
    res.locals.admitted = true;
    metrics.inFlight.set(inFlight);
  };

  /**
   * The handler of one hook route, in the order every call goes through: measure → authenticate →
   * read the body → take a slot → run the hook → count its decisions → answer. One handler, not a
   * chain of middleware: each step is a plain call, so a call costs one route dispatch. A thrown
   * {@link HookError} (or a rejected body read) reaches the app's error handler through express.
   */
  const serveHook = (def: ConfiguredController["def"], hook: HookName, kindOptions: unknown, readBody: BodyReader) => async (req: Request, res: Response): Promise<void> => {
    const started = trackCall(req, res, def.name, hook);
    checkToken(req, res);
    const body = await readBody(req, res);
    // The budget timer answered while the body was arriving: nothing more to say.
    if (res.headersSent) return;
    takeSlot(res);
    const log = res.locals.hookLog as HookLogFields;
    if (body === undefined) throw malformedJson("empty body");
    const result = runHook(def, hook, body, clock(), kindOptions);
    Object.assign(log, result.summary);
    // A 200 is logged at info: below that level the decisions string would never be printed.
    if (logsAnswers) log.decision = formatDecisions(result.decisions);
    const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
    if (elapsedMs > budgetMs) {
      log.decision ??= formatDecisions(result.decisions); // the 503 is logged at error
      // Metacontroller may already have given up; a 503 makes it retry instead of applying an
      // answer computed too late. The decisions are not counted: nothing was applied.
      res.locals.outcome = "timeout";
      throw budgetExceeded(budgetMs);
    }
    recordDecisions(metrics, def.name, result.decisions);
    // The hook reports its own parent problem; nothing is validated a second time here.
    if (result.invalidReason !== undefined) recordInvalidParent(metrics, def.name, result.invalidReason);
    if ("children" in result.response) {
      log.children = result.response.children.length;
      metrics.childrenDesired.observe({ controller: def.name, hook }, result.response.children.length);
    }
    sendJson(res, result.response);
  };

  return createListenerApp({
    logger: options.logger,
    quietPaths: ["/healthz", "/readyz"],
    ...(options.isDraining ? { isDraining: options.isDraining } : {}),
    body: { limitBytes: bodyLimitBytes, budget },
    mount(app, readJson, readBody) {
      app.locals.metrics = metrics;
      app.get("/healthz", (_req, res) => {
        res.json({ status: "ok" });
      });
      app.get("/readyz", (_req, res) => {
        if (isReady()) res.json({ status: "ready" });
        else res.status(503).json({ status: "draining" });
      });

      for (const { def, options: kindOptions } of options.controllers) {
        const hooks: HookName[] = def.hasCustomize ? ["sync", "finalize", "customize"] : ["sync", "finalize"];
        for (const hook of hooks) {
          app.post(`/${hook}/${def.name}`, serveHook(def, hook, kindOptions, readBody));
          app.all(`/${hook}/${def.name}`, postOnly);
        }
      }

      // Admission webhooks (`/validate/<kind>`, `/mutate/<kind>`) for kinds with admission support.
      app.use(createAdmissionRouter(options.controllers, readJson, options.authenticate));
    },
  });
}

function budgetExceeded(budgetMs: number): HookError {
  return new HookError(503, "timeout", `hook call exceeded its time budget of ${budgetMs} ms (HOOK_TIME_BUDGET_MS)`);
}
