import { test } from "node:test";
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import http, { type Server } from "node:http";
import { Writable } from "node:stream";
import request from "supertest";
import { pino } from "pino";
import { createApp, type AppOptions } from "../../src/http/app.ts";
import { createAdminApp } from "../../src/http/admin.ts";
import { createMetrics, boundedLabel, type HookMetrics } from "../../src/http/metrics.ts";
import { BearerToken, bearerCredentials } from "../../src/http/auth.ts";
import { configureControllers, type ConfiguredController } from "../../src/controllers/registry.ts";
import type { Decision } from "../../src/controllers/types.ts";
import { silentLogger } from "../helpers/silent-logger.ts";
import { eventually, slowPost, send } from "../helpers/slow-request.ts";
import { MINIMAL_CRONJOB } from "../helpers/requests.ts";

const NOW = new Date("2026-01-05T12:00:30Z");
const TOKEN = "tok-3f9c2a7d1e-very-secret";

const parent = MINIMAL_CRONJOB;
const syncBody = { parent, children: { "Job.batch/v1": {} } };

function cronjob(): ConfiguredController {
  const [c] = configureControllers({}).filter((x) => x.def.name === "cronjob");
  assert.ok(c);
  return c;
}

/** The cronjob controller with its sync replaced (same kind, route and response validation). */
function withSync(sync: ConfiguredController["def"]["sync"]): ConfiguredController {
  const c = cronjob();
  return { def: { ...c.def, sync }, options: c.options };
}

function app(extra: Partial<AppOptions> = {}) {
  const metrics = extra.metrics ?? createMetrics();
  const a = createApp({ controllers: [cronjob()], logger: silentLogger, clock: () => NOW, metrics, ...extra });
  return { app: a, metrics };
}

async function metricsText(metrics: HookMetrics): Promise<string> {
  return metrics.registry.metrics();
}

async function listen(a: ReturnType<typeof createApp>): Promise<{ server: Server; url: string }> {
  const server = a.listen(0, "127.0.0.1");
  await new Promise<void>((r) => server.once("listening", () => r()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
}

test("a sync call is counted by controller, hook, code and outcome, with its duration", async () => {
  const { app: a, metrics } = app();
  await request(a).post("/sync/cronjob").send(syncBody).expect(200);
  await request(a).post("/sync/cronjob").send({ hello: 1 }).expect(422);
  await request(a).post("/finalize/cronjob").set("Content-Type", "application/json").send("{x").expect(400);
  const text = await metricsText(metrics);
  assert.match(text, /metahooks_hook_requests_total\{controller="cronjob",hook="sync",code="200",outcome="ok"\} 1/);
  assert.match(text, /metahooks_hook_requests_total\{controller="cronjob",hook="sync",code="422",outcome="invalid_request"\} 1/);
  assert.match(text, /metahooks_hook_requests_total\{controller="cronjob",hook="finalize",code="400",outcome="bad_request"\} 1/);
  assert.match(text, /metahooks_hook_duration_seconds_count\{controller="cronjob",hook="sync",outcome="ok"\} 1/);
  assert.match(text, /metahooks_hook_duration_seconds_bucket\{le="10",controller="cronjob",hook="sync",outcome="ok"\} 1/);
  assert.match(text, /metahooks_hook_request_size_bytes_count\{controller="cronjob",hook="sync"\} 2/);
  assert.match(text, /metahooks_hook_children_desired_count\{controller="cronjob",hook="sync"\} 1/);
  assert.match(text, /metahooks_hook_in_flight_requests 0/);
});

test("decisions are counted by action and reason, never by object name; unbounded values become 'other'", async () => {
  const decisions: Decision[] = [
    { action: "create", object: "hello-29000000" },
    { action: "skip", reason: "Forbid" },
    { action: "skip", reason: "Forbid" },
    { action: "invalid", reason: "InvalidSchedule" },
    { action: "prune", reason: "hello-28999990", object: "hello-28999990" },
  ];
  const noAdmission = withSync(() => ({ response: { status: {}, children: [] }, decisions, invalidReason: "InvalidSchedule" }));
  noAdmission.def = { ...noAdmission.def, admission: undefined };
  const { app: a, metrics } = app({ controllers: [noAdmission] });
  await request(a).post("/sync/cronjob").send(syncBody).expect(200);
  const text = await metricsText(metrics);
  assert.match(text, /metahooks_decisions_total\{controller="cronjob",action="create",reason=""\} 1/);
  assert.match(text, /metahooks_decisions_total\{controller="cronjob",action="skip",reason="Forbid"\} 2/);
  assert.match(text, /metahooks_decisions_total\{controller="cronjob",action="prune",reason="other"\} 1/);
  assert.match(text, /metahooks_parents_invalid_total\{controller="cronjob",reason="InvalidSchedule"\} 1/);
  assert.ok(!text.includes("hello-29000000") && !text.includes("hello-28999990"), "a child name became a label");
  assert.ok(!text.includes('parent="') && !text.includes("default/hello"), "a parent key became a label");
});

test("invalid parents are counted by the reason the hook reports; nothing is validated a second time", async () => {
  const c = cronjob();
  const reporting: ConfiguredController = {
    def: {
      ...c.def,
      sync: (req) => ({
        response: { status: { conditions: [{ type: "Ready", status: (req.parent.spec as any)?.schedule === "bad" ? "False" : "True", reason: "X" }] }, children: [] },
        decisions: [],
        ...((req.parent.spec as any)?.schedule === "bad" ? { invalidReason: "InvalidSchedule" } : {}),
      }),
      admission: {
        validate: () => {
          throw new Error("the HTTP layer re-validated the parent");
        },
        defaultSpec: (s) => s,
      },
    },
    options: c.options,
  };
  const { app: a, metrics } = app({ controllers: [reporting] });
  await request(a).post("/sync/cronjob").send({ ...syncBody, parent: { ...parent, spec: { ...parent.spec, schedule: "bad" } } }).expect(200);
  await request(a).post("/sync/cronjob").send(syncBody).expect(200);
  await request(a).post("/finalize/cronjob").send({ ...syncBody, parent: { ...parent, spec: { ...parent.spec, schedule: "bad" } } }).expect(200);
  const text = await metricsText(metrics);
  assert.match(text, /metahooks_parents_invalid_total\{controller="cronjob",reason="InvalidSchedule"\} 1\n/);
});

test("the real CronJob hook: a valid CronJob with a long name, blocked by Forbid, is not an invalid parent", async () => {
  // 54 characters: over admission's create-time rule (52) but its Job names still fit in 63, so
  // the hook runs it; the old metric re-ran admission validation and counted NameTooLong.
  const name = "n".repeat(54);
  const running = {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: `${name}-29462399`, namespace: "default", uid: "j-1" },
    spec: {},
    status: { active: 1, startTime: "2026-01-05T11:59:00Z" },
  };
  const forbid = {
    ...parent,
    metadata: { ...parent.metadata, name },
    spec: { ...parent.spec, concurrencyPolicy: "Forbid" },
    status: { lastScheduleTime: "2026-01-05T11:59:00Z" },
  };
  const { app: a, metrics } = app({ controllers: configureControllers({}) });
  const res = await request(a).post("/sync/cronjob").send({ parent: forbid, children: { "Job.batch/v1": { [running.metadata.name]: running } } }).expect(200);
  const scheduling = res.body.status.conditions.find((c: any) => c.type === "Scheduling");
  assert.equal(scheduling?.reason, "ConcurrencyForbidden");
  const text = await metricsText(metrics);
  assert.equal((text.match(/^metahooks_parents_invalid_total\{/gm) ?? []).length, 0, text.split("\n").filter((l) => l.includes("parents_invalid")).join("\n"));
});

test("the real CronJob hook: an invalid schedule is counted once by its condition reason, a valid one not at all", async () => {
  const { app: a, metrics } = app({ controllers: configureControllers({}) });
  await request(a).post("/sync/cronjob").send({ ...syncBody, parent: { ...parent, spec: { ...parent.spec, schedule: "61 * * * *" } } }).expect(200);
  await request(a).post("/sync/cronjob").send(syncBody).expect(200);
  const text = await metricsText(metrics);
  assert.match(text, /metahooks_parents_invalid_total\{controller="cronjob",reason="InvalidSchedule"\} 1\n/);
  assert.equal((text.match(/^metahooks_parents_invalid_total\{/gm) ?? []).length, 1);
});

test("boundedLabel keeps CamelCase words and maps anything else to 'other'", () => {
  assert.equal(boundedLabel("MissedDeadline"), "MissedDeadline");
  assert.equal(boundedLabel("too_many"), "too_many");
  assert.equal(boundedLabel(undefined), "");
  assert.equal(boundedLabel("a.b"), "other");
  assert.equal(boundedLabel("x".repeat(65)), "other");
  assert.equal(boundedLabel("héllo"), "other");
});

test("with authentication, hook routes need the bearer token; health stays open", async () => {
  const token = new BearerToken(TOKEN);
  const { app: a, metrics } = app({ authenticate: (h) => token.matches(h) });
  for (const header of [undefined, "Bearer wrong", `Basic ${TOKEN}`, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, "Bearer"]) {
    const r = request(a).post("/sync/cronjob");
    if (header) r.set("Authorization", header);
    const res = await r.send(syncBody).expect(401);
    assert.equal(res.body.error, "unauthorized");
    assert.equal(typeof res.body.requestId, "string");
    assert.match(String(res.headers["www-authenticate"]), /^Bearer/);
    assert.ok(!JSON.stringify(res.body).includes(TOKEN.slice(0, 8)));
  }
  await request(a).post("/sync/cronjob").set("Authorization", `Bearer ${TOKEN}`).send(syncBody).expect(200);
  await request(a).post("/sync/cronjob").set("Authorization", `bearer ${TOKEN}`).send(syncBody).expect(200);
  await request(a).get("/healthz").expect(200);
  await request(a).get("/readyz").expect(200);
  const text = await metricsText(metrics);
  assert.match(text, /code="401",outcome="unauthorized"\} 6/);
});

test("the 401 is decided before the body is read or counted against the concurrency cap", async () => {
  const token = new BearerToken(TOKEN);
  const { app: a } = app({ authenticate: (h) => token.matches(h), maxConcurrentHooks: 1, bodyLimitBytes: 1024 });
  // Over the body limit and unauthenticated: authentication answers first.
  const res = await request(a).post("/sync/cronjob").send({ pad: "x".repeat(4096) }).expect(401);
  assert.equal(res.body.error, "unauthorized");
});

test("BearerToken compares whole tokens and parses the header strictly", () => {
  const t = new BearerToken("abc");
  assert.equal(t.matches("Bearer abc"), true);
  assert.equal(t.matches("Bearer  abc "), true);
  assert.equal(t.matches("Bearer abcd"), false);
  assert.equal(t.matches("Bearer ab"), false);
  assert.equal(t.matches("Bearer abc def"), false);
  assert.equal(t.matches(""), false);
  assert.equal(t.matches(undefined), false);
  t.replace("xyz");
  assert.equal(t.matches("Bearer abc"), false);
  assert.equal(t.matches("Bearer xyz"), true);
  assert.equal(bearerCredentials("Token abc"), undefined);
});

test("beyond MAX_CONCURRENT_HOOKS a call answers 429 with Retry-After, and the slot frees afterwards", async () => {
  // A slot is held from the moment the body is complete until the answer is written; an answer
  // the client does not read (20 MB, far beyond the socket buffers) holds it.
  const big = withSync((req) => ({
    response: { status: (req.parent.spec as any)?.big ? { pad: "x".repeat(20_000_000) } : {}, children: [] },
    decisions: [],
  }));
  const { app: a, metrics } = app({ controllers: [big], maxConcurrentHooks: 1 });
  const { server, url } = await listen(a);
  try {
    const held = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const body = JSON.stringify({ ...syncBody, parent: { ...parent, spec: { ...parent.spec, big: true } } });
      const req = http.request(`${url}/sync/cronjob`, { method: "POST", headers: { "Content-Type": "application/json" } }, (res) => {
        res.pause();
        resolve(res);
      });
      req.on("error", reject);
      req.end(body);
    });
    assert.equal(held.statusCode, 200);
    assert.match(await metricsText(metrics), /metahooks_hook_in_flight_requests 1/);
    const rejected = await send(`${url}/sync/cronjob`, JSON.stringify(syncBody));
    assert.equal(rejected.status, 429);
    assert.equal(rejected.headers["retry-after"], "1");
    assert.equal(JSON.parse(rejected.body).error, "overloaded");
    // Health is never capped.
    assert.equal((await send(`${url}/healthz`)).status, 200);
    held.resume();
    await new Promise((r) => held.on("end", r));
    assert.ok(await eventually(async () => /metahooks_hook_in_flight_requests 0/.test(await metricsText(metrics))));
    assert.equal((await send(`${url}/sync/cronjob`, JSON.stringify(syncBody))).status, 200);
    assert.match(await metricsText(metrics), /code="429",outcome="overloaded"\} 1/);
  } finally {
    await stop(server);
  }
});

test("a body that does not arrive within the time budget answers 503 and closes the connection", async () => {
  const { app: a, metrics } = app({ hookTimeBudgetMs: 50 });
  const { server, url } = await listen(a);
  try {
    const stalled = slowPost(`${url}/sync/cronjob`, JSON.stringify(syncBody));
    const answer = await stalled.answer;
    assert.equal(answer.status, 503);
    assert.equal(answer.headers.connection, "close");
    const body = JSON.parse(answer.body);
    assert.equal(body.error, "timeout");
    assert.match(body.message, /request body did not arrive within the time budget of 50 ms \(HOOK_TIME_BUDGET_MS\); the hook did not run/);
    stalled.request.destroy();
    // Counted apart from hooks that ran too long: the client was slow, not the hook.
    assert.match(await metricsText(metrics), /code="503",outcome="client_timeout"\} 1/);
  } finally {
    await stop(server);
  }
});

test("a hook that returns after the budget answers 503, never a late 200, and its decisions are not counted", async () => {
  const slowSync = () => {
    const end = process.hrtime.bigint() + 120_000_000n;
    while (process.hrtime.bigint() < end) {
      // busy: a hook is synchronous, so the budget can only be checked once it returns
    }
    return { response: { status: {}, children: [] }, decisions: [{ action: "create" }] };
  };
  const { app: a, metrics } = app({ hookTimeBudgetMs: 20, controllers: [withSync(slowSync)] });
  const res = await request(a).post("/sync/cronjob").send(syncBody).expect(503);
  assert.equal(res.body.error, "timeout");
  const text = await metricsText(metrics);
  assert.ok(!text.includes('action="create"'));
  assert.match(text, /outcome="timeout"/);
});

test("while draining every answer says Connection: close and hook calls are still served", async () => {
  let draining = false;
  const { app: a } = app({ isDraining: () => draining, isReady: () => !draining });
  const { server, url } = await listen(a);
  const agent = new http.Agent({ keepAlive: true });
  try {
    const before = await send(`${url}/sync/cronjob`, JSON.stringify(syncBody), { agent });
    assert.equal(before.status, 200);
    assert.equal(before.headers.connection, "keep-alive");
    draining = true;
    const during = await send(`${url}/sync/cronjob`, JSON.stringify(syncBody), { agent });
    assert.equal(during.status, 200);
    assert.equal(during.headers.connection, "close");
    assert.equal((await send(`${url}/readyz`, undefined, { agent })).status, 503);
  } finally {
    agent.destroy();
    await stop(server);
  }
});

test("admin app serves Prometheus text, health and readiness, and nothing else", async () => {
  const metrics = createMetrics(true);
  let ready = true;
  const admin = createAdminApp({ metrics, isReady: () => ready });
  const res = await request(admin).get("/metrics").expect(200);
  assert.match(String(res.headers["content-type"]), /^text\/plain/);
  assert.match(res.text, /# TYPE metahooks_hook_duration_seconds histogram/);
  assert.match(res.text, /metahooks_process_resident_memory_bytes \d+/);
  assert.match(res.text, /metahooks_nodejs_eventloop_lag_seconds/);
  await request(admin).get("/healthz").expect(200, { status: "ok" });
  await request(admin).get("/readyz").expect(200);
  ready = false;
  await request(admin).get("/readyz").expect(503);
  await request(admin).post("/sync/cronjob").send(syncBody).expect(404);
});

test("admin errors carry a request id like the hook app's, and a failed scrape is logged without its detail in the body", async () => {
  const metrics = createMetrics(false);
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _enc, cb) { lines.push(String(chunk)); cb(); } });
  const admin = createAdminApp({ metrics, logger: pino({ level: "info" }, sink) });
  const missing = await request(admin).get("/nope").expect(404);
  assert.match(missing.body.requestId, /^[0-9a-f-]{36}$/, "a fresh UUID when the caller sent none");
  assert.equal(missing.headers["x-request-id"], missing.body.requestId);
  const echoed = await request(admin).get("/nope").set("X-Request-Id", "probe-42").expect(404);
  assert.equal(echoed.body.requestId, "probe-42");
  const odd = await request(admin).get("/nope").set("X-Request-Id", "<script>").expect(404);
  assert.notEqual(odd.body.requestId, "<script>");
  assert.equal(lines.length, 0, "404s are not logged");

  metrics.registry.metrics = async () => {
    throw new Error("collector exploded: secret-detail");
  };
  const failed = await request(admin).get("/metrics").set("X-Request-Id", "scrape-7").expect(500);
  assert.deepEqual(failed.body, { error: "internal", message: "internal error; see the hook service logs", requestId: "scrape-7" });
  assert.equal(lines.length, 1);
  const line = JSON.parse(lines[0]!);
  assert.equal(line.level, 50);
  assert.equal(line.requestId, "scrape-7");
  assert.match(line.err.message, /collector exploded/);
});

test("no secret in logs, metrics or error bodies: bearer tokens and JSON excerpts", async () => {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _enc, cb) { lines.push(String(chunk)); cb(); } });
  const logger = pino({ level: "trace" }, sink);
  const token = new BearerToken(TOKEN);
  const { app: a, metrics } = app({ logger, authenticate: (h) => token.matches(h) });
  const bodies: string[] = [];
  const wrong = "Bearer wrong-but-also-secret-4711";
  bodies.push((await request(a).post("/sync/cronjob").set("Authorization", wrong).send(syncBody)).text);
  bodies.push((await request(a).post("/sync/cronjob").set("Authorization", `Bearer ${TOKEN}`).send(syncBody)).text);
  bodies.push(
    (await request(a).post("/sync/cronjob").set("Authorization", `Bearer ${TOKEN}`).set("Content-Type", "application/json").send('{"password":"hunter2-secret" oops')).text,
  );
  const everything = [...lines, ...bodies, await metricsText(metrics)].join("\n");
  for (const secret of [TOKEN, "wrong-but-also-secret-4711", "hunter2-secret"]) {
    assert.ok(!everything.includes(secret), `${secret} leaked`);
  }
  assert.ok(lines.some((l) => l.includes('"statusCode":401')), "the 401 was logged");
});
