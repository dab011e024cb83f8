import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { loadCIBuildSample, startCIBuildRun } from "./cibuild-harness.ts";
import type { ControllerFaults } from "../../src/emulator/controller.ts";
import { seededRandom } from "../../src/emulator/random.ts";
import { digestOf } from "../../src/emulator/world.ts";


const action = fc.oneof(
  fc.constant({ kind: "revision" as const }),
  fc.record({ kind: fc.constant("replicas" as const), replicas: fc.integer({ min: 1, max: 4 }) }),
  fc.constant({ kind: "rebuild" as const }),
  fc.record({ kind: fc.constant("hook-restart" as const), downSeconds: fc.integer({ min: 1, max: 120 }) }),
  fc.constant({ kind: "controller-restart" as const }),
  fc.constant({ kind: "nothing" as const }),
);

const scenario = fc.record({
  seed: fc.integer(),
  failRate: fc.double({ min: 0, max: 0.5, noNaN: true }),
  faults: fc.record({
    staleCacheRate: fc.double({ min: 0, max: 0.5, noNaN: true }),
    hookResponseLossRate: fc.double({ min: 0, max: 0.3, noNaN: true }),
    childWriteErrorRate: fc.double({ min: 0, max: 0.3, noNaN: true }),
    childWriteLossRate: fc.double({ min: 0, max: 0.3, noNaN: true }),
  }),
  events: fc.array(fc.record({ waitSeconds: fc.integer({ min: 1, max: 150 }), action }), { minLength: 1, maxLength: 8 }),
});

test("CIBuild under random events and faults: never an unbuilt image, never a deleted Deployment, no finished build re-run; converges", async () => {
  await fc.assert(
    fc.asyncProperty(scenario, async ({ seed, failRate, faults, events }) => {
      const rng = seededRandom(seed);
      const f: ControllerFaults = { rng, ...faults };
      const run = await startCIBuildRun({
        faults: f,
        jobPlan: () => (rng() < failRate ? { startAfterSeconds: 2, runSeconds: 20, outcome: "Failed", failure: { container: "build", message: "error building image: exit status 1" } } : { startAfterSeconds: 2, runSeconds: 10 + Math.floor(rng() * 80) }),
      });
      try {
        const cr = loadCIBuildSample("go");
        run.apply(cr);
        let revision = 0;
        let token = 0;
        for (const { waitSeconds, action: a } of events) {
          await run.emu.runFor(waitSeconds, 5000);
          const live = run.live(cr)!;
          if (a.kind === "revision") run.apply({ ...live, spec: { ...live.spec, SCMBranch: `branch-${++revision}` } });
          if (a.kind === "replicas") run.apply({ ...live, spec: { ...live.spec, deploy: { ...(live.spec.deploy ?? {}), replicas: a.replicas } } });
          if (a.kind === "rebuild") run.apply({ ...live, spec: { ...live.spec, rebuildToken: `t${++token}` } });
          if (a.kind === "hook-restart") {
            await run.server.stop();
            run.emu.scheduler.after(a.downSeconds * 1000, "hook service back", () => run.server.start());
          }
          if (a.kind === "controller-restart") {
            run.controller.stop();
            run.controller.start();
          }
        }
        // Faults off, service up: the loop must settle on the truth.
        Object.assign(f, { staleCacheRate: 0, hookResponseLossRate: 0, childWriteErrorRate: 0, childWriteLossRate: 0 });
        await run.emu.runFor(1200, 5000);
        await run.server.start();
        await run.emu.runFor(1200, 5000);
        assert.deepEqual(run.violations, []);
        const live = run.live(cr)!;
        const current = run.children(cr, "Job").find((j) => j.metadata.labels?.["cicd.cicd.com/build-hash"] === live.status.buildHash);
        assert.ok(current, "the Job of the current inputs exists");
        const outcome = current.status?.conditions?.find((c: { type: string; status: string }) => c.status === "True" && (c.type === "Complete" || c.type === "Failed"))?.type;
        if (outcome === "Complete") {
          assert.equal(live.status.phase, "Ready", JSON.stringify(live.status.conditions));
          assert.ok(run.children(cr, "Deployment")[0]!.spec.template.spec.containers[0].image.endsWith(digestOf(current)));
        } else {
          assert.equal(outcome, "Failed");
          assert.equal(live.status.phase, "Failed");
        }
        const passes = run.passes.length;
        await run.emu.runFor(3600);
        assert.equal(run.passes.length, passes, "a fixed point: nothing happens for an hour");
      } finally {
        await run.server.stop();
      }
    }),
    { numRuns: 12, seed: 20261129, endOnFailure: true },
  );
});
