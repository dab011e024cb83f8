/**
 * How the emulated Metacontroller reaches the hooks: over real HTTP (the tests, against our
 * express app) or in process (`metahooks simulate`, where a week of minutes means tens of
 * thousands of calls and a loopback round trip would dominate the run).
 *
 * @packageDocumentation
 */
import http from "node:http";
import { toErrorBody } from "../errors.ts";
import type { ConfiguredController } from "../controllers/registry.ts";
import type { Decision } from "../controllers/types.ts";
import { runHook, type HookName } from "../metacontroller/run-hook.ts";

/** An HTTP-level answer: status, `Retry-After` header (if any) and body text. */
export interface HookReply {
  status: number;
  retryAfter?: string | undefined;
  text: string;
  /**
   * The body as a value, when the transport has it without the text (in process): equal to
   * `JSON.parse(text)` for everything the caller reads, but it may share objects with the hook's
   * answer and hold values JSON would write differently, so the caller never changes it and
   * copies (`clone`, JSON's semantics) whatever it keeps or writes.
   */
  json?: unknown;
}

/**
 * Calls one hook: POST `path` (e.g. `/sync/cronjob`) with `body` (a JSON value the transport
 * serializes, or hands over as is when the hook runs in process: hooks never change their input).
 * Rejects like a failed dial or a timeout; resolves with any HTTP answer.
 */
export type HookTransport = (path: string, body: unknown, timeoutMs: number) => Promise<HookReply>;

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

/**
 * Real HTTP with a keep-alive agent (cheaper than fetch for tens of thousands of calls).
 * @param baseUrl - where the service listens right now; undefined means down (connection refused)
 */
export function httpTransport(baseUrl: () => string | undefined): HookTransport {
  return (path, value, timeoutMs) => {
    const body = JSON.stringify(value);
    const base = baseUrl();
    if (!base) return Promise.reject(new Error("dial tcp: connect: connection refused"));
    return new Promise((resolve, reject) => {
      const req = http.request(base + path, { method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const ra = res.headers["retry-after"];
          resolve({ status: res.statusCode ?? 0, retryAfter: Array.isArray(ra) ? ra[0] : ra, text: Buffer.concat(chunks).toString("utf8") });
        });
        res.on("error", reject);
      });
      req.setTimeout(timeoutMs, () => req.destroy(new Error("Client.Timeout exceeded while awaiting headers")));
      req.on("error", reject);
      req.end(body);
    });
  };
}

/** One hook call answered in process, for observers (e.g. the simulate timeline). */
export interface InProcessCall {
  kind: string;
  hook: HookName;
  at: Date;
  /** The parsed request body. */
  request: unknown;
  /** The hook's response and decisions when it answered 200. */
  result?: { response: unknown; decisions: readonly Decision[] };
}

/** Options of {@link inProcessTransport}. */
export interface InProcessOptions {
  /** The hook service's clock (the simulated one). */
  clock: () => Date;
  /** True while the service is down: calls then fail like a refused dial. */
  down?: () => boolean;
  onCall?: (call: InProcessCall) => void;
}

/**
 * A 200 answer handed over in process: the text is only made when read. (A class: an object
 * literal with a getter followed by another key is made a dictionary by V8 on every call.)
 */
class InProcessReply implements HookReply {
  readonly status = 200;
  constructor(readonly json: unknown) {}
  get text(): string {
    return JSON.stringify(this.json);
  }
}

/**
 * The routes of our HTTP app without the network: `POST /<hook>/<kind>` → {@link runHook}, with
 * the same status codes and error bodies (200 with the response, 4xx/5xx with `{error, message}`).
 * Body limits, authentication and the time budget are the server's, not the hook's, so they are
 * not modelled.
 */
export function inProcessTransport(controllers: readonly ConfiguredController[], options: InProcessOptions): HookTransport {
  return async (path, body) => {
    // The request is handed over as is (a pure hook only reads it), and so is the answer (the
    // emulated Metacontroller copies what it keeps or writes). The text is only made when read.
    if (options.down?.()) throw new Error("dial tcp: connect: connection refused");
    const [, hook, kind] = path.split("/");
    const configured = controllers.find((c) => c.def.name === kind);
    const hooks: string[] = configured?.def.hasCustomize ? ["sync", "finalize", "customize"] : ["sync", "finalize"];
    if (!configured || !hooks.includes(hook ?? "")) {
      return { status: 404, text: JSON.stringify({ error: "not_found", message: `no route for POST ${path}`, requestId: "in-process" }) };
    }
    const at = options.clock();
    const request = body;
    try {
      const result = runHook(configured.def, hook as HookName, request, at, configured.options);
      options.onCall?.({ kind: configured.def.name, hook: hook as HookName, at, request, result: { response: result.response, decisions: result.decisions } });
      return new InProcessReply(result.response);
    } catch (err) {
      options.onCall?.({ kind: configured.def.name, hook: hook as HookName, at, request });
      const { status, body: errorBody } = toErrorBody(err, "in-process");
      return { status, text: JSON.stringify(errorBody) };
    }
  };
}
