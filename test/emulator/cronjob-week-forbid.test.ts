import { test } from "node:test";
import assert from "node:assert/strict";
import { FIVE_MINUTES, runWeek, scenarioDays } from "./cronjob-harness.ts";
import { seededRandom } from "../../src/emulator/random.ts";

const days = scenarioDays(1);

test(`CronJob emulated ${days === 1 ? "day" : `${days} days`}, */5 with Forbid (no deadline): never two active Jobs, no slot twice, late slots start when free`, async () => {
  const seed = 12;
  const { run, maxPassesPerSlot, lateWakeups } = await runWeek("Forbid", seed, seededRandom(seed), days);
  try {
    assert.deepEqual(run.violations, []);
    assert.deepEqual(lateWakeups, []);
    assert.ok(run.created.length > days * 150, `Jobs ran (${run.created.length})`);
    for (const c of run.created) assert.equal(c.scheduledAt % FIVE_MINUTES, 0, `${c.name} is on a */5 slot`);
    const late = run.created.filter((c) => c.createdAt - c.scheduledAt >= 1000);
    assert.ok(late.length > 0, "some slots waited for the running Job (random lengths up to 12 min)");
    // A waiting slot starts as soon as the running Job finishes: the pass triggered by its completion.
    assert.ok(maxPassesPerSlot <= 12, `at most 12 sync passes per slot (saw ${maxPassesPerSlot})`);
    assert.equal(await run.emu.settle(3), 0);
  } finally {
    await run.close();
  }
});
