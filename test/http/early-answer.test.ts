// An answer given before the request body has arrived (413 on Content-Length or on the bytes so
// far, 401 before the body is read) must reach a client that is still sending: a server that
// closes its socket with request bytes unread makes the kernel send a reset, and the client sees
// EPIPE/ECONNRESET instead of the answer. Each client here asks for `Connection: close` (so the
// server closes right after answering unless it waits for the body) and keeps writing its body
// slowly after the answer, so a premature close shows every time.
import { test } from "node:test";
import assert from "node:assert/strict";
import zlib from "node:zlib";
import http, { type Server } from "node:http";
import net from "node:net";
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

/**
 * POSTs `body` over a raw socket in 16 KiB pieces, one every 2 ms, whatever the server answers
 * meanwhile (as a client that reads the answer only after sending does), chunked when no
 * Content-Length is given. A raw socket because Node's own client stops sending once it has a
 * complete `Connection: close` answer, which would hide the reset.
 */
function trickle(url: string, body: Buffer, headers: Record<string, string>): Promise<Outcome> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const chunked = !Object.keys(headers).some((h) => h.toLowerCase() === "content-length");
    // A one-shot client (Node's without an agent, curl, any HTTP/1.0 client) asks the server to
    // close after the answer: the server then closes as soon as it has answered.
    const head = [`POST ${u.pathname} HTTP/1.1`, `Host: ${u.host}`, "Content-Type: application/json", "Connection: close", ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), ...(chunked ? ["Transfer-Encoding: chunked"] : [])];
    const socket = net.connect(Number(u.port), u.hostname);
    let received = "";
    let error: string | undefined;
    let sent = false;
    socket.setEncoding("latin1");
    socket.on("data", (c: string) => (received += c));
    socket.on("error", (err: NodeJS.ErrnoException) => (error ??= err.code ?? err.message));
    socket.on("close", () => {
      if (!sent) error ??= "the server closed the connection before the body was sent";
      const [headText = "", text = ""] = received.split("\r\n\r\n", 2);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(headText)?.[1] ?? 0);
      const connection = /\r\nconnection: *([^\r]*)/i.exec(headText)?.[1];
      resolve({ status, connection, body: text, error });
    });
    socket.write(head.join("\r\n") + "\r\n\r\n");
    let offset = 0;
    const timer = setInterval(() => {
      if (error || socket.destroyed) return clearInterval(timer);
      const piece = body.subarray(offset, offset + 16 * 1024);
      offset += piece.length;
      const framed = chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n")]) : piece;
      if (offset >= body.length) {
        clearInterval(timer);
        socket.write(chunked ? Buffer.concat([framed, Buffer.from("0\r\n\r\n")]) : framed, () => {
          sent = true;
          // A server that keeps the connection open (no Connection: close) is not waited for.
          setTimeout(() => socket.destroy(), 2000).unref();
        });
      } else socket.write(framed);
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
    // Run-length gzip: the same 0.6 MB as the default level, at a quarter of the CPU.
    body: () => zlib.gzipSync(Buffer.alloc(600 * 1024 * 1024, 0x20), { strategy: zlib.constants.Z_RLE }),
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
