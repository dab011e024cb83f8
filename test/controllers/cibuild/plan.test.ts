import { test } from "node:test";
import assert from "node:assert/strict";
import { parseSyncRequest } from "../../../src/metacontroller/contract.ts";
import { observeCIBuild } from "../../../src/controllers/cibuild/observe.ts";
import { planSync, type CIBuildPlan } from "../../../src/controllers/cibuild/plan.ts";
import { OPTIONS, SEED_SPECS, childOf, deploymentStatus, jobStatus, lifecycle, observe, parent, request, sync } from "./world.ts";

const go = SEED_SPECS["build-go"]!;

/** The plan of one request, and the phase the answer to the same request writes. */
function planOf(body: unknown, now: string): { plan: CIBuildPlan; phase: unknown } {
  const parsed = parseSyncRequest(body);
  assert.ok(parsed.success);
  return { plan: planSync(observeCIBuild(parsed.data), new Date(now), OPTIONS), phase: sync(body, now).status.phase };
}

test("plan: the lifecycle goes Pending (Job created) → Building → Deploying → Ready, and status.phase is the variant's", () => {
  const stages = lifecycle("web", go).stages.map((s) => planOf(s.request, s.now));
  assert.deepEqual(
    stages.map((s) => [s.plan.kind, s.phase]),
    [
      ["Pending", "Pending"],
      ["Building", "Building"],
      ["Deploying", "Deploying"],
      ["Ready", "Ready"],
    ],
  );
  const first = stages[0]!.plan;
  assert.ok(first.kind === "Pending" && first.job === "create" && first.deployment.kind === "NoImage");
  const ready = stages[3]!.plan;
  assert.ok(ready.kind === "Ready" && ready.deployment.build.imageRef === ready.lastSuccessful.imageRef);
});

test("plan: suspend, a failed build, deploy disabled, a rollout past its deadline and a first poll are their own variants", () => {
  const life = lifecycle("web", go);
  const [fresh, running, succeeded] = life.stages;
  const statusAfter = (i: number) => life.stages[i]!.response.status;

  const suspended = planOf(request({ parent: parent({ ...go, suspend: true }, { name: "web", status: statusAfter(0) }), jobs: [life.runningJob], pods: [life.runningPod] }), running!.now);
  assert.equal(suspended.plan.kind, "Suspended");
  assert.equal(suspended.phase, "Suspended");

  const failedJob = observe(life.job, "2026-03-02T10:00:06Z", jobStatus("failed-backoff", "2026-03-02T10:00:06Z", "2026-03-02T10:03:00Z"));
  const failed = planOf(request({ parent: parent(go, { name: "web", status: statusAfter(1) }), jobs: [failedJob] }), "2026-03-02T10:03:01Z");
  assert.ok(failed.plan.kind === "BuildFailed" && failed.plan.job === "keep");
  assert.equal(failed.phase, "Failed");

  const noDeploy = { ...go, deploy: { enabled: false } };
  const built = planOf(request({ parent: parent(noDeploy, { name: "web", status: statusAfter(1) }), jobs: [life.doneJob], pods: [life.donePod] }), succeeded!.now);
  assert.ok(built.plan.kind === "Succeeded" && built.plan.deployment.kind === "Disabled");
  assert.equal(built.phase, "Succeeded");

  const stuck = observe(life.deployment, "2026-03-02T10:04:32Z", deploymentStatus(1, 0, { deadline: true }));
  const rolloutFailed = planOf(request({ parent: parent(go, { name: "web", status: statusAfter(2) }), jobs: [life.doneJob], pods: [life.donePod], deployments: [stuck] }), "2026-03-02T10:20:00Z");
  assert.equal(rolloutFailed.plan.kind, "RolloutFailed");
  assert.equal(rolloutFailed.phase, "Failed");

  const polling = { ...go, triggers: { poll: { interval: "5m" } } };
  const held = planOf(request({ parent: parent(polling, { name: "web" }) }), fresh!.now);
  assert.ok(held.plan.kind === "Held" && held.plan.job === "none" && held.plan.triggers !== undefined);
  assert.equal(held.phase, "Pending");
  assert.equal(childOf(sync(request({ parent: parent(polling, { name: "web" }) }), fresh!.now), "Job", life.job.metadata.name), undefined);
});

test("plan: a succeeded Job whose Pod has not reported the digest is Building, with a wake-up", () => {
  const life = lifecycle("web", go);
  const { plan } = planOf(request({ parent: parent(go, { name: "web", status: life.stages[1]!.response.status }), jobs: [life.doneJob] }), "2026-03-02T10:04:31Z");
  assert.ok(plan.kind === "Building" && plan.record.reason === "WaitingForDigest");
  assert.ok(plan.resyncAfterSeconds !== undefined && plan.resyncAfterSeconds > 0);
});
