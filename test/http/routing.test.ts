// Routes are exact: case-sensitive, no trailing slash, the right method (405 with Allow
// otherwise), and a body that is not UTF-8 is refused instead of being decoded with U+FFFD.
import { test } from "node:test";
import assert from "node:assert/strict";
import request from "supertest";
import { createApp } from "../../src/http/app.ts";
import { createAdmissionApp } from "../../src/admission/server.ts";
import { configureControllers } from "../../src/controllers/registry.ts";
import { silentLogger } from "../helpers/silent-logger.ts";
import { MINIMAL_CRONJOB_SYNC } from "../helpers/requests.ts";

const NOW = new Date("2026-01-05T12:00:30Z");
const app = createApp({ controllers: configureControllers({}), logger: silentLogger, clock: () => NOW });
const admission = createAdmissionApp({ controllers: configureControllers({}), logger: silentLogger });
const SYNC = JSON.stringify(MINIMAL_CRONJOB_SYNC);

test("hook and admission routes are case-sensitive and strict: another spelling is 404", async () => {
  await request(app).post("/sync/cronjob").set("content-type", "application/json").send(SYNC).expect(200);
  for (const path of ["/sync/CronJob", "/SYNC/cronjob", "/sync/cronjob/", "/finalize/cronjob/", "/validate/CronJob", "/validate/cronjob/"]) {
    const res = await request(app).post(path).set("content-type", "application/json").send(SYNC);
    assert.equal(res.status, 404, `${path}: ${res.status}`);
    assert.equal(res.body.error, "not_found");
  }
  for (const path of ["/validate/CronJob", "/mutate/cronjob/"]) {
    assert.equal((await request(admission).post(path).set("content-type", "application/json").send("{}")).status, 404, path);
  }
});

test("another method on a hook or admission route is 405 with Allow: POST", async () => {
  for (const [target, method, path] of [
    [app, "get", "/sync/cronjob"],
    [app, "put", "/finalize/cibuild"],
    [app, "delete", "/customize/cibuild"],
    [app, "get", "/validate/cronjob"],
    [admission, "get", "/mutate/cibuild"],
  ] as const) {
    const res = await (request(target) as any)[method](path);
    assert.equal(res.status, 405, `${method.toUpperCase()} ${path}: ${res.status}`);
    assert.equal(res.headers.allow, "POST");
    assert.equal(res.body.error, "method_not_allowed");
  }
});

/** POSTs raw bytes as JSON (supertest would serialise a Buffer as a JSON object). */
async function postBytes(target: typeof app, path: string, body: Buffer): Promise<{ status: number; body: any }> {
  const server = target.listen(0, "127.0.0.1");
  await new Promise<void>((r) => server.once("listening", () => r()));
  try {
    const { port } = server.address() as import("node:net").AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: new Uint8Array(body) });
    return { status: res.status, body: await res.json() };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

test("a body that is not valid UTF-8 is 400, on the hook and admission routes", async () => {
  // A JSON string holding C3 28 (an invalid two-byte sequence), then one holding a lone FF.
  const text = Buffer.from(SYNC.replace('"hello"', '"hel__lo"'));
  const at = text.indexOf("__");
  for (const bad of [Buffer.from([0xc3, 0x28]), Buffer.from([0xff, 0x41])]) {
    const body = Buffer.concat([text.subarray(0, at), bad, text.subarray(at + 2)]);
    const res = await postBytes(app, "/sync/cronjob", body);
    assert.equal(res.status, 400, `${bad.toString("hex")}: ${res.status} ${JSON.stringify(res.body)}`);
    assert.equal(res.body.error, "malformed_json");
    assert.match(res.body.message, /UTF-8/);
    const review = await postBytes(admission, "/validate/cronjob", Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]));
    assert.equal(review.status, 400);
    assert.match(review.body.message, /UTF-8/);
  }
});
