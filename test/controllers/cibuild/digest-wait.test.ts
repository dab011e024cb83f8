import { test } from "node:test";
import assert from "node:assert/strict";
import { DIGEST, SEED_SPECS, buildPod, builtOutcomes, childOf, jobStatus, lifecycle, observe, parent, request, sync } from "./world.ts";
import { DIGEST_GRACE_SECONDS } from "../../../src/controllers/cibuild/digest-wait.ts";

const go = SEED_SPECS["build-go"]!;
const L = lifecycle("build-go", go);
const [fresh, running] = L.stages as [any, any];
const job = childOf(fresh.response, "Job")!;
// The build Job completes at 10:04:30 (as in the lifecycle).
const doneJob = observe(job, "2026-03-02T10:00:06Z", jobStatus("complete", "2026-03-02T10:00:06Z", "2026-03-02T10:04:30Z"));
const donePod = buildPod(job, "x7k2p", "2026-03-02T10:00:07Z", builtOutcomes(job, "3f2a9c4e5b6d7e8f90a1b2c3d4e5f60718293a4b", DIGEST));
const appImage = (res: any) => (childOf(res, "Deployment") as any)?.spec.template.spec.containers[0].image as string | undefined;

test("Pod cache behind the Job cache: the build waits, then rolls out once, straight to the digest", () => {
  // The Job succeeded; the Pod is still seen running (its digest not yet observed).
  const lagging = sync(request({ parent: parent(go, { status: running.response.status }), jobs: [doneJob], pods: [L.runningPod] }), "2026-03-02T10:04:31Z");
  assert.equal(childOf(lagging, "Deployment"), undefined, "nothing is deployed while the digest is missing");
  assert.equal(lagging.status.phase, "Building");
  assert.equal((lagging.status as any).currentBuild.reason, "WaitingForDigest");
  assert.equal((lagging.status as any).lastSuccessfulBuild, undefined);
  assert.ok(lagging.resyncAfterSeconds !== undefined && lagging.resyncAfterSeconds > 0 && lagging.resyncAfterSeconds <= 5);
  assert.ok(childOf(lagging, "Job", job.metadata.name), "the build Job is kept");

  // The Pod arrives with the digest: the first Deployment already runs the digest.
  const caught = sync(request({ parent: parent(go, { status: lagging.status }), jobs: [doneJob], pods: [donePod] }), "2026-03-02T10:04:33Z");
  assert.equal(appImage(caught), `kind-registry:5000/microservices-app1@${DIGEST}`);
  assert.equal(caught.status.phase, "Deploying");
  assert.equal((caught.status as any).currentBuild.completionTime, "2026-03-02T10:04:30Z");
});

test("no Pod of a succeeded build observed: the tag is deployed once the grace after completion is over", () => {
  const at = (now: string) => sync(request({ parent: parent(go, { status: running.response.status }), jobs: [doneJob] }), now);
  const last = new Date(Date.parse("2026-03-02T10:04:30Z") + (DIGEST_GRACE_SECONDS - 1) * 1000).toISOString();
  const within = at(last);
  assert.equal(childOf(within, "Deployment"), undefined);
  assert.equal(within.resyncAfterSeconds, 1.1, "the wake-up lands just after the grace ends");
  const after = at(new Date(Date.parse("2026-03-02T10:04:30Z") + DIGEST_GRACE_SECONDS * 1000).toISOString());
  assert.equal(appImage(after), "kind-registry:5000/microservices-app1:cibuild-c50f2918c7");
  assert.equal(after.status.phase, "Deploying");
  assert.equal(after.resyncAfterSeconds, undefined);
});

test("a finished Pod that reports no digest is final: the tag is deployed at once", () => {
  const noDigest = buildPod(job, "x7k2p", "2026-03-02T10:00:07Z", builtOutcomes(job, "3f2a9c4e5b6d7e8f90a1b2c3d4e5f60718293a4b", ""));
  const res = sync(request({ parent: parent(go, { status: running.response.status }), jobs: [doneJob], pods: [noDigest] }), "2026-03-02T10:04:31Z");
  assert.equal(appImage(res), "kind-registry:5000/microservices-app1:cibuild-c50f2918c7");
});

test("while waiting for the digest, the previously deployed build keeps running", () => {
  const ready = L.stages[3] as any;
  const spec = { ...go, rebuildToken: "again" };
  const first = sync(request({ parent: parent(spec, { generation: 2, status: ready.response.status }), jobs: [doneJob], pods: [donePod], deployments: [L.observedDeployment] }), "2026-03-02T11:00:00Z");
  const newJob = childOf(first, "Job", `build-go-${first.status.buildHash as string}`)!;
  const newDone = observe(newJob, "2026-03-02T11:00:01Z", jobStatus("complete", "2026-03-02T11:00:01Z", "2026-03-02T11:03:00Z"));
  const res = sync(request({ parent: parent(spec, { generation: 2, status: first.status }), jobs: [doneJob, newDone], pods: [donePod], deployments: [L.observedDeployment] }), "2026-03-02T11:03:01Z");
  assert.equal(appImage(res), `kind-registry:5000/microservices-app1@${DIGEST}`, "the old digest stays deployed");
  assert.equal((res.status as any).currentBuild.reason, "WaitingForDigest");
});
