/**
 * Cost of `metahooks simulate` on its heaviest common input: a week of an every-minute CronJob
 * (10,080 slots). `node --import tsx bench/simulate-week.ts [days] [schedule]`.
 * Prints wall time, CPU time of this process and hook calls; run it a few times and take the median.
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { simulateCronJob } from "../src/simulate/cronjob.ts";

const days = Number(process.argv[2] ?? 7);
const schedule = process.argv[3] ?? "* * * * *";
const cronJob = parse(readFileSync(new URL("../examples/cronjob/cronjob-sample.yaml", import.meta.url), "utf8"));
cronJob.spec.schedule = schedule;
const from = new Date("2026-03-26T00:00:00Z");
const to = new Date(from.getTime() + days * 86_400_000);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const r = await simulateCronJob({ cronJob, from, to, jobDurationSeconds: 20, jobFailureRate: 0.1, seed: 1 });
const wall = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
console.log(
  `${days} day(s) of ${JSON.stringify(schedule)}: ${r.summary.slots} slots, ${r.summary.created} Jobs, ${r.summary.hookCalls} hook calls, ` +
    `${r.events.length} timeline events; wall ${(wall / 1000).toFixed(2)} s, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s ` +
    `(${((wall * 1000) / r.summary.hookCalls).toFixed(0)} µs wall per hook call)`,
);
