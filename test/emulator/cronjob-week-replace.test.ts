import { test } from "node:test";
import assert from "node:assert/strict";
import { FIVE_MINUTES, runWeek, scenarioDays } from "./cronjob-harness.ts";
import { seededRandom } from "../../src/emulator/random.ts";

const days = scenarioDays(1);

test(`CronJob emulated ${days === 1 ? "day" : `${days} days`}, */5 with Replace: a running Job is replaced (deleted with its Pod), every slot runs once on time`, async () => {
  const seed = 13;
  const { run, start, end, maxPassesPerSlot, lateWakeups } = await runWeek("Replace", seed, seededRandom(seed), days);
  try {
    assert.deepEqual(run.violations, []);
    assert.deepEqual(lateWakeups, []);
    assert.equal(run.created.length, (end - start) / FIVE_MINUTES - 1);
    for (const c of run.created) assert.ok(c.createdAt - c.scheduledAt < 1000, `${c.name} on time`);
    const replaced = run.passes.flatMap((p) => p.writes).filter((w) => w.op === "delete" && !w.error);
    assert.ok(replaced.length > 0);
    const pods = run.emu.store.list("v1", "Pod", "default");
    const jobNames = new Set(run.jobs().map((j) => j.metadata.name));
    for (const p of pods) assert.ok(jobNames.has(p.metadata.labels["job-name"]), `Pod ${p.metadata.name} has its Job (GC)`);
    assert.ok(maxPassesPerSlot <= 12, `at most 12 sync passes per slot (saw ${maxPassesPerSlot})`);
  } finally {
    await run.close();
  }
});
