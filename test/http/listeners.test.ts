// The hook and admission listeners come from one factory: same body reading (encodings, limit,
// in-flight budget), same error mapper (no body excerpts), slots taken only after the body.
import { test } from "node:test";
import assert from "node:assert/strict";
import zlib from "node:zlib";
import http, { type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createApp, type AppOptions } from "../../src/http/app.ts";
import { createAdmissionApp, loadAdmissionConfig } from "../../src/admission/server.ts";
import { configureControllers } from "../../src/controllers/registry.ts";
import { loadServiceConfig } from "../../src/config.ts";
import { ByteBudget } from "../../src/http/body.ts";
import { silentLogger } from "../helpers/silent-logger.ts";
import { slowPost, send, type Answer } from "../helpers/slow-request.ts";
import { admissionReview, MINIMAL_CRONJOB, MINIMAL_CRONJOB_SYNC } from "../helpers/requests.ts";

const NOW = new Date("2026-01-05T12:00:30Z");
const SYNC = JSON.stringify(MINIMAL_CRONJOB_SYNC);

async function listen(app: ReturnType<typeof createApp>): Promise<{ server: Server; url: string }> {
  const server = http.createServer(app);
  server.listen(0, "127.0.0.1");
  await new Promise<void>((r) => server.once("listening", () => r()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
}

function hookApp(extra: Partial<AppOptions> = {}) {
  return createApp({ controllers: configureControllers({}), logger: silentLogger, clock: () => NOW, ...extra });
}

function admissionApp(bodyLimitBytes?: number) {
  return createAdmissionApp({ controllers: configureControllers({}), logger: silentLogger, ...(bodyLimitBytes ? { bodyLimitBytes } : {}) });
}

/** A POST with raw bytes and headers, read in full. */
function postRaw(url: string, body: Buffer, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", headers: { "Content-Type": "application/json", "Content-Length": String(body.length), ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const ENCODERS: Record<string, (b: Buffer) => Buffer> = {
  gzip: (b) => zlib.gzipSync(b),
  deflate: (b) => zlib.deflateSync(b),
  br: (b) => zlib.brotliCompressSync(b),
};

/**
 * 50 MiB of spaces in each encoding, built once for every listener. Compressed with the cheap
 * settings an attacker would pick (run-length gzip/deflate: the same size as the default level;
 * brotli quality 5 instead of 11: under 100 bytes either way), a fifth of the CPU of the defaults.
 */
const BOMBS: Record<string, Buffer> = (() => {
  const plain = Buffer.alloc(50 * 1024 * 1024, 0x20);
  return {
    gzip: zlib.gzipSync(plain, { strategy: zlib.constants.Z_RLE }),
    deflate: zlib.deflateSync(plain, { strategy: zlib.constants.Z_RLE }),
    br: zlib.brotliCompressSync(plain, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } }),
  };
})();

const ADMISSION_REVIEW = JSON.stringify(admissionReview(MINIMAL_CRONJOB));

for (const [listener, make, path, valid] of [
  ["hook", () => hookApp({ bodyLimitBytes: 64 * 1024 }), "/sync/cronjob", SYNC],
  ["admission", () => admissionApp(64 * 1024), "/validate/cronjob", ADMISSION_REVIEW],
] as const) {
  test(`${listener} listener: valid gzip, deflate and br bodies are read; corrupt ones answer 400, never 500`, async () => {
    const { server, url } = await listen(make());
    try {
      for (const [encoding, encode] of Object.entries(ENCODERS)) {
        const good = await postRaw(url + path, encode(Buffer.from(valid)), { "Content-Encoding": encoding });
        assert.equal(good.status, 200, `${encoding}: ${good.body}`);
        const compressed = encode(Buffer.from(valid));
        for (const corrupt of [Buffer.from("definitely not compressed"), compressed.subarray(0, compressed.length >> 1), Buffer.concat([compressed.subarray(0, 12), Buffer.alloc(64, 0xff)])]) {
          const bad = await postRaw(url + path, corrupt, { "Content-Encoding": encoding });
          assert.equal(bad.status, 400, `${encoding}: ${bad.status} ${bad.body}`);
          assert.equal(JSON.parse(bad.body).error, "bad_encoding");
        }
      }
    } finally {
      await stop(server);
    }
  });

  test(`${listener} listener: a compressed body over the limit (a bomb) answers 413 with the real byte counts`, async () => {
    const { server, url } = await listen(make());
    try {
      for (const [encoding, bomb] of Object.entries(BOMBS)) {
        assert.ok(bomb.length < 64 * 1024, "the bomb itself fits the limit");
        const answer = await postRaw(url + path, bomb, { "Content-Encoding": encoding });
        assert.equal(answer.status, 413, `${encoding}: ${answer.body}`);
        const message = JSON.parse(answer.body).message as string;
        assert.doesNotMatch(message, /undefined/);
        assert.match(message, /of at least \d+ bytes after decompression \(\d+ bytes \w+ on the wire\) exceeds the limit of 65536 bytes/);
      }
    } finally {
      await stop(server);
    }
  });

  test(`${listener} listener: malformed JSON never quotes the body, in any of V8's message forms`, async () => {
    const { server, url } = await listen(make());
    try {
      const secret = "hunter2-supersecret-token";
      for (const body of [`Bearer ${secret}`, `{"token": "${secret}"`, `{"a": ${secret}}`, `{"a":"x\u0001${secret}"}`, `{"a":1} ${secret}`, `["${secret}",]`]) {
        const answer = await postRaw(url + path, Buffer.from(body), {});
        assert.equal(answer.status, 400, body);
        const parsed = JSON.parse(answer.body);
        assert.equal(parsed.error, "malformed_json");
        for (const piece of ["hunter", "Bearer", "supersecret", "token"]) {
          assert.ok(!answer.body.includes(piece), `${listener} quoted the body: ${parsed.message}`);
        }
      }
    } finally {
      await stop(server);
    }
  });
}

test("32 clients trickling their bodies hold no hook slot: real calls still answer 200", async () => {
  const { server, url } = await listen(hookApp({ maxConcurrentHooks: 32, hookTimeBudgetMs: 20_000 }));
  const agent = new http.Agent({ keepAlive: false, maxSockets: 100 });
  const trickling = Array.from({ length: 32 }, () => slowPost(`${url}/sync/cronjob`, SYNC, { agent }));
  try {
    await Promise.all(trickling.map((t) => t.sent));
    for (let i = 0; i < 5; i++) {
      const real = await send(`${url}/sync/cronjob`, SYNC, { agent });
      assert.equal(real.status, 200, real.body);
    }
    for (const t of trickling) t.finish();
    for (const t of trickling) assert.equal((await t.answer).status, 200);
  } finally {
    for (const t of trickling) t.request.destroy();
    agent.destroy();
    await stop(server);
  }
});

test("MAX_INFLIGHT_BYTES: a body that does not fit answers 429 with Retry-After, by Content-Length and while streaming", async () => {
  const budget = new ByteBudget(100 * 1024);
  const { server, url } = await listen(hookApp({ bodyLimitBytes: 80 * 1024, bodyBudget: budget }));
  try {
    const pad = (n: number) => JSON.stringify({ ...MINIMAL_CRONJOB_SYNC, pad: "x".repeat(n) });
    // Holds 60 KiB of the budget: everything but its last byte has arrived.
    const holder = slowPost(`${url}/sync/cronjob`, pad(60 * 1024));
    holder.request.write(Buffer.from(pad(60 * 1024)).subarray(1, -1));
    for (let i = 0; i < 200 && budget.inUse < 60 * 1024; i++) await new Promise((r) => setTimeout(r, 5));
    assert.ok(budget.inUse >= 60 * 1024, `budget in use ${budget.inUse}`);
    // Announced 70 KiB: refused on arrival.
    const announced = await send(`${url}/sync/cronjob`, pad(70 * 1024));
    assert.equal(announced.status, 429, announced.body);
    assert.equal(announced.headers["retry-after"], "1");
    assert.match(JSON.parse(announced.body).message, /MAX_INFLIGHT_BYTES/);
    // No Content-Length (chunked): refused while streaming, once it no longer fits.
    const chunked = await new Promise<Answer>((resolve, reject) => {
      const req = http.request(`${url}/sync/cronjob`, { method: "POST", headers: { "Content-Type": "application/json", "Transfer-Encoding": "chunked" } }, (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      });
      req.on("error", reject);
      const body = Buffer.from(pad(70 * 1024));
      for (let i = 0; i < body.length; i += 8192) req.write(body.subarray(i, i + 8192));
      req.end();
    });
    assert.equal(chunked.status, 429, chunked.body);
    assert.equal(chunked.headers["retry-after"], "1");
    // Small calls still fit.
    assert.equal((await send(`${url}/sync/cronjob`, SYNC)).status, 200);
    holder.request.end(Buffer.from(pad(60 * 1024)).subarray(-1));
    assert.equal((await holder.answer).status, 200);
    for (let i = 0; i < 200 && budget.inUse > 0; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(budget.inUse, 0, "every reservation is released after the answer");
  } finally {
    await stop(server);
  }
});

test("BODY_LIMIT_BYTES, MAX_INFLIGHT_BYTES and REQUEST_TIMEOUT_MS are validated loudly by both listeners' configuration", () => {
  const tls = { ADMISSION_TLS_CERT_FILE: "/c", ADMISSION_TLS_KEY_FILE: "/k" };
  for (const bad of ["abc", "-1", "0", "1.5", "999999999999"]) {
    assert.throws(() => loadAdmissionConfig({ ...tls, BODY_LIMIT_BYTES: bad }), /BODY_LIMIT_BYTES/, bad);
    assert.throws(() => loadServiceConfig({ BODY_LIMIT_BYTES: bad }), /BODY_LIMIT_BYTES/, bad);
  }
  assert.equal(loadAdmissionConfig({ ...tls, BODY_LIMIT_BYTES: "2048" })?.bodyLimitBytes, 2048);
  assert.throws(() => loadServiceConfig({ BODY_LIMIT_BYTES: "4096", MAX_INFLIGHT_BYTES: "2048" }), /MAX_INFLIGHT_BYTES .* at least BODY_LIMIT_BYTES/);
  assert.equal(loadServiceConfig({}).maxInflightBytes, 16 * 1024 * 1024);
  assert.equal(loadServiceConfig({}).requestTimeoutMs, 30_000);
  assert.throws(() => loadServiceConfig({ REQUEST_TIMEOUT_MS: "10" }), /REQUEST_TIMEOUT_MS/);
  assert.throws(() => loadAdmissionConfig({ ...tls, REQUEST_TIMEOUT_MS: "x" }), /REQUEST_TIMEOUT_MS/);
});

test("REQUEST_TIMEOUT_MS: a client that never finishes its body is answered 408 and disconnected, on every listener", async () => {
  const { createListenerServer } = await import("../../src/http/listener.ts");
  for (const [name, app, path] of [
    ["hook", hookApp({ hookTimeBudgetMs: 60_000 }), "/sync/cronjob"],
    ["admission", admissionApp(), "/validate/cronjob"],
  ] as const) {
    const server = createListenerServer(app, { requestTimeoutMs: 1000, headersTimeoutMs: 1000 });
    server.listen(0, "127.0.0.1");
    await new Promise<void>((r) => server.once("listening", () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const started = Date.now();
      const stalled = slowPost(url + path, SYNC);
      const answer = await stalled.answer;
      assert.equal(answer.status, 408, `${name}: ${answer.status}`);
      assert.ok(Date.now() - started < 10_000, `${name}: took ${Date.now() - started} ms`);
    } finally {
      await stop(server);
    }
  }
});

test("createListenerServer builds requests and responses with the app's prototypes, so express never has to swap them", async () => {
  const { createListenerServer } = await import("../../src/http/listener.ts");
  const app = hookApp();
  const server = createListenerServer(app, { requestTimeoutMs: 5000, headersTimeoutMs: 5000 });
  // Seen before express runs: the prototypes Node gave the objects.
  const seen: Array<{ req: unknown; res: unknown }> = [];
  server.prependListener("request", (req, res) => seen.push({ req: Object.getPrototypeOf(req), res: Object.getPrototypeOf(res) }));
  server.listen(0, "127.0.0.1");
  await new Promise<void>((r) => server.once("listening", () => r()));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const answer = await send(`${url}/sync/cronjob`, SYNC);
    assert.equal(answer.status, 200, answer.body);
    assert.equal(JSON.parse(answer.body).children.length, 1, "express' request and response methods still work");
    assert.equal((await send(`${url}/healthz`)).status, 200);
    assert.equal(seen.length, 2);
    for (const s of seen) {
      assert.equal(s.req, app.request, "the request is born with app.request as its prototype");
      assert.equal(s.res, app.response, "the response is born with app.response as its prototype");
    }
  } finally {
    await stop(server);
  }
});
