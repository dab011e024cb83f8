/**
 * CIBuild following its branch in the emulated Metacontroller loop: poll probes, pushes recorded
 * as the receiver records them (the pushed-commit annotation), a push during a build, a failed
 * build keeping the old Deployment, and suspend.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadCIBuildSample, startCIBuildRun, type CIBuildRun } from "./cibuild-harness.ts";
import type { Obj } from "../../src/emulator/store.ts";
import type { JobPlan } from "../../src/emulator/world.ts";
import { ANNOTATION_PUSHED_COMMIT } from "../../src/controllers/cibuild/naming.ts";


const A = "a1".repeat(20);
const B = "b2".repeat(20);
const C = "c3".repeat(20);

/** A git server whose default branch head the test moves. */
class Remote {
  head = A;
  /** Commits whose build fails. */
  readonly failing = new Set<string>();
  refOf(job: Obj): string {
    const args: string[] = (job.spec?.template?.spec?.initContainers ?? []).find((c: Obj) => c.name === "git-sync")?.args ?? [];
    return args.find((a) => a.startsWith("--ref="))?.slice("--ref=".length) ?? "";
  }
  commitOf(job: Obj): string {
    const ref = this.refOf(job);
    return /^[0-9a-f]{40}$/.test(ref) ? ref : this.head;
  }
  isProbe(job: Obj): boolean {
    return job.metadata.labels?.["cicd.cicd.com/probe"] !== undefined;
  }
  plan(buildSeconds: number) {
    return (job: Obj): JobPlan => {
      if (this.isProbe(job)) return { startAfterSeconds: 1, runSeconds: 2 };
      if (this.failing.has(this.commitOf(job))) {
        return { startAfterSeconds: 2, runSeconds: 20, outcome: "Failed", failure: { container: "build", message: "error building image: exit status 1" } };
      }
      return { startAfterSeconds: 2, runSeconds: buildSeconds };
    };
  }
}

async function withRemote(buildSeconds: number, body: (run: CIBuildRun, remote: Remote) => Promise<void>) {
  const remote = new Remote();
  const run = await startCIBuildRun({
    jobPlan: remote.plan(buildSeconds),
    commitFor: (job) => remote.commitOf(job),
    messageFor: (job, container) => (container === "ls-remote" && remote.isProbe(job) ? remote.head : undefined),
  });
  try {
    await body(run, remote);
    assert.deepEqual(run.violations, []);
  } finally {
    await run.close();
  }
}

function withTriggers(triggers: Record<string, unknown>): Obj {
  const cr = loadCIBuildSample("go");
  return { ...cr, spec: { ...cr.spec, triggers } };
}

/** What the push receiver does for a verified push to the default branch. */
function push(run: CIBuildRun, cr: Obj, sha: string): void {
  const seenAt = new Date(run.emu.now()).toISOString().replace(/\.\d{3}Z$/, "Z");
  const value = JSON.stringify({ sha, ref: "refs/heads/main", repository: "github.com/victorpaulo/microservices", defaultBranch: true, seenAt, provider: "github", delivery: `d-${sha.slice(0, 6)}-${seenAt}` });
  run.emu.store.patch({ apiVersion: cr.apiVersion, kind: cr.kind, namespace: "default", name: cr.metadata.name }, (o) => {
    o.metadata.annotations = { ...(o.metadata.annotations ?? {}), [ANNOTATION_PUSHED_COMMIT]: value };
  });
}

const condition = (obj: Obj | undefined, type: string) => (obj?.status?.conditions ?? []).find((c: Obj) => c.type === type);
const appImage = (run: CIBuildRun, cr: Obj) => run.children(cr, "Deployment")[0]?.spec.template.spec.containers[0].image;
const buildJobs = (run: CIBuildRun, cr: Obj) => run.children(cr, "Job").filter((j) => j.metadata.labels?.["cicd.cicd.com/probe"] === undefined);
const probeJobs = (run: CIBuildRun, cr: Obj) => run.children(cr, "Job").filter((j) => j.metadata.labels?.["cicd.cicd.com/probe"] !== undefined);

test("CIBuild poll: the first probe pins the first build; a new commit is built and rolled out within one interval; probes stay bounded", async () => {
  await withRemote(60, async (run, remote) => {
    const cr = withTriggers({ poll: { interval: "5m" } });
    run.apply(cr);
    await run.emu.runFor(200);
    let live = run.live(cr)!;
    assert.equal(live.status.phase, "Ready", JSON.stringify(live.status));
    assert.equal(run.builds.length, 1, "one build, pinned to the polled commit (no unpinned build first)");
    assert.equal(live.status.lastSuccessfulBuild.commitSHA, A);
    assert.deepEqual({ sha: live.status.latestCommit.sha, via: live.status.latestCommit.via, ref: live.status.latestCommit.ref }, { sha: A, via: "poll", ref: "HEAD" });
    assert.equal(condition(live, "UpToDate")?.reason, "LatestCommitBuilt");
    const before = appImage(run, cr);

    remote.head = B;
    await run.emu.runFor(300 + 120);
    live = run.live(cr)!;
    assert.equal(live.status.phase, "Ready", JSON.stringify(live.status));
    assert.equal(live.status.lastSuccessfulBuild.commitSHA, B);
    assert.equal(run.builds.length, 2);
    assert.notEqual(appImage(run, cr), before, "rolled out the new commit");

    // An hour without new commits: one probe per interval, nothing built, at most two probe Jobs kept.
    const probesBefore = run.probes.length;
    await run.emu.runFor(3600);
    assert.equal(run.builds.length, 2, "same commit: nothing built");
    const polls = run.probes.length - probesBefore;
    assert.ok(polls >= 11 && polls <= 13, `${polls} probes in an hour at 5m`);
    assert.ok(probeJobs(run, cr).length <= 2, `${probeJobs(run, cr).length} probe Jobs kept`);
  });
});

test("CIBuild push: builds exactly the pushed commit; the same commit pushed again changes nothing", async () => {
  await withRemote(60, async (run) => {
    const cr = withTriggers({ push: { secretRef: { name: "cibuild-webhook" } } });
    run.apply(cr);
    await run.emu.runFor(200);
    assert.equal(run.live(cr)!.status.phase, "Ready");
    assert.equal(run.live(cr)!.status.lastSuccessfulBuild.commitSHA, A, "created: the branch head is built at once");
    assert.equal(condition(run.live(cr), "UpToDate")?.reason, "WaitingForCommit");

    push(run, cr, B);
    await run.emu.runFor(5);
    const job = buildJobs(run, cr).find((j) => j.metadata.annotations?.["cicd.cicd.com/commit"] === B);
    assert.ok(job, "a build Job pinned to the pushed commit");
    const gitSync = job.spec.template.spec.initContainers.find((c: Obj) => c.name === "git-sync");
    assert.ok(gitSync.args.includes(`--ref=${B}`));
    assert.equal(condition(run.live(cr), "UpToDate")?.reason, "BuildRunning");
    await run.emu.runFor(200);
    const live = run.live(cr)!;
    assert.equal(live.status.phase, "Ready");
    assert.equal(live.status.lastSuccessfulBuild.commitSHA, B);
    assert.equal(live.status.latestCommit.via, "push");
    assert.equal(run.builds.length, 2);

    push(run, cr, B); // a redelivery or another push of the same commit
    await run.emu.runFor(120);
    assert.equal(run.builds.length, 2, "same commit: no new build");
    assert.equal(condition(run.live(cr), "UpToDate")?.reason, "LatestCommitBuilt");
    assert.equal(await run.emu.settle(3), 0);
  });
});

/** Applies `cr`, lets its first build deploy, then pushes B and, 30 s later while B builds, C. */
async function pushTwiceDuringBuild(run: CIBuildRun, cr: Obj): Promise<void> {
  run.apply(cr);
  await run.emu.runFor(200);
  push(run, cr, B);
  await run.emu.runFor(30);
  push(run, cr, C);
  await run.emu.runFor(5);
}

test("CIBuild push during a build: the older build is cancelled and only the newest commit is deployed", async () => {
  await withRemote(90, async (run) => {
    const cr = withTriggers({ push: { secretRef: { name: "cibuild-webhook" } } });
    await pushTwiceDuringBuild(run, cr);
    assert.ok(!buildJobs(run, cr).some((j) => j.metadata.annotations?.["cicd.cicd.com/commit"] === B), "the build of the older commit is cancelled (deleted)");
    await run.emu.runFor(200);
    const live = run.live(cr)!;
    assert.equal(live.status.phase, "Ready");
    assert.equal(live.status.lastSuccessfulBuild.commitSHA, C);
    assert.equal(run.builds.length, 3);
    assert.equal(run.deployedImages.length, 2, "deployed: the initial build, then only the newest commit");
  });
});

test("CIBuild push during a build with cancelInProgress false: the running build finishes and deploys, then the newest commit", async () => {
  await withRemote(90, async (run) => {
    const cr = withTriggers({ push: { secretRef: { name: "cibuild-webhook" } }, cancelInProgress: false });
    await pushTwiceDuringBuild(run, cr);
    assert.equal(condition(run.live(cr), "UpToDate")?.reason, "WaitingForRunningBuild");
    assert.ok(buildJobs(run, cr).some((j) => j.metadata.annotations?.["cicd.cicd.com/commit"] === B && !j.status?.conditions), "B keeps building");
    await run.emu.runFor(400);
    const live = run.live(cr)!;
    assert.equal(live.status.phase, "Ready");
    assert.equal(live.status.lastSuccessfulBuild.commitSHA, C);
    assert.equal(run.builds.length, 3);
    assert.equal(run.deployedImages.length, 3, "A, then B, then C");
  });
});

test("CIBuild failed build of a new commit keeps the previous Deployment serving", async () => {
  await withRemote(60, async (run, remote) => {
    const cr = withTriggers({ push: { secretRef: { name: "cibuild-webhook" } }, poll: { interval: "1m" } });
    run.apply(cr);
    await run.emu.runFor(200);
    assert.equal(run.live(cr)!.status.phase, "Ready");
    const image = appImage(run, cr);
    remote.failing.add(B);
    remote.head = B;
    push(run, cr, B);
    await run.emu.runFor(300);
    const live = run.live(cr)!;
    assert.equal(live.status.phase, "Failed");
    assert.equal(condition(live, "UpToDate")?.reason, "BuildFailed");
    assert.equal(appImage(run, cr), image, "the old image keeps serving");
    assert.equal(live.status.lastSuccessfulBuild.commitSHA, A);
    assert.equal(run.builds.length, 2, "the failed commit is not retried by the polls that keep seeing it");
  });
});

test("CIBuild suspend: pushes are recorded but nothing is built or polled; resume builds the latest commit", async () => {
  await withRemote(60, async (run, remote) => {
    const cr = withTriggers({ push: { secretRef: { name: "cibuild-webhook" } }, poll: { interval: "1m" } });
    run.apply(cr);
    await run.emu.runFor(200);
    run.apply({ ...cr, spec: { ...cr.spec, suspend: true } });
    await run.emu.runFor(10);
    const probes = run.probes.length;
    remote.head = C;
    push(run, cr, C);
    await run.emu.runFor(600);
    let live = run.live(cr)!;
    assert.equal(live.status.latestCommit.sha, C);
    assert.equal(condition(live, "UpToDate")?.reason, "Suspended");
    assert.equal(run.builds.length, 1);
    assert.equal(run.probes.length, probes, "no probes while suspended");
    run.apply({ ...cr, spec: { ...cr.spec, suspend: false } });
    await run.emu.runFor(200);
    live = run.live(cr)!;
    assert.equal(live.status.phase, "Ready");
    assert.equal(live.status.lastSuccessfulBuild.commitSHA, C);
  });
});
