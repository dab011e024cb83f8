import { test } from "node:test";
import assert from "node:assert/strict";
import { buildsTake, failingClone, loadCIBuildSample, SEED_SAMPLES, startCIBuildRun, type CIBuildRun } from "./cibuild-harness.ts";
import { digestOf, repositoryOf } from "../../src/emulator/world.ts";


async function withRun(options: Parameters<typeof startCIBuildRun>[0], body: (run: CIBuildRun) => Promise<void>) {
  const run = await startCIBuildRun(options);
  try {
    await body(run);
    assert.deepEqual(run.violations, []);
  } finally {
    await run.close();
  }
}

const condition = (obj: { status?: { conditions?: Array<{ type: string; status: string; reason: string }> } } | undefined, type: string) =>
  obj?.status?.conditions?.find((c) => c.type === type);

for (const sample of SEED_SAMPLES) {
  test(`CIBuild seed sample ${sample}: apply → build Job → digest-pinned Deployment → Ready, then a fixed point`, async () => {
    await withRun({ jobPlan: buildsTake(90) }, async (run) => {
      const cr = loadCIBuildSample(sample);
      run.apply(cr);
      await run.emu.runFor(5);
      assert.equal(run.live(cr)!.status.phase, "Building");
      await run.emu.runFor(300);
      const live = run.live(cr)!;
      assert.equal(live.status.phase, "Ready", JSON.stringify(live.status));
      assert.equal(condition(live, "Ready")?.status, "True");
      const [job] = run.children(cr, "Job");
      assert.ok(job);
      const [dep] = run.children(cr, "Deployment");
      const expected = `${repositoryOf(cr.spec.imageDestination)}@${digestOf(job)}`;
      assert.equal(dep?.spec.template.spec.containers[0].image, expected, "pinned to the digest the build Pod reported");
      assert.equal(run.builds.length, 1, "built once");
      assert.ok(run.maxPassesPerInstant() <= 5, `fixed point within a few passes (saw ${run.maxPassesPerInstant()})`);
      assert.equal(await run.emu.settle(3), 0);
      const passes = run.passes.length;
      await run.emu.runFor(3600);
      assert.equal(run.passes.length, passes, "nothing happens for an hour once Ready");
    });
  });
}

test("CIBuild scaffold sample (no repository): Invalid, no children, no write loop", async () => {
  await withRun({}, async (run) => {
    const cr = loadCIBuildSample("scaffold");
    run.apply(cr);
    await run.emu.runFor(60);
    assert.equal(run.live(cr)!.status.phase, "Invalid");
    assert.equal(condition(run.live(cr), "SpecValid")?.status, "False");
    assert.deepEqual(run.children(cr, "Job"), []);
    assert.ok(run.passes.length <= 4, `${run.passes.length} passes`);
  });
});

test("CIBuild failing clone: Failed with GitCloneFailed and git-sync's message, no Deployment, never retried by itself", async () => {
  await withRun({ jobPlan: failingClone }, async (run) => {
    const cr = loadCIBuildSample("go");
    run.apply(cr);
    await run.emu.runFor(3600);
    const live = run.live(cr)!;
    assert.equal(live.status.phase, "Failed");
    const built = condition(live, "BuildSucceeded");
    assert.equal(built?.status, "False");
    assert.equal(built?.reason, "GitCloneFailed");
    assert.match(JSON.stringify(live.status), /Repository not found/);
    assert.deepEqual(run.children(cr, "Deployment"), []);
    assert.equal(run.builds.length, 1);
  });
});

test("CIBuild spec change during a build: the stale build is cancelled, only the new build is deployed", async () => {
  await withRun({ jobPlan: buildsTake(60) }, async (run) => {
    const cr = loadCIBuildSample("go");
    run.apply(cr);
    await run.emu.runFor(20);
    const [first] = run.children(cr, "Job");
    run.apply({ ...cr, spec: { ...cr.spec, SCMBranch: "release-2" } });
    await run.emu.runFor(300);
    const live = run.live(cr)!;
    assert.equal(live.status.phase, "Ready");
    assert.equal(run.builds.length, 2);
    assert.ok(!run.children(cr, "Job").some((j) => j.metadata.name === first!.metadata.name), "the superseded running build was removed");
    assert.equal(run.deployedImages.length, 1, "deployed once, from the new build");
    const newJob = run.children(cr, "Job").find((j) => j.metadata.name === run.builds[1]!.name)!;
    assert.ok(run.deployedImages[0]!.endsWith(digestOf(newJob)));
  });
});

test("CIBuild new revision while Ready: the app keeps its image until the new build succeeds, then rolls in place", async () => {
  await withRun({ jobPlan: buildsTake(60) }, async (run) => {
    const cr = loadCIBuildSample("nodejs");
    run.apply(cr);
    await run.emu.runFor(200);
    const dep = run.children(cr, "Deployment")[0]!;
    run.apply({ ...cr, spec: { ...cr.spec, SCMBranch: "v2" } });
    await run.emu.runFor(30);
    assert.equal(run.children(cr, "Deployment")[0]!.spec.template.spec.containers[0].image, run.deployedImages[0], "old image while building");
    await run.emu.runFor(300);
    const after = run.children(cr, "Deployment")[0]!;
    assert.equal(after.metadata.uid, dep.metadata.uid, "same Deployment, updated in place");
    assert.equal(run.deployedImages.length, 2);
    assert.equal(run.live(cr)!.status.phase, "Ready");
  });
});

test("CIBuild deploy-only change: no rebuild, the Deployment is updated in place", async () => {
  await withRun({ jobPlan: buildsTake(30) }, async (run) => {
    const cr = loadCIBuildSample("java");
    run.apply(cr);
    await run.emu.runFor(200);
    assert.equal(run.live(cr)!.status.phase, "Ready");
    run.apply({ ...cr, spec: { ...cr.spec, deploy: { replicas: 3 } } });
    await run.emu.runFor(120);
    assert.equal(run.builds.length, 1, "no rebuild");
    assert.equal(run.children(cr, "Deployment")[0]!.spec.replicas, 3);
    assert.equal(run.live(cr)!.status.phase, "Ready");
    assert.equal(run.deployedImages.length, 1);
  });
});

test("CIBuild deletion goes through the finalize hook: children removed, then the CIBuild", async () => {
  await withRun({ jobPlan: buildsTake(30) }, async (run) => {
    const cr = loadCIBuildSample("ace");
    run.apply(cr);
    await run.emu.runFor(200);
    const live = run.live(cr)!;
    assert.ok(live.metadata.finalizers?.includes("metacontroller.io/compositecontroller-cibuild-controller"));
    run.emu.delete(live);
    await run.emu.runFor(60);
    assert.equal(run.live(cr), undefined);
    assert.ok(run.passes.some((p) => p.hook === "finalize"));
    for (const kind of ["Job", "Deployment", "Service"] as const) assert.deepEqual(run.emu.store.list(kind === "Job" ? "batch/v1" : kind === "Deployment" ? "apps/v1" : "v1", kind, "default"), []);
    assert.deepEqual(run.emu.store.list("v1", "Pod", "default"), []);
  });
});

test("CIBuild with every hook at version v2 (namespace/name keys, strict decoding) reaches Ready the same way", async () => {
  await withRun({ jobPlan: buildsTake(30), hookVersion: "v2" }, async (run) => {
    const cr = loadCIBuildSample("go");
    run.apply(cr);
    await run.emu.runFor(200);
    assert.ok(run.passes.every((p) => p.ok), "no strict-decoding error");
    assert.equal(run.live(cr)!.status.phase, "Ready");
    assert.ok(Object.keys(run.passes.at(-1)!.request!.related["Pod.v1"] ?? {}).every((k) => k.startsWith("default/")));
  });
});

test("CIBuild failed build, then a rebuildToken: a new build runs and the app becomes Ready", async () => {
  let fail = true;
  await withRun(
    { jobPlan: () => (fail ? { startAfterSeconds: 2, runSeconds: 20, outcome: "Failed", failure: { container: "build", message: "error building image: exit status 1" } } : { startAfterSeconds: 2, runSeconds: 40 }) },
    async (run) => {
      const cr = loadCIBuildSample("go");
      run.apply(cr);
      await run.emu.runFor(120);
      assert.equal(run.live(cr)!.status.phase, "Failed");
      assert.equal(condition(run.live(cr), "BuildSucceeded")?.reason, "BuildFailed");
      fail = false;
      run.apply({ ...cr, spec: { ...cr.spec, rebuildToken: "retry-1" } });
      await run.emu.runFor(200);
      assert.equal(run.live(cr)!.status.phase, "Ready");
      assert.equal(run.builds.length, 2);
    },
  );
});

test("CIBuild status lost (wiped) while Ready: no rebuild, the Deployment stays, Ready again", async () => {
  await withRun({ jobPlan: buildsTake(30) }, async (run) => {
    const cr = loadCIBuildSample("nodejs");
    run.apply(cr);
    await run.emu.runFor(200);
    const dep = run.children(cr, "Deployment")[0]!;
    run.emu.store.patch({ apiVersion: cr.apiVersion, kind: cr.kind, namespace: "default", name: cr.metadata.name }, (o) => delete o.status, { subresource: "status" });
    await run.emu.runFor(120);
    assert.equal(run.live(cr)!.status.phase, "Ready");
    assert.equal(run.builds.length, 1, "no rebuild");
    const after = run.children(cr, "Deployment")[0]!;
    assert.equal(after.metadata.uid, dep.metadata.uid);
    assert.equal(after.spec.template.spec.containers[0].image, dep.spec.template.spec.containers[0].image, "same image (no rollout to the tag)");
  });
});

test("CIBuild suspend during a build cancels it; resume builds again and deploys", async () => {
  await withRun({ jobPlan: buildsTake(60) }, async (run) => {
    const cr = loadCIBuildSample("ace");
    run.apply(cr);
    await run.emu.runFor(20);
    run.apply({ ...cr, spec: { ...cr.spec, suspend: true } });
    await run.emu.runFor(60);
    assert.equal(run.live(cr)!.status.phase, "Suspended");
    assert.deepEqual(run.children(cr, "Job").filter((j) => !j.status?.conditions), [], "the running build was cancelled");
    run.apply({ ...cr, spec: { ...cr.spec, suspend: false } });
    await run.emu.runFor(200);
    assert.equal(run.live(cr)!.status.phase, "Ready");
    assert.equal(run.builds.length, 2, "the cancelled build ran again, once");
  });
});

test("CIBuild with the Pod cache behind the Job cache: the build waits for the digest, the Deployment rolls out once, to the digest", async () => {
  // Every sync reads Pods as they were at the start of the previous sync (parent and Jobs current).
  await withRun({ jobPlan: buildsTake(90), faults: { rng: () => 0, relatedStaleRate: 1 } }, async (run) => {
    const cr = loadCIBuildSample("go");
    run.apply(cr);
    await run.emu.runFor(300);
    const live = run.live(cr)!;
    assert.equal(live.status.phase, "Ready", JSON.stringify(live.status));
    const [job] = run.children(cr, "Job");
    const expected = `${repositoryOf(cr.spec.imageDestination)}@${digestOf(job!)}`;
    const images = new Set(
      run.passes.flatMap((p) => ((p.response?.children ?? []) as any[]).filter((c) => c.kind === "Deployment").map((c) => c.spec.template.spec.containers[0].image)),
    );
    assert.deepEqual([...images], [expected], "no answer ever asked for the tag");
    assert.ok(
      run.passes.some((p) => p.response?.status?.currentBuild?.reason === "WaitingForDigest"),
      "the lag was seen: one answer waited for the digest",
    );
    assert.equal(run.builds.length, 1);
  });
});
