import { test } from "node:test";
import assert from "node:assert/strict";
import request from "supertest";
import { Writable } from "node:stream";
import { pino } from "pino";
import { createApp } from "../../src/http/app.ts";
import { configureControllers } from "../../src/controllers/registry.ts";
import { silentLogger } from "../helpers/silent-logger.ts";
import { MINIMAL_CRONJOB } from "../helpers/requests.ts";

const NOW = new Date("2026-01-05T12:00:30Z");

function app(logger = silentLogger, bodyLimitBytes?: number) {
  return createApp({ controllers: configureControllers({}), logger, clock: () => NOW, ...(bodyLimitBytes ? { bodyLimitBytes } : {}) });
}

const parent = MINIMAL_CRONJOB;

test("health endpoints answer 200", async () => {
  await request(app()).get("/healthz").expect(200, { status: "ok" });
  await request(app()).get("/readyz").expect(200);
});

test("readyz answers 503 when not ready", async () => {
  const notReady = createApp({ controllers: configureControllers({}), logger: silentLogger, isReady: () => false });
  await request(notReady).get("/readyz").expect(503);
});

test("a valid sync request answers 200 with status and children", async () => {
  const res = await request(app()).post("/sync/cronjob").send({ parent, children: { "Job.batch/v1": {} } }).expect(200);
  assert.ok(res.body.status && typeof res.body.status === "object");
  assert.ok(Array.isArray(res.body.children));
  assert.equal(res.headers["content-type"]?.startsWith("application/json"), true);
});

test("malformed JSON answers 400 with a JSON error body", async () => {
  const res = await request(app()).post("/sync/cronjob").set("Content-Type", "application/json").send("{nope").expect(400);
  assert.equal(res.body.error, "malformed_json");
  assert.equal(typeof res.body.message, "string");
  assert.equal(typeof res.body.requestId, "string");
  assert.ok(res.body.requestId.length > 0);
});

test("an empty body answers 400", async () => {
  const res = await request(app()).post("/sync/cronjob").set("Content-Type", "application/json").send("").expect(400);
  assert.equal(res.body.error, "malformed_json");
});

test("JSON that is not a Metacontroller request answers 422", async () => {
  const res = await request(app()).post("/sync/cronjob").send({ hello: "world" }).expect(422);
  assert.equal(res.body.error, "invalid_request");
  assert.match(res.body.message, /parent/);
});

test("a parent of another kind answers 422", async () => {
  const res = await request(app())
    .post("/sync/cronjob")
    .send({ parent: { ...parent, apiVersion: "batch/v1" } })
    .expect(422);
  assert.match(res.body.message, /serve batch\.tutorial\.kubebuilder\.io\/v1\/CronJob/);
});

test("a body over the limit answers 413", async () => {
  const big = { parent, children: { "Job.batch/v1": {} }, padding: "x".repeat(4096) };
  const res = await request(app(silentLogger, 1024)).post("/sync/cronjob").send(big).expect(413);
  assert.equal(res.body.error, "too_large");
});

test("a 300 kB request (≈100 children) is accepted under the default 8 MiB limit", async () => {
  const jobs: Record<string, unknown> = {};
  for (let i = 0; i < 100; i++) {
    const name = `other-${i}`;
    jobs[name] = { apiVersion: "batch/v1", kind: "Job", metadata: { name, namespace: "default", annotations: { pad: "y".repeat(3000) } }, spec: {} };
  }
  await request(app()).post("/sync/cronjob").send({ parent, children: { "Job.batch/v1": jobs } }).expect(200);
});

test("unknown routes answer 404 JSON", async () => {
  const res = await request(app()).post("/sync/nothing").send({}).expect(404);
  assert.equal(res.body.error, "not_found");
});

test("a hook that throws answers 500 and never 200", async () => {
  const [cron] = configureControllers({});
  const broken = { ...cron!.def, sync: () => { throw new Error("boom"); } };
  const a = createApp({ controllers: [{ def: broken, options: undefined }], logger: silentLogger, clock: () => NOW });
  const res = await request(a).post("/sync/cronjob").send({ parent }).expect(500);
  assert.equal(res.body.error, "internal");
});

test("a hook that builds an invalid response answers 500", async () => {
  const [cron] = configureControllers({});
  const broken = { ...cron!.def, sync: () => ({ response: { status: {}, children: [{ kind: "Job" }] } as any, decisions: [] }) };
  const a = createApp({ controllers: [{ def: broken, options: undefined }], logger: silentLogger, clock: () => NOW });
  const res = await request(a).post("/sync/cronjob").send({ parent }).expect(500);
  assert.match(res.body.message, /invalid response/);
});

test("one structured log line per hook call, without the request body", async () => {
  const lines: any[] = [];
  const sink = new Writable({ write(chunk, _enc, cb) { lines.push(JSON.parse(String(chunk))); cb(); } });
  const logger = pino({ level: "info" }, sink);
  const secret = "do-not-log-this-value";
  await request(app(logger))
    .post("/sync/cronjob")
    .set("X-Request-Id", "req-123")
    .set("Authorization", "Bearer abc")
    .send({ parent: { ...parent, metadata: { ...parent.metadata, annotations: { note: secret } } } })
    .expect(200);
  const hookLines = lines.filter((l) => l.controller === "cronjob");
  assert.equal(hookLines.length, 1);
  const line = hookLines[0];
  assert.equal(line.requestId, "req-123");
  assert.equal(line.hook, "sync");
  assert.equal(line.parent, "default/hello");
  assert.equal(line.generation, 1);
  assert.equal(line.finalizing, false);
  assert.equal(typeof line.decision, "string");
  assert.equal(typeof line.durationMs, "number");
  assert.equal(line.res.statusCode, 200);
  const all = JSON.stringify(lines);
  assert.ok(!all.includes(secret), "request body leaked into logs");
  assert.ok(!all.includes("Bearer abc"), "authorization header leaked into logs");
});

test("valid JSON that is not an object (null, a number) answers 422, not 400", async () => {
  for (const body of ["null", "5", '"text"', "[]"]) {
    const res = await request(app()).post("/sync/cronjob").set("Content-Type", "application/json").send(body).expect(422);
    assert.equal(res.body.error, "invalid_request", body);
  }
});
