/**
 * The one listener factory: what every listener that reads request bodies has in common (the hook
 * port and the HTTPS admission port). Same request logger, same body reading (limit, budget,
 * encodings), same error mapper, same `Connection: close` while draining, same server timeouts and
 * the same graceful close, so the two can no longer drift apart.
 *
 * @packageDocumentation
 */
import http from "node:http";
import https from "node:https";
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import type { Logger } from "pino";
import { HookError, toErrorBody } from "../errors.ts";
import { createRequestLogger } from "./logger.ts";
import { readJsonBody, type BodyLimits } from "./body.ts";

/** What {@link createListenerApp} needs. */
export interface ListenerAppOptions {
  logger: Logger;
  /** GET paths that are not logged (health checks). */
  quietPaths: readonly string[];
  /** While true every answer carries `Connection: close`. @default never */
  isDraining?: () => boolean;
  /**
   * Adds the listener's own routes: `readJson` is the body reader to put before a handler (it sets
   * `req.body`); `readBody` is the same reader for a handler that reads the body itself.
   */
  mount: (app: express.Express, readJson: RequestHandler, readBody: BodyReader) => void;
  /** Body limit and in-flight budget, shared by every listener of the process. */
  body: BodyLimits;
}

/**
 * Reads and parses a request's JSON body with the listener's limits ({@link readJsonBody}); the
 * bytes it reserves of the in-flight budget are released when the response closes.
 * @throws HookError 400, 413, 415 or 429, as {@link readJsonBody}
 */
export type BodyReader = (req: Request, res: Response) => Promise<unknown>;

/**
 * Builds an express app with the common parts around `mount`'s routes: request logger first,
 * 404 JSON for unknown routes, and {@link sendError} for every error.
 */
export function createListenerApp(options: ListenerAppOptions): express.Express {
  const isDraining = options.isDraining ?? (() => false);
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  // One spelling per route: `/sync/CronJob` or `/sync/cronjob/` is a 404, never a hook answer that
  // a misconfigured URL would otherwise get by accident. Set before any route creates the router.
  app.set("case sensitive routing", true);
  app.set("strict routing", true);
  // Draining can start while a call is in flight, so the header is decided when the answer is
  // written, not when the request arrived. Every answer's headers go through writeHead (Node's
  // implicit header calls it too); defining it once on this app's response prototype (express
  // gives each app its own) costs nothing per request.
  const writeHead = http.ServerResponse.prototype.writeHead;
  (app.response as http.ServerResponse).writeHead = function (this: http.ServerResponse, ...args: Parameters<typeof writeHead>) {
    if (!this.headersSent && isDraining()) this.setHeader("Connection", "close");
    return writeHead.apply(this, args);
  } as typeof writeHead;
  app.use(createRequestLogger(options.logger, options.quietPaths));

  const readBody: BodyReader = (req, res) => {
    let reserved = 0;
    res.once("close", () => options.body.budget.release(reserved));
    return readJsonBody(req, options.body, (bytes) => (reserved += bytes));
  };
  const readJson: RequestHandler = async (req, res, next) => {
    if (res.headersSent) return; // the time budget answered while the body was arriving
    try {
      req.body = await readBody(req, res);
    } catch (err) {
      next(err);
      return;
    }
    next();
  };

  options.mount(app, readJson, readBody);

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
 * The handler for every other method on a POST-only route: 405 `method_not_allowed` with
 * `Allow: POST` (RFC 9110 requires the header on a 405).
 */
export const postOnly: RequestHandler = (req, res) => {
  res.setHeader("Allow", "POST");
  throw new HookError(405, "method_not_allowed", `${req.method} is not allowed here; use POST`);
};

/**
 * Answers 200 with `body` as JSON: one `JSON.stringify`, the headers set once (`Content-Type:
 * application/json; charset=utf-8`, as express' `res.json`, and `Content-Length`), and the text
 * handed to Node as a string, so headers and body leave in one write.
 */
export function sendJson(res: Response, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(200, { "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(text) });
  res.end(text);
}

/**
 * The error mapper of every listener: a {@link HookError} keeps its status and message (none of
 * them quotes a request body); an error from express or a library that carries an HTTP status
 * below 500 (e.g. a URI it cannot decode) becomes a `bad_request` with a generic message; anything
 * else is a 500 whose details go to the log only. A 429 carries `Retry-After`.
 */
export function sendError(req: Request, res: Response, err: unknown): void {
  const mapped = mapError(err);
  const { status, body } = toErrorBody(mapped, String(req.id ?? ""));
  if (status >= 500) res.err = err instanceof Error ? err : new Error(String(err));
  if (status === 429 && !res.hasHeader("Retry-After")) res.setHeader("Retry-After", "1");
  // A refusal (4xx) while the client still sends waits for its body; a 5xx (e.g. the time budget
  // of a body that stalled) closes at once, there is nothing worth waiting for.
  if (status < 500 && !req.complete && !req.destroyed) {
    answerBeforeBodyEnds(req, res, status, body);
    return;
  }
  res.status(status).json(body);
}

/** Request bytes read and dropped after an early answer before the socket is closed anyway. */
export const DISCARD_AFTER_ANSWER_BYTES = 64 * 1024 * 1024;

/**
 * Answers a refusal while the request body is still arriving (413, 415, 429, 401, a 400 on a bad
 * encoding): the answer goes out at once with `Connection: close`, but the response is
 * ended, and so the socket closed, only once the rest of the body has been read and dropped, at
 * most {@link DISCARD_AFTER_ANSWER_BYTES} of it and no longer than the server's `requestTimeout`
 * (REQUEST_TIMEOUT_MS), which cuts the connection. Closing a socket with unread request bytes
 * makes the kernel send a reset, and a client still sending sees ECONNRESET or EPIPE instead of
 * the answer (RFC 9112 §9.6 asks servers to close in stages for this reason). The answer carries
 * its Content-Length, so the client has all of it before the end.
 */
function answerBeforeBodyEnds(req: Request, res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.setHeader("Connection", "close");
  res.writeHead(status, { "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(text) });
  res.write(text);
  let dropped = 0;
  const finish = () => {
    req.off("data", onData);
    req.off("end", finish);
    req.off("close", finish);
    req.off("error", finish);
    if (!res.writableEnded) res.end();
  };
  const onData = (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > DISCARD_AFTER_ANSWER_BYTES) finish();
  };
  req.on("data", onData);
  req.once("end", finish);
  req.once("close", finish);
  req.once("error", finish);
  req.resume();
}

function mapError(err: unknown): unknown {
  if (err instanceof HookError) return err;
  const status = (err as { status?: unknown; statusCode?: unknown } | null)?.status ?? (err as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === "number" && status >= 400 && status < 500) return new HookError(status, "bad_request", `the request was refused (HTTP ${status})`);
  return err;
}

/** Server timeouts (milliseconds) of every listener. */
export interface ListenerTimeouts {
  /**
   * The whole request, headers and body, must arrive within this (Node's `requestTimeout`); a
   * slower client gets 408 and its connection is closed. Env `REQUEST_TIMEOUT_MS`.
   */
  requestTimeoutMs: number;
  /** The headers must arrive within this (Node's `headersTimeout`, at most `requestTimeoutMs`). */
  headersTimeoutMs: number;
}

/**
 * Creates the HTTP or HTTPS server of a listener app with the common timeouts. Keep-alive sockets
 * stay open 95 s: Metacontroller's Go client keeps idle connections for 90 s, and closing ours
 * earlier races its reuse and shows up as sporadic EOF hook errors.
 * @param tls - PEM certificate chain and key; plain HTTP without
 */
export function createListenerServer(app: express.Express, timeouts: ListenerTimeouts, tls?: { cert: Buffer; key: Buffer }): http.Server {
  const options: http.ServerOptions = {
    ...expressMessageClasses(app),
    requestTimeout: timeouts.requestTimeoutMs,
    headersTimeout: Math.min(timeouts.headersTimeoutMs, timeouts.requestTimeoutMs),
    // How often Node checks the two timeouts above (default 30 s, coarser than the timeouts).
    connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(timeouts.requestTimeoutMs / 4))),
    keepAliveTimeout: 95_000,
  };
  const server = tls ? https.createServer({ ...options, ...tls }, app) : http.createServer(options, app);
  server.keepAliveTimeout = 95_000;
  return server;
}

/**
 * Request and response classes whose objects are born with the app's prototypes (`app.request`,
 * `app.response`), handed to Node as the server's `IncomingMessage` and `ServerResponse`.
 *
 * Why: express gives every request and response its own prototypes in `app.handle` with
 * `Object.setPrototypeOf`, after Node built them. V8 then moves both objects to new hidden classes
 * and every property access Node's HTTP code makes on them afterwards misses its inline caches:
 * measured on this project's 2-core machine, an express app with one route cost about 50 µs of CPU per
 * call more than the same handler on `node:http`, the largest fixed cost of a hook call. Built
 * with the final prototype, express's `setPrototypeOf` finds it already in place and changes
 * nothing, and the same app costs what `node:http` costs. Express, its routing and its request
 * and response methods stay exactly as they are; an app served any other way (supertest) still
 * works, it just pays the old price.
 */
function expressMessageClasses(app: express.Express): Pick<http.ServerOptions, "IncomingMessage" | "ServerResponse"> {
  // Node declares both as plain constructor functions, so ours call them on the object `new` made
  // from our `prototype`. (`Reflect.construct` with a new target would also work for classes, but
  // V8 then builds the objects from a map without in-object slack: measured slower than express's
  // own way.) Should a Node release make them classes, calling them would throw, so the server
  // then keeps Node's own classes and express sets the prototypes as before.
  const isClass = (f: unknown) => /^class\b/.test(Function.prototype.toString.call(f));
  if (isClass(http.IncomingMessage) || isClass(http.ServerResponse)) return {};
  const ExpressRequest = bornWith(http.IncomingMessage, app.request);
  const ExpressResponse = bornWith(http.ServerResponse, app.response);
  return {
    IncomingMessage: ExpressRequest as unknown as typeof http.IncomingMessage,
    ServerResponse: ExpressResponse as unknown as typeof http.ServerResponse,
  };
}

/** A constructor that runs Node's `base` on an object made from `prototype`. */
function bornWith(base: unknown, prototype: object): (this: object, ...args: unknown[]) => void {
  const construct = base as (this: object, ...args: unknown[]) => void;
  function Message(this: object, ...args: unknown[]): void {
    construct.apply(this, args);
  }
  Message.prototype = prototype;
  return Message;
}

/**
 * Closes a listener gracefully: stops accepting, closes idle keep-alive sockets at once, lets
 * in-flight calls finish (their answers carry `Connection: close` while draining), and cuts what
 * is still open at `deadline` (epoch ms).
 * @returns true when connections had to be cut
 */
export async function closeListener(server: http.Server, deadline: number): Promise<boolean> {
  if (!server.listening) return false;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // close() stops accepting and drops the sockets idle right now, but on Node 20 a keep-alive
  // socket busy at this moment stays open after its answer (until keepAliveTimeout) and may even
  // be served another call; closeIdleConnections() is explicit about the rest.
  server.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const cut = await Promise.race([
    closed.then(() => false),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), Math.max(0, deadline - Date.now()));
    }),
  ]);
  clearTimeout(timer);
  if (cut) {
    server.closeAllConnections();
    await closed;
  }
  return cut;
}
