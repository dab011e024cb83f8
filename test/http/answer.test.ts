/**
 * A 200 hook answer is written once: the JSON text of the validated response, with the headers
 * express' res.json would set, and `Connection: close` added at write time while draining.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { createApp } from "../../src/http/app.ts";
import { configureControllers } from "../../src/controllers/registry.ts";
import { runHook } from "../../src/metacontroller/run-hook.ts";
import { silentLogger } from "../helpers/silent-logger.ts";
import { send } from "../helpers/slow-request.ts";
import { MINIMAL_CRONJOB } from "../helpers/requests.ts";

const NOW = new Date("2026-01-05T12:00:30Z");
const body = { parent: MINIMAL_CRONJOB, children: { "Job.batch/v1": {} } };

test("a 200 answer is the response's JSON text with JSON headers and its exact length", async () => {
  const controllers = configureControllers({});
  const res = await request(createApp({ controllers, logger: silentLogger, clock: () => NOW })).post("/sync/cronjob").send(body).expect(200);
  const cron = controllers.find((c) => c.def.name === "cronjob")!;
  const expected = JSON.stringify(runHook(cron.def, "sync", body, NOW, cron.options).response);
  assert.equal(res.text, expected);
  assert.equal(res.headers["content-type"], "application/json; charset=utf-8");
  assert.equal(res.headers["content-length"], String(Buffer.byteLength(expected)));
  assert.equal(typeof res.headers["x-request-id"], "string");
});

test("draining is decided when the answer is written, for hook answers and errors alike, per app", async () => {
  let draining = false;
  const drainingApp = createApp({ controllers: configureControllers({}), logger: silentLogger, clock: () => NOW, isDraining: () => draining });
  const other = createApp({ controllers: configureControllers({}), logger: silentLogger, clock: () => NOW });
  const servers = [drainingApp.listen(0, "127.0.0.1"), other.listen(0, "127.0.0.1")];
  await Promise.all(servers.map((s) => new Promise<void>((r) => s.once("listening", () => r()))));
  const [a, b] = servers.map((s) => `http://127.0.0.1:${(s.address() as AddressInfo).port}/sync/cronjob`);
  const agent = new http.Agent({ keepAlive: true });
  try {
    const text = JSON.stringify(body);
    assert.equal((await send(a!, text, { agent })).headers.connection, "keep-alive");
    draining = true;
    const during = await send(a!, text, { agent });
    assert.equal(during.status, 200);
    assert.equal(during.headers.connection, "close");
    const error = await send(a!, JSON.stringify({ parent: 5 }), { agent });
    assert.equal(error.status, 422);
    assert.equal(error.headers.connection, "close");
    // The other app of the process is not draining: the header is per app, never global.
    assert.equal((await send(b!, text, { agent })).headers.connection, "keep-alive");
  } finally {
    agent.destroy();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  }
});
