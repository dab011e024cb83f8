/**
 * CIBuild following its branch under random pushes, branch moves, suspends, hook restarts and
 * Metacontroller faults: the harness invariants hold (no unbuilt image deployed, no Deployment
 * deleted, no finished build re-run), at most two probe Jobs and two unfinished build Jobs (the cancelled one until Metacontroller deletes it) exist at
 * any time, and once the faults stop the loop settles on the branch head (built, or failed).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { loadCIBuildSample, startCIBuildRun } from "./cibuild-harness.ts";
import type { ControllerFaults } from "../../src/emulator/controller.ts";
import { seededRandom } from "../../src/emulator/random.ts";
import type { Obj } from "../../src/emulator/store.ts";
import { ANNOTATION_PUSHED_COMMIT } from "../../src/controllers/cibuild/naming.ts";
import { sha256Hex } from "../../src/kube/names.ts";


const action = fc.oneof(
  fc.record({ kind: fc.constant("commit" as const), push: fc.boolean() }),
  fc.constant({ kind: "repush" as const }),
  fc.constant({ kind: "suspend" as const }),
  fc.constant({ kind: "resume" as const }),
  fc.record({ kind: fc.constant("hook-restart" as const), downSeconds: fc.integer({ min: 1, max: 120 }) }),
  fc.constant({ kind: "nothing" as const }),
);

const scenario = fc.record({
  seed: fc.integer(),
  failRate: fc.double({ min: 0, max: 0.4, noNaN: true }),
  cancelInProgress: fc.boolean(),
  faults: fc.record({
    staleCacheRate: fc.double({ min: 0, max: 0.4, noNaN: true }),
    hookResponseLossRate: fc.double({ min: 0, max: 0.2, noNaN: true }),
    childWriteErrorRate: fc.double({ min: 0, max: 0.2, noNaN: true }),
  }),
  events: fc.array(fc.record({ waitSeconds: fc.integer({ min: 1, max: 200 }), action }), { minLength: 1, maxLength: 8 }),
});

const isProbe = (j: Obj) => j.metadata.labels?.["cicd.cicd.com/probe"] !== undefined;
const finished = (j: Obj) => (j.status?.conditions ?? []).some((c: Obj) => (c.type === "Complete" || c.type === "Failed") && c.status === "True");

test("CIBuild with push and poll under random events and faults: at most two probe Jobs and two unfinished builds (a cancelled one until deleted), settles on the branch head", async () => {
  await fc.assert(
    fc.asyncProperty(scenario, async ({ seed, failRate, cancelInProgress, faults, events }) => {
      const rng = seededRandom(seed);
      const f: ControllerFaults = { rng, ...faults };
      let head = sha256Hex("commit-0").slice(0, 40);
      const failing = new Set<string>();
      const refOf = (job: Obj) => ((job.spec?.template?.spec?.initContainers ?? []).find((c: Obj) => c.name === "git-sync")?.args ?? []).find((a: string) => a.startsWith("--ref="))?.slice(6) ?? "";
      const commitOf = (job: Obj) => (/^[0-9a-f]{40}$/.test(refOf(job)) ? refOf(job) : head);
      const run = await startCIBuildRun({
        faults: f,
        commitFor: commitOf,
        messageFor: (job, c) => (c === "ls-remote" && isProbe(job) ? head : undefined),
        jobPlan: (job) =>
          isProbe(job)
            ? { startAfterSeconds: 1, runSeconds: 2 }
            : failing.has(commitOf(job))
              ? { startAfterSeconds: 2, runSeconds: 20, outcome: "Failed", failure: { container: "build", message: "error building image: exit status 1" } }
              : { startAfterSeconds: 2, runSeconds: 10 + Math.floor(rng() * 80) },
      });
      const violations: string[] = [];
      run.emu.store.watch(() => {
        const jobs = run.children(cr, "Job").filter((j) => !j.metadata.deletionTimestamp);
        const probes = jobs.filter(isProbe).length;
        const building = jobs.filter((j) => !isProbe(j) && !finished(j)).length;
        if (probes > 2) violations.push(`${probes} probe Jobs`);
        if (building > 2) violations.push(`${building} unfinished build Jobs`);
      });
      const cr0 = loadCIBuildSample("go");
      const cr: Obj = { ...cr0, spec: { ...cr0.spec, triggers: { push: { secretRef: { name: "cibuild-webhook" } }, poll: { interval: "1m" }, cancelInProgress } } };
      const push = (sha: string) => {
        const seenAt = new Date(run.emu.now()).toISOString().replace(/\.\d{3}Z$/, "Z");
        run.emu.store.patch({ apiVersion: cr.apiVersion, kind: cr.kind, namespace: "default", name: cr.metadata.name }, (o) => {
          o.metadata.annotations = { ...(o.metadata.annotations ?? {}), [ANNOTATION_PUSHED_COMMIT]: JSON.stringify({ sha, ref: "refs/heads/main", repository: "github.com/victorpaulo/microservices", defaultBranch: true, seenAt }) };
        });
      };
      try {
        run.apply(cr);
        let n = 0;
        for (const { waitSeconds, action: a } of events) {
          await run.emu.runFor(waitSeconds, 5000);
          const live = run.live(cr)!;
          if (a.kind === "commit") {
            head = sha256Hex(`commit-${++n}`).slice(0, 40);
            if (rng() < failRate) failing.add(head);
            if (a.push) push(head);
          }
          if (a.kind === "repush") push(head);
          if (a.kind === "suspend") run.apply({ ...live, spec: { ...live.spec, suspend: true } });
          if (a.kind === "resume") run.apply({ ...live, spec: { ...live.spec, suspend: false } });
          if (a.kind === "hook-restart") {
            await run.server.stop();
            run.emu.scheduler.after(a.downSeconds * 1000, "hook service back", () => run.server.start());
          }
        }
        Object.assign(f, { staleCacheRate: 0, hookResponseLossRate: 0, childWriteErrorRate: 0 });
        await run.server.start();
        const live0 = run.live(cr)!;
        run.apply({ ...live0, spec: { ...live0.spec, suspend: false } });
        await run.emu.runFor(900, 20000);
        assert.deepEqual(run.violations, []);
        assert.deepEqual([...new Set(violations)], []);
        const live = run.live(cr)!;
        assert.equal(live.status.latestCommit?.sha, head, "the latest seen commit is the branch head");
        if (failing.has(head)) {
          assert.equal(live.status.phase, "Failed", JSON.stringify(live.status.conditions));
        } else {
          assert.equal(live.status.phase, "Ready", JSON.stringify(live.status.conditions));
          assert.equal(live.status.lastSuccessfulBuild.commitSHA, head);
        }
      } finally {
        await run.server.stop();
      }
    }),
    { numRuns: 8, seed: 20261201, endOnFailure: true },
  );
});
