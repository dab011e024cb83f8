/**
 * The decisions string of a hook call's log line is only built when a line will carry it: at
 * `info` for answered calls, and always for a call that blew its time budget (logged at error).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import request from "supertest";
import { pino } from "pino";
import { createApp } from "../../src/http/app.ts";
import { configureControllers, type ConfiguredController } from "../../src/controllers/registry.ts";
import type { Decision } from "../../src/controllers/types.ts";
import { MINIMAL_CRONJOB } from "../helpers/requests.ts";

const NOW = new Date("2026-01-05T12:00:30Z");
const body = { parent: MINIMAL_CRONJOB, children: { "Job.batch/v1": {} } };

/** A decision whose `object` counts its reads: only the log's decisions string reads it. */
function countingDecision(): { decision: Decision; reads: () => number } {
  let reads = 0;
  const decision = { action: "create", get object() { reads++; return "hello-1"; } } as Decision;
  return { decision, reads: () => reads };
}

function setup(level: string, sync: ConfiguredController["def"]["sync"], hookTimeBudgetMs?: number) {
  const [c] = configureControllers({}).filter((x) => x.def.name === "cronjob");
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({ write(chunk, _enc, cb) { lines.push(JSON.parse(String(chunk))); cb(); } });
  const app = createApp({
    controllers: [{ def: { ...c!.def, sync }, options: c!.options }],
    logger: pino({ level, base: null }, sink),
    clock: () => NOW,
    ...(hookTimeBudgetMs ? { hookTimeBudgetMs } : {}),
  });
  return { app, lines };
}

test("decisions are formatted for an info log line, and not at all when the level drops it", async () => {
  for (const [level, formatted] of [["info", true], ["warn", false]] as const) {
    const { decision, reads } = countingDecision();
    const { app, lines } = setup(level, () => ({ response: { status: {}, children: [] }, decisions: [decision] }));
    await request(app).post("/sync/cronjob").send(body).expect(200);
    assert.equal(reads() > 0, formatted, `level ${level}`);
    if (formatted) assert.equal(lines.find((l) => l.controller === "cronjob")?.decision, "create hello-1");
  }
});

test("a call past its time budget logs its decisions at error level even when info is off", async () => {
  const { decision } = countingDecision();
  const slow = () => {
    const end = process.hrtime.bigint() + 60_000_000n;
    while (process.hrtime.bigint() < end) {
      // a hook is synchronous: the budget is checked once it returns
    }
    return { response: { status: {}, children: [] }, decisions: [decision] };
  };
  const { app, lines } = setup("error", slow, 10);
  await request(app).post("/sync/cronjob").send(body).expect(503);
  assert.equal(lines.find((l) => l.controller === "cronjob")?.decision, "create hello-1");
});

test("one log line per call, fields in a fixed order: req, requestId, the route's fields, res, err (5xx), durationMs", async () => {
  const ok = setup("info", () => ({ response: { status: {}, children: [] }, decisions: [] }));
  await request(ok.app).post("/sync/cronjob").set("X-Request-Id", "req-1").send(body).expect(200);
  await request(ok.app).get("/healthz").expect(200);
  assert.equal(ok.lines.length, 1, "health checks are not logged");
  const line = ok.lines[0]!;
  assert.deepEqual(Object.keys(line), ["level", "time", "req", "requestId", "controller", "hook", "parent", "uid", "generation", "finalizing", "decision", "children", "res", "durationMs", "msg"]);
  assert.deepEqual(line.req, { method: "POST", url: "/sync/cronjob" });
  assert.equal(line.requestId, "req-1");
  assert.deepEqual(line.res, { statusCode: 200 });
  assert.equal(line.msg, "POST /sync/cronjob 200");
  assert.equal(line.level, 30);

  const failing = setup("info", () => {
    throw new Error("boom");
  });
  const res = await request(failing.app).post("/sync/cronjob").send(body).expect(500);
  const [error] = failing.lines;
  assert.deepEqual(Object.keys(error!), ["level", "time", "req", "requestId", "controller", "hook", "res", "err", "durationMs", "msg"]);
  assert.equal(error!.level, 50);
  assert.equal(error!.requestId, res.body.requestId);
  assert.match(String((error!.err as { message: string }).message), /boom/);
});
