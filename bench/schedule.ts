/**
 * Cost of schedule evaluation: the most-recent-slot lookup after a year of missed `* * * * *`
 * slots (525,600 of them) versus after one minute. A lookup that walked the missed slots would be
 * five orders of magnitude slower; the CronJob schedule module computes the slot directly.
 */
import { parseSchedule, SCHEDULE_CACHE_SIZE } from "../src/controllers/cronjob/schedule.ts";

export interface ScheduleCost {
  description: string;
  cases: { name: string; microseconds: number }[];
  /** year / minute */
  ratio: number;
}

function perCall(fn: () => unknown, iterations: number): number {
  const runs: number[] = [];
  for (let r = 0; r < 7; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) fn();
    runs.push(Number(process.hrtime.bigint() - start) / 1000 / iterations);
  }
  runs.sort((a, b) => a - b);
  return runs[3]!;
}

/** Measures the lookups (async for symmetry with the other measurements). */
export async function scheduleCost(): Promise<ScheduleCost | undefined> {
  const now = new Date("2026-01-05T12:00:30Z");
  const minuteAgo = new Date(now.getTime() - 60_000 - 30_000);
  const yearAgo = new Date(now.getTime() - 365 * 24 * 3600_000);
  const cases: { name: string; microseconds: number }[] = [];
  for (const zone of ["UTC", "America/New_York"]) {
    const parsed = parseSchedule("* * * * *", zone);
    if (!parsed.ok) throw new Error(parsed.message);
    const s = parsed.schedule;
    const a = s.latestSlot(now, minuteAgo)?.toISOString();
    const b = s.latestSlot(now, yearAgo)?.toISOString();
    if (a !== "2026-01-05T12:00:00.000Z" || a !== b) throw new Error(`unexpected slots ${a} ${b}`);
    cases.push({ name: `\`* * * * *\` ${zone}, last slot 1 minute ago`, microseconds: perCall(() => s.latestSlot(now, minuteAgo), 2000) });
    cases.push({ name: `\`* * * * *\` ${zone}, last slot 1 year ago (525,600 missed slots)`, microseconds: perCall(() => s.latestSlot(now, yearAgo), 2000) });
  }
  const parse = perCall(() => parseSchedule("*/5 9-17 * * MON-FRI", "Europe/Berlin"), 2000);
  cases.push({ name: "parseSchedule `*/5 9-17 * * MON-FRI` in Europe/Berlin, memo hit (every sync after the first)", microseconds: parse });
  // More distinct texts than the memo keeps, in a cycle: every call compiles.
  const texts = Array.from({ length: 2 * SCHEDULE_CACHE_SIZE }, (_, i) => `${i % 60} ${Math.floor(i / 60) % 24} * * MON-FRI`);
  let i = 0;
  const compile = perCall(() => parseSchedule(texts[i++ % texts.length]!, "Europe/Berlin"), 2000);
  cases.push({ name: "parseSchedule in Europe/Berlin, memo miss (compiles)", microseconds: compile });
  const ratio = (cases[1]!.microseconds + cases[3]!.microseconds) / (cases[0]!.microseconds + cases[2]!.microseconds);
  return {
    description:
      "`parseSchedule(...).latestSlot(now, after)` from src/controllers/cronjob/schedule.ts, in process, 2,000 calls per run, median of 7 runs. " +
      "`after` is the last schedule time: one minute before now, or one year before now (a year of missed `* * * * *` slots).",
    cases,
    ratio,
  };
}
