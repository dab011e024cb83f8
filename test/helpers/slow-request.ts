import http from "node:http";
import https from "node:https";

/** An answer read in full. */
export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A POST whose body is held back until {@link SlowRequest.finish}: an in-flight hook call. */
export interface SlowRequest {
  /** Resolves with the answer; rejects when the connection is cut. */
  answer: Promise<Answer>;
  /** Sends the rest of the body. */
  finish(): void;
  /** Resolves once the server has the request headers (the socket is connected and written). */
  sent: Promise<void>;
  request: http.ClientRequest;
}

/**
 * Starts a POST of `body` to `url`, sending only the headers and the first byte.
 * @param agent - e.g. a keep-alive agent; default a fresh connection
 */
export function slowPost(url: string, body: string, options: { agent?: http.Agent; headers?: Record<string, string>; rejectUnauthorized?: boolean } = {}): SlowRequest {
  const u = new URL(url);
  const mod = u.protocol === "https:" ? https : http;
  const payload = Buffer.from(body);
  const request = mod.request(u, {
    method: "POST",
    agent: options.agent,
    headers: { "Content-Type": "application/json", "Content-Length": String(payload.length), ...options.headers },
    ...(u.protocol === "https:" ? { rejectUnauthorized: options.rejectUnauthorized ?? false } : {}),
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    request.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on("error", reject);
    });
    request.on("error", reject);
  });
  answer.catch(() => undefined);
  const sent = new Promise<void>((resolve) => request.write(payload.subarray(0, 1), () => resolve()));
  return {
    answer,
    sent,
    request,
    finish: () => request.end(payload.subarray(1)),
  };
}

/** A complete POST (or GET when body is undefined). */
export function send(url: string, body?: string, options: { agent?: http.Agent; headers?: Record<string, string> } = {}): Promise<Answer> {
  if (body === undefined) {
    return new Promise((resolve, reject) => {
      const u = new URL(url);
      const mod = u.protocol === "https:" ? https : http;
      const req = mod.get(u, { agent: options.agent, headers: options.headers, ...(u.protocol === "https:" ? { rejectUnauthorized: false } : {}) }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      });
      req.on("error", reject);
    });
  }
  const slow = slowPost(url, body, options);
  slow.finish();
  return slow.answer;
}

/** Polls `check` every 25 ms until it returns true, for at most `timeoutMs`. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}
