import { test } from "node:test";
import assert from "node:assert/strict";
import { FIVE_MINUTES, runWeek, scenarioDays } from "./cronjob-harness.ts";
import { seededRandom } from "../../src/emulator/random.ts";

const days = scenarioDays(1);

test(`CronJob emulated ${days === 1 ? "day" : `${days} days`}, */5 with Allow: every slot runs once, on time; history limits hold; the loop quiesces`, async () => {
  const seed = 11;
  const { run, start, end, maxPassesPerSlot, lateWakeups } = await runWeek("Allow", seed, seededRandom(seed), days);
  try {
    assert.deepEqual(run.violations, []);
    assert.deepEqual(lateWakeups, []);
    const expected = (end - start) / FIVE_MINUTES - 1; // slots in (start, end): the one at `end` fires just after it
    assert.equal(run.created.length, expected, "one Job per slot");
    for (const c of run.created) {
      assert.equal(c.scheduledAt % FIVE_MINUTES, 0, `${c.name} is on a */5 slot`);
      assert.ok(c.createdAt - c.scheduledAt < 1000, `${c.name} created ${c.createdAt - c.scheduledAt} ms after its slot`);
    }
    assert.ok(maxPassesPerSlot <= 12, `at most 12 sync passes per slot (saw ${maxPassesPerSlot})`);
    assert.equal(await run.emu.settle(3), 0, "nothing left to do between slots");
    assert.ok(run.controller.pendingResync("default/hello")! <= end + FIVE_MINUTES + 1000, "a wake-up for the next slot is pending");
  } finally {
    await run.close();
  }
});
