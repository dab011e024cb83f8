// A timeout the client causes (a body trickled past the time budget or the request timeout) is the
// client's problem: logged at warn without a stack trace, never at error like a failure of ours.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { createApp } from "../../src/http/app.ts";
import { createListenerServer } from "../../src/http/listener.ts";
import { configureControllers } from "../../src/controllers/registry.ts";
import { slowPost } from "../helpers/slow-request.ts";
import { MINIMAL_CRONJOB_SYNC } from "../helpers/requests.ts";

/** A logger at info whose JSON lines land in `lines`. */
function capturingLogger() {
  const lines: Record<string, any>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n")) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: "info", formatters: { level: (label) => ({ level: label }) } }, sink), lines };
}

async function trickleUntilAnswered(options: { hookTimeBudgetMs: number; requestTimeoutMs: number }) {
  const { logger, lines } = capturingLogger();
  const app = createApp({ controllers: configureControllers({}), logger, hookTimeBudgetMs: options.hookTimeBudgetMs });
  const server = createListenerServer(app, { requestTimeoutMs: options.requestTimeoutMs, headersTimeoutMs: options.requestTimeoutMs });
  server.listen(0, "127.0.0.1");
  await new Promise<void>((r) => server.once("listening", () => r()));
  try {
    const stalled = slowPost(`http://127.0.0.1:${(server.address() as AddressInfo).port}/sync/cronjob`, JSON.stringify(MINIMAL_CRONJOB_SYNC));
    const answer = await stalled.answer;
    stalled.request.destroy();
    // The log line is written when the response closes.
    for (let i = 0; i < 50 && !lines.some((l) => l.req?.url === "/sync/cronjob"); i++) await new Promise((r) => setTimeout(r, 20));
    return { status: answer.status, line: lines.find((l) => l.req?.url === "/sync/cronjob") };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

test("a body trickled past HOOK_TIME_BUDGET_MS: 503 timeout, logged at warn without a stack", async () => {
  const { status, line } = await trickleUntilAnswered({ hookTimeBudgetMs: 300, requestTimeoutMs: 60_000 });
  assert.equal(status, 503);
  assert.ok(line, "the call was logged");
  assert.equal(line.level, "warn");
  assert.equal(line.res.statusCode, 503);
  assert.equal(line.err, undefined, "no error or stack trace for the client's slowness");
});

test("a body trickled past REQUEST_TIMEOUT_MS: 408, logged at warn without a stack", async () => {
  const { status, line } = await trickleUntilAnswered({ hookTimeBudgetMs: 60_000, requestTimeoutMs: 1000 });
  assert.equal(status, 408);
  assert.ok(line, "the call was logged");
  assert.equal(line.level, "warn", JSON.stringify(line));
  assert.equal(line.res.statusCode, 408, "the status the client got, not the response object's default 200");
  assert.equal(line.err, undefined, "no error or stack trace for the client's slowness");
});
