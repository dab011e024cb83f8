// Per-call cost of the CronJob sync hook (pure function, no HTTP).
// Usage: npx tsx bench/cronjob-sync.ts
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { runHook } from "../src/metacontroller/run-hook.ts";
import { cronJobController } from "../src/controllers/cronjob/index.ts";
import { cronJob, job, request } from "../test/controllers/cronjob/builders.ts";

function measure(label: string, body: unknown, now: Date, iterations = 2000): void {
  for (let i = 0; i < 50; i++) runHook(cronJobController, "sync", body, now, undefined);
  const start = performance.now();
  for (let i = 0; i < iterations; i++) runHook(cronJobController, "sync", body, now, undefined);
  const us = ((performance.now() - start) / iterations) * 1000;
  console.log(`${label.padEnd(58)} ${us.toFixed(0).padStart(6)} µs/call`);
}

const now = new Date("2026-01-05T12:00:30Z");
measure("example: sample, one slot due", JSON.parse(readFileSync("examples/cronjob/sync-request.json", "utf8")), now);
measure("example: 8 Jobs, history pruning, one slot due", JSON.parse(readFileSync("examples/cronjob/sync-request-running.json", "utf8")), now);
measure("`* * * * *` New York, last run a year ago", request(cronJob({ spec: { schedule: "* * * * *", timeZone: "America/New_York" }, status: { lastScheduleTime: "2025-01-05T12:00:00Z" } })), now);
measure("`0 0 30 2 *` (never fires)", request(cronJob({ spec: { schedule: "0 0 30 2 *" } })), now, 200);
const many = Array.from({ length: 100 }, (_, i) => job("hello", new Date(Date.parse("2026-01-05T10:00:00Z") + i * 60000).toISOString(), i % 10 === 0 ? "failed" : "complete"));
measure("100 observed Jobs, limits 3/1", request(cronJob({ status: { lastScheduleTime: "2026-01-05T11:39:00Z" } }), many), now, 500);
