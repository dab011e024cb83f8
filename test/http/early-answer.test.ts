// An answer given before the request body has arrived (413 on Content-Length or on the bytes so
// far, 401 before the body is read) must reach a client that is still sending: a server that
// closes its socket with request bytes unread makes the kernel send a reset, and the client sees
// EPIPE/ECONNRESET instead of the answer. Each client here keeps writing its body slowly after
// the answer, so a premature close shows every time.
import { test } from "node:test";
import assert from "node:assert/strict";
import zlib from "node:zlib";
import http, { type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createApp } from "../../src/http/app.ts";
import { createAdmissionApp } from "../../src/admission/server.ts";
import { configureControllers } from "../../src/controllers/registry.ts";
import { createListenerServer } from "../../src/http/listener.ts";
import { silentLogger } from "../helpers/silent-logger.ts";

const LIMIT = 64 * 1024;
const NOW = new Date("2026-01-05T12:00:30Z");

async function listen(app: http.RequestListener): Promise<{ server: Server; url: string }> {
  const server = createListenerServer(app as never, { requestTimeoutMs: 30_000, headersTimeoutMs: 30_000 });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
}

interface Outcome {
  status: number;
  connection: string | undefined;
  body: string;
  /** The client's error while sending (EPIPE, ECONNRESET), if any. */
  error: string | undefined;
}

/** POSTs `body` in 16 KiB pieces, one every 2 ms, whatever the server answers meanwhile. */
function trickle(url: string, body: Buffer, headers: Record<string, string>): Promise<Outcome> {
  return new Promise((resolve) => {
    let status = 0;
    let connection: string | undefined;
    let text = "";
    let error: string | undefined;
    let answered = false;
    let sent = false;
    const done = () => {
      if ((answered && sent) || error) resolve({ status, connection, body: text, error });
    };
    const req = http.request(url, { method: "POST", agent: false, headers: { "Content-Type": "application/json", ...headers } }, (res) => {
      status = res.statusCode ?? 0;
      connection = res.headers.connection;
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => {
        answered = true;
        done();
      });
    });
    req.on("error", (err: NodeJS.ErrnoException) => {
      error ??= err.code ?? err.message;
      done();
    });
    let offset = 0;
    const timer = setInterval(() => {
      if (error) return clearInterval(timer);
      const piece = body.subarray(offset, offset + 16 * 1024);
      offset += piece.length;
      if (offset >= body.length) {
        clearInterval(timer);
        req.end(piece, () => {
          sent = true;
          done();
        });
      } else req.write(piece);
    }, 2);
  });
}

const hookApp = (extra: Record<string, unknown> = {}) =>
  createApp({ controllers: configureControllers({}), logger: silentLogger, clock: () => NOW, bodyLimitBytes: LIMIT, ...extra });
const admissionApp = () => createAdmissionApp({ controllers: configureControllers({}), logger: silentLogger, bodyLimitBytes: LIMIT });

const cases: Array<{ name: string; app: () => http.RequestListener; path: string; body: () => Buffer; headers: Record<string, string>; status: number }> = [
  { name: "hook: Content-Length over the limit", app: hookApp, path: "/sync/cronjob", body: () => Buffer.alloc(2 * 1024 * 1024, 0x20), headers: { "Content-Length": String(2 * 1024 * 1024) }, status: 413 },
  { name: "admission: Content-Length over the limit", app: admissionApp, path: "/validate/cronjob", body: () => Buffer.alloc(2 * 1024 * 1024, 0x20), headers: { "Content-Length": String(2 * 1024 * 1024) }, status: 413 },
  { name: "hook: a chunked body over the limit", app: hookApp, path: "/sync/cronjob", body: () => Buffer.alloc(2 * 1024 * 1024, 0x20), headers: {}, status: 413 },
  {
    name: "hook: a gzip bomb sent slowly",
    app: hookApp,
    path: "/sync/cronjob",
    body: () => zlib.gzipSync(Buffer.alloc(600 * 1024 * 1024, 0x20)),
    headers: { "Content-Encoding": "gzip" },
    status: 413,
  },
  {
    name: "hook: 401 before the body is read",
    app: () => hookApp({ authenticate: () => false }),
    path: "/sync/cronjob",
    body: () => Buffer.alloc(1024 * 1024, 0x20),
    headers: { "Content-Length": String(1024 * 1024) },
    status: 401,
  },
];

for (const c of cases) {
  test(`${c.name}: the ${c.status} reaches a client still sending, with Connection: close`, async () => {
    const { server, url } = await listen(c.app());
    try {
      const outcome = await trickle(url + c.path, c.body(), c.headers);
      assert.equal(outcome.error, undefined, `the client saw ${outcome.error} (answer so far: ${outcome.status} ${outcome.body})`);
      assert.equal(outcome.status, c.status, outcome.body);
      assert.equal(outcome.connection, "close");
      assert.ok(JSON.parse(outcome.body).error, outcome.body);
    } finally {
      await stop(server);
    }
  });
}
