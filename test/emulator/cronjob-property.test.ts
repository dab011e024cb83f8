import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { ControllerFaults } from "../../src/emulator/controller.ts";
import { FIVE_MINUTES, randomJobs, startCronJobRun } from "./cronjob-harness.ts";
import { seededRandom } from "../../src/emulator/random.ts";


const action = fc.oneof(
  fc.constant({ kind: "suspend" as const }),
  fc.constant({ kind: "resume" as const }),
  fc.constantFrom("*/5 * * * *", "*/10 * * * *", "7,31 * * * *", "@hourly").map((schedule) => ({ kind: "schedule" as const, schedule })),
  fc.record({ kind: fc.constant("hook-restart" as const), downSeconds: fc.integer({ min: 1, max: 900 }) }),
  fc.record({ kind: fc.constant("controller-outage" as const), downSeconds: fc.integer({ min: 1, max: 3600 }) }),
  fc.constant({ kind: "nothing" as const }),
);

const scenario = fc.record({
  seed: fc.integer(),
  deadline: fc.option(fc.integer({ min: 10, max: 600 }), { nil: undefined }),
  faults: fc.record({
    staleCacheRate: fc.double({ min: 0, max: 0.5, noNaN: true }),
    hookResponseLossRate: fc.double({ min: 0, max: 0.2, noNaN: true }),
    childWriteErrorRate: fc.double({ min: 0, max: 0.2, noNaN: true }),
    childWriteLossRate: fc.double({ min: 0, max: 0.2, noNaN: true }),
  }),
  events: fc.array(fc.record({ waitMinutes: fc.integer({ min: 1, max: 40 }), action }), { minLength: 1, maxLength: 6 }),
});

/** Runs the random scenarios, the policy drawn from `policies` by the scenario's seed. */
async function checkPolicies(policies: Array<"Allow" | "Forbid" | "Replace">, numRuns: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(scenario.map((s) => ({ ...s, policy: policies[Math.abs(s.seed) % policies.length]! })), async ({ seed, policy, deadline, faults, events }) => {
      const rng = seededRandom(seed);
      const f: ControllerFaults = { rng, ...faults };
      const run = await startCronJobRun({
        start: new Date("2026-06-01T00:00:00Z"),
        spec: { schedule: "*/5 * * * *", concurrencyPolicy: policy, startingDeadlineSeconds: deadline },
        jobPlan: randomJobs(rng),
        faults: f,
      });
      try {
        for (const { waitMinutes, action: a } of events) {
          await run.emu.runFor(waitMinutes * 60, 5000);
          if (a.kind === "suspend") run.updateSpec({ suspend: true });
          if (a.kind === "resume") run.updateSpec({ suspend: false });
          if (a.kind === "schedule") run.updateSpec({ schedule: a.schedule });
          if (a.kind === "hook-restart") {
            await run.server.stop();
            run.emu.scheduler.after(a.downSeconds * 1000, "hook service back", () => run.server.start());
          }
          if (a.kind === "controller-outage") {
            run.controller.stop();
            run.emu.scheduler.after(a.downSeconds * 1000, "Metacontroller back", () => run.controller.start());
          }
        }
        Object.assign(f, { staleCacheRate: 0, hookResponseLossRate: 0, childWriteErrorRate: 0, childWriteLossRate: 0 });
        run.updateSpec({ suspend: false, schedule: "*/5 * * * *" });
        await run.server.start();
        if (!run.controller.running) run.controller.start();
        await run.emu.runFor(1800, 5000);
        // After recovery every slot runs on time again.
        const end = run.emu.now();
        await run.emu.runFor(1800, 5000);
        const recent = run.created.filter((c) => c.scheduledAt > end && c.scheduledAt < end + 1800_000);
        const expected = Math.ceil((end + 1800_000) / FIVE_MINUTES) - Math.floor(end / FIVE_MINUTES) - 1;
        if (policy !== "Forbid") assert.equal(recent.length, expected, `slots after recovery (${policy})`);
        assert.deepEqual(run.violations, []);
      } finally {
        await run.server.stop();
      }
    }),
    { numRuns, seed: 20261129, endOnFailure: true },
  );
}

test("CronJob under random events and faults: no slot twice, Forbid/Replace never two active, history limits, resync > 0, on time after recovery", async () => {
  await checkPolicies(["Allow", "Forbid", "Replace"], 8);
});
