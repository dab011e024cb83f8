// Real-world CIBuild failure cases, one test each at least. The B-numbers only trace them to the
// bug-report inputs they came from; each test name states the behaviour.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, symlinkSync, readdirSync, readFileSync, existsSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { PREPARE_SCRIPT } from "../../../src/controllers/cibuild/build-job.ts";
import { isDns1123Label, isLabelValue } from "../../../src/kube/names.ts";
import { assertValidKubeObject } from "../../helpers/k8s-schema.ts";
import { DIGEST, SEED_SPECS, SHA, buildPod, builtOutcomes, childOf, jobStatus, lifecycle, observe, parent, request, sync } from "./world.ts";

const go = SEED_SPECS["build-go"]!;
const fresh = (spec: Record<string, unknown>, name = "build-go") => sync(request({ parent: parent(spec, { name }) }), "2026-03-02T10:00:05Z");
const podSpec = (job: any) => job.spec.template.spec;
const container = (job: any, name: string) =>
  [...(podSpec(job).initContainers ?? []), ...podSpec(job).containers].find((c: any) => c.name === name);

/**
 * Runs the real prepare script against a git-sync v4 style layout in a temp dir. `links` are
 * symlinks committed in the repository (path in the worktree → link target, verbatim).
 */
function runPrepare(files: Record<string, string>, contextDir: string, dockerfile: string, links: Record<string, string> = {}) {
  const root = mkdtempSync(join(tmpdir(), "cibuild-prepare-"));
  const sha = SHA;
  const worktree = join(root, "src", ".worktrees", sha);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(worktree, path, ".."), { recursive: true });
    writeFileSync(join(worktree, path), content);
  }
  mkdirSync(worktree, { recursive: true });
  for (const [path, target] of Object.entries(links)) {
    mkdirSync(join(worktree, path, ".."), { recursive: true });
    symlinkSync(target, join(worktree, path));
  }
  symlinkSync(`.worktrees/${sha}`, join(root, "src", "repo"));
  const termination = join(root, "termination-log");
  // The script's fixed paths are rewritten to the temp dir only for this test.
  const script = PREPARE_SCRIPT.replaceAll("/workspace", root).replaceAll("/dev/termination-log", termination);
  let exitCode = 0;
  try {
    execFileSync("sh", ["-c", script], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", CONTEXT_DIR: contextDir, DOCKERFILE: dockerfile }, stdio: "pipe" });
  } catch (err) {
    exitCode = (err as { status: number }).status;
  }
  return { root, exitCode, message: existsSync(termination) ? readFileSync(termination, "utf8") : "" };
}

test("B1: the context is copied out of git-sync's symlink into a plain directory, dotfiles included", () => {
  const job = childOf(fresh(go), "Job")! as any;
  assert.equal(container(job, "git-sync").args.includes("--link=repo"), true);
  assert.ok(container(job, "build").args.includes("--context=dir:///workspace/context"));
  const run = runPrepare({ "app1/Dockerfile": "FROM scratch\n", "app1/.dockerignore": "secret\n", "app1/src/main.go": "package main\n" }, "app1", "Dockerfile");
  assert.equal(run.exitCode, 0);
  assert.equal(run.message, SHA, "the termination message is the commit SHA only");
  assert.deepStrictEqual(readdirSync(join(run.root, "context")).sort(), [".dockerignore", "Dockerfile", "src"]);
});

test("B2: a missing context dir or Dockerfile fails the build with a reason; bad paths never get a Job", () => {
  const missingDir = runPrepare({ "app1/Dockerfile": "FROM scratch\n" }, "does-not-exist", "Dockerfile");
  assert.equal(missingDir.exitCode, 2);
  assert.match(missingDir.message, /^ContextDirNotFound: /);
  const missingFile = runPrepare({ "app1/main.go": "x" }, "app1", "Dockerfile");
  assert.equal(missingFile.exitCode, 3);
  assert.match(missingFile.message, /^DockerfileNotFound: /);
  // A hostile value stays data: no command substitution happens.
  const hostile = runPrepare({ "app1/Dockerfile": "x" }, "$(touch pwned)", "Dockerfile");
  assert.equal(hostile.exitCode, 2);
  assert.equal(existsSync(join(hostile.root, "pwned")), false);
  assert.equal(existsSync("pwned"), false);

  // Through the hook: the prepare container's message becomes the build's reason.
  const spec = { ...go, subContext: "does-not-exist" };
  const job = childOf(fresh(spec), "Job")!;
  const failed = observe(job, "2026-03-02T10:00:06Z", jobStatus("failed-policy", "2026-03-02T10:00:06Z", "2026-03-02T10:01:00Z"));
  const pod = buildPod(job, "a", "2026-03-02T10:00:07Z", { "git-sync": {}, prepare: { exitCode: 2, message: missingDir.message } });
  const r = sync(request({ parent: parent(spec), jobs: [failed], pods: [pod] }), "2026-03-02T10:01:01Z");
  const cond = (r.status.conditions as any[]).find((c) => c.type === "BuildSucceeded");
  assert.equal(cond.status, "False");
  assert.equal(cond.reason, "ContextDirNotFound");
  assert.equal(childOf(r, "Deployment"), undefined);

  for (const subContext of ["../x", "/etc"]) {
    const invalid = fresh({ ...go, subContext });
    assert.equal(invalid.status.phase, "Invalid");
    assert.equal(invalid.children.length, 0);
  }
});

test("prepare never follows a symlink out of the checkout: context dir or Dockerfile leaving it is refused with the reason", () => {
  const files = { "app1/Dockerfile": "FROM scratch\n", "secret/Dockerfile": "FROM scratch\n" };
  // A context dir that is (or passes through) a link to /etc, or climbs out with ../..
  for (const [contextDir, links] of [
    ["etc", { etc: "/etc" }],
    ["up", { up: "../.." }],
    ["up/.worktrees", { up: "../.." }],
    ["app2", { app2: "../../../../.." }],
  ] as Array<[string, Record<string, string>]>) {
    const run = runPrepare(files, contextDir, "passwd", links);
    assert.equal(run.exitCode, 2, contextDir);
    assert.match(run.message, /^ContextDirNotFound: directory \S+ resolves outside the checkout at commit [0-9a-f]{40}\n$/, contextDir);
    assert.equal(existsSync(join(run.root, "context")), false, "nothing copied");
  }
  // A Dockerfile that is a link out of the checkout, or out of the context (only the context is
  // copied to where the builder reads it).
  for (const [dockerfile, links] of [
    ["Dockerfile.host", { "app1/Dockerfile.host": "/etc/passwd" }],
    ["Dockerfile.up", { "app1/Dockerfile.up": `${"../".repeat(12)}etc/passwd` }],
    ["Dockerfile.sibling", { "app1/Dockerfile.sibling": "../secret/Dockerfile" }],
  ] as Array<[string, Record<string, string>]>) {
    const run = runPrepare(files, "app1", dockerfile, links);
    assert.equal(run.exitCode, 3, dockerfile);
    assert.match(run.message, /^DockerfileNotFound: file \S+ in app1 resolves outside the context directory at commit [0-9a-f]{40}\n$/, dockerfile);
    assert.equal(existsSync(join(run.root, "context")), false, "nothing copied");
  }
  // Links that stay inside are fine.
  const inside = runPrepare(files, "current", "Dockerfile.link", { current: "app1", "app1/Dockerfile.link": "Dockerfile" });
  assert.equal(inside.exitCode, 0, inside.message);
  assert.equal(inside.message, SHA);
  assert.deepStrictEqual(readdirSync(join(inside.root, "context")).sort(), ["Dockerfile", "Dockerfile.link"]);
  const root = runPrepare({ Dockerfile: "FROM scratch\n" }, ".", "Dockerfile");
  assert.equal(root.exitCode, 0, root.message);
});

test("property: whatever symlinks a repository commits, prepare copies a context only from inside the checkout", () => {
  const segment = fc.constantFrom("..", ".", "app1", "lib", "/etc", "/", "loop", "nowhere");
  const target = fc.array(segment, { minLength: 1, maxLength: 5 }).map((parts) => parts.join("/").replace(/^\/+/, "/").replace(/\/{2,}/g, "/"));
  fc.assert(
    fc.property(
      fc.oneof(fc.constantFrom("app1", "./app1", "lib/../app1", "."), target),
      fc.oneof(fc.constantFrom("Dockerfile", "./Dockerfile", "../app1/Dockerfile", "../lib/x"), target),
      fc.constantFrom("ctx", "ctx/app1", "app1"),
      (ctxTarget, dfTarget, contextDir) => {
        const files = { "app1/Dockerfile": "FROM scratch\n", "lib/x": "x" };
        const links = { ctx: ctxTarget, "app1/Dockerfile.link": dfTarget, loop: "loop" };
        const run = runPrepare(files, contextDir, "Dockerfile.link", links);
        const worktree = realpathSync(join(run.root, "src", ".worktrees", SHA));
        if (run.exitCode === 0) {
          // Only when both resolve inside: the context inside the checkout, the Dockerfile inside the context.
          const ctx = realpathSync(join(worktree, contextDir));
          assert.ok(`${ctx}/`.startsWith(`${worktree}/`), `${contextDir} → ${ctx}`);
          assert.ok(realpathSync(join(ctx, "Dockerfile.link")).startsWith(`${ctx}/`));
        } else {
          assert.ok(run.exitCode === 2 || run.exitCode === 3, `exit ${run.exitCode}: ${run.message}`);
          assert.match(run.message, run.exitCode === 2 ? /^ContextDirNotFound: / : /^DockerfileNotFound: /);
          assert.equal(existsSync(join(run.root, "context")), false, "nothing copied");
        }
        rmSync(run.root, { recursive: true, force: true });
      },
    ),
    { numRuns: 40 },
  );
});

test("B3: no branch means the remote's default branch (--ref=HEAD), never master", () => {
  for (const seed of ["build-go", "build-java", "build-nodejs"]) {
    const args: string[] = container(childOf(fresh(SEED_SPECS[seed]!, seed), "Job"), "git-sync").args;
    assert.ok(args.includes("--ref=HEAD"), seed);
    assert.ok(!args.some((a) => a.includes("master")), seed);
  }
  const ace: string[] = container(childOf(fresh(SEED_SPECS["build-ace"]!, "build-ace"), "Job"), "git-sync").args;
  assert.ok(ace.includes("--ref=dev"));
});

test("B4: only git-sync v4 flags as argv; no GIT_SYNC_* env and no v3 flags", () => {
  for (const spec of [go, { source: { git: { url: "https://h.example/o/r.git", cloneSecret: "creds" } }, output: { image: "r.example/a:1" } }]) {
    const git = container(childOf(fresh(spec), "Job"), "git-sync");
    assert.equal(git.command, undefined, "the image's entrypoint");
    for (const e of git.env ?? []) assert.doesNotMatch(e.name, /^GIT_SYNC_|^GIT_KNOWN_HOSTS$/);
    for (const a of git.args as string[]) {
      assert.match(a, /^--[a-z-]+(=|$)/, a);
      assert.doesNotMatch(a, /^--(branch|rev|dest|wait|change-permissions|ssh|max-sync-failures|timeout)(=|$)/, a);
    }
    assert.ok((git.args as string[]).includes("--one-time"));
  }
});

test("B5: the key Secret is mounted 0400, the pod has fsGroup 65533, git-sync runs as its non-root user", () => {
  const job = childOf(fresh(go), "Job") as any;
  const vol = podSpec(job).volumes.find((v: any) => v.name === "git-secret");
  assert.equal(vol.secret.defaultMode, 256);
  assert.equal(vol.secret.secretName, "git-creds");
  assert.equal(podSpec(job).securityContext.fsGroup, 65533);
  const git = container(job, "git-sync");
  assert.equal(git.securityContext.runAsUser, 65533);
  assert.equal(git.securityContext.runAsNonRoot, true);
  assert.notEqual(git.securityContext.runAsUser, 0);
  assert.ok(git.volumeMounts.some((m: any) => m.name === "git-secret" && m.readOnly === true && m.mountPath === "/etc/git-secret"));
});

test("B6: a wrong deploy key shows GitCloneFailed with git's error text; no Deployment, no rebuild loop", () => {
  const job = childOf(fresh(go), "Job")!;
  const log = '{"msg":"too many failures, aborting","error":"exit status 128: git@github.com: Permission denied (publickey)."}';
  const failed = observe(job, "2026-03-02T10:00:06Z", jobStatus("failed-backoff", "2026-03-02T10:00:06Z", "2026-03-02T10:01:00Z"));
  const pods = [0, 1].map((i) => buildPod(job, `p${i}`, `2026-03-02T10:00:0${7 + i}Z`, { "git-sync": { exitCode: 1, message: log } }));
  const r1 = sync(request({ parent: parent(go), jobs: [failed], pods }), "2026-03-02T10:01:01Z");
  assert.equal(r1.status.phase, "Failed");
  const cb = r1.status.currentBuild as any;
  assert.equal(cb.reason, "GitCloneFailed");
  assert.match(cb.message, /Permission denied \(publickey\)/);
  assert.equal(childOf(r1, "Deployment"), undefined);
  assert.deepStrictEqual(r1.children.map((c) => c.metadata.name), [job.metadata.name], "the failed Job is kept, not re-created under another name");
  // The Pods and the Job disappear: still Failed with the same reason, and nothing is built again.
  const r2 = sync(request({ parent: parent(go, { status: r1.status }) }), "2026-03-02T11:00:00Z");
  assert.deepStrictEqual(r2.children, []);
  assert.equal((r2.status.currentBuild as any).reason, "GitCloneFailed");
  assert.match((r2.status.currentBuild as any).message, /Permission denied/);
});

test("B7: a Job is never updated — new build inputs give a new Job name; the old one is kept or dropped by retention", () => {
  const L = lifecycle("build-go", go);
  const ready = L.stages[3]!;
  const spec = { ...go, SCMBranch: "release-2" };
  const r = sync(request({ parent: parent(spec, { generation: 2, status: ready.response.status }), jobs: [L.doneJob], pods: [L.donePod], deployments: [L.observedDeployment] }), "2026-03-02T11:00:00Z");
  const jobs = r.children.filter((c) => c.kind === "Job").map((j) => j.metadata.name);
  assert.equal(jobs.length, 2);
  assert.ok(jobs.includes(L.doneJob.metadata.name), "the deployed build's Job is kept");
  const newJob = jobs.find((n) => n !== L.doneJob.metadata.name)!;
  assert.notEqual(newJob, L.doneJob.metadata.name);
  // The Deployment keeps running the old image until the new build succeeds.
  assert.equal((childOf(r, "Deployment") as any).spec.template.spec.containers[0].image, `kind-registry:5000/microservices-app1@${DIGEST}`);
  // The kept old Job is re-emitted as observed (no spec change is ever sent for it).
  const kept = r.children.find((c) => c.metadata.name === L.doneJob.metadata.name) as any;
  assert.deepStrictEqual(kept.spec, (L.doneJob as any).spec);
});

test("B8: a finished build whose Job was deleted is final; build Jobs carry no TTL", () => {
  const L = lifecycle("build-go", go);
  assert.equal((L.job.spec as any).ttlSecondsAfterFinished, undefined);
  const ready = L.stages[3]!;
  const r = sync(request({ parent: parent(go, { status: ready.response.status }), deployments: [L.observedDeployment] }), "2026-03-02T12:00:00Z");
  assert.equal(r.children.filter((c) => c.kind === "Job").length, 0, "not re-created");
  assert.equal(r.status.phase, "Ready");
  assert.equal((r.status.currentBuild as any).phase, "Succeeded");
  // Even with status lost, the Deployment's build-hash annotation proves the build succeeded.
  const lost = sync(request({ parent: parent(go), deployments: [L.observedDeployment] }), "2026-03-02T12:00:00Z");
  assert.equal(lost.children.filter((c) => c.kind === "Job").length, 0);
  assert.equal((childOf(lost, "Deployment") as any).spec.template.spec.containers[0].image, `kind-registry:5000/microservices-app1@${DIGEST}`);
});

test("B9: every derived name and label value of a 60+ character CIBuild is a DNS-1123 label ≤ 63, deterministic", () => {
  const name = "payments-reconciliation-service-nightly-build-for-the-eu-west-1-region-and-more";
  const L = lifecycle(name, { ...go, deploy: { port: 8080 } });
  const first = JSON.stringify(L.stages.map((s) => s.response));
  const again = JSON.stringify(lifecycle(name, { ...go, deploy: { port: 8080 } }).stages.map((s) => s.response));
  assert.equal(first, again);
  for (const stage of L.stages) {
    for (const child of stage.response.children) {
      assertValidKubeObject(child);
      assert.ok(isDns1123Label(child.metadata.name), child.metadata.name);
      const labels = { ...child.metadata.labels, ...((child.spec as any)?.template?.metadata?.labels ?? {}), ...((child.spec as any)?.selector?.matchLabels ?? {}) };
      for (const v of Object.values(labels)) assert.ok(isLabelValue(String(v)) && String(v).length <= 63, String(v));
    }
  }
  assert.equal(L.job.metadata.name.length, 63);
});

test("only Pods the build Job controls are read: a Pod with a copied job-name label cannot choose the digest", () => {
  const job = childOf(fresh(go), "Job")!;
  const done = observe(job, "2026-03-02T10:00:06Z", jobStatus("complete", "2026-03-02T10:00:06Z", "2026-03-02T10:04:30Z"));
  const real = buildPod(job, "real1", "2026-03-02T10:00:07Z", builtOutcomes(job, SHA, DIGEST));
  const forged = structuredClone(real) as any;
  forged.metadata.name = `${job.metadata.name}-zzzzz`;
  forged.metadata.creationTimestamp = "2026-03-02T10:00:09Z"; // newer: would win if it were read
  forged.metadata.ownerReferences = [{ apiVersion: "v1", kind: "ReplicaSet", name: "evil", uid: "e0000000-0000-4000-8000-000000000000", controller: true }];
  const evil = "sha256:" + "e".repeat(64);
  forged.status.containerStatuses = forged.status.containerStatuses.map((c: any) =>
    c.name === "digest" ? { ...c, state: { terminated: { ...c.state.terminated, message: evil } } } : c,
  );
  const r = sync(request({ parent: parent(go), jobs: [done], pods: [real, forged] }), "2026-03-02T10:04:31Z");
  assert.equal((r.status.currentBuild as any).digest, DIGEST);
  const image = (childOf(r, "Deployment") as any).spec.template.spec.containers[0].image;
  assert.ok(image.endsWith(`@${DIGEST}`), image);
  assert.ok(!JSON.stringify(r).includes(evil));
});

test("a kaniko Job created before the digest step (kaniko as the main container) still reports its digest", () => {
  const job = childOf(fresh(go), "Job")! as any;
  const old = structuredClone(job);
  const pod = old.spec.template.spec;
  const kaniko = pod.initContainers.pop();
  kaniko.args = kaniko.args.map((a: string) => (a.startsWith("--digest-file=") ? "--digest-file=/dev/termination-log" : a));
  pod.containers = [kaniko];
  const done = observe(old, "2026-03-02T10:00:06Z", jobStatus("complete", "2026-03-02T10:00:06Z", "2026-03-02T10:04:30Z"));
  const p = buildPod(old, "old1", "2026-03-02T10:00:07Z", { "git-sync": {}, prepare: { message: SHA }, build: { message: DIGEST } });
  const r = sync(request({ parent: parent(go), jobs: [done], pods: [p] }), "2026-03-02T10:04:31Z");
  assert.equal((r.status.currentBuild as any).digest, DIGEST);
  assert.ok((childOf(r, "Deployment") as any).spec.template.spec.containers[0].image.endsWith(`@${DIGEST}`));
});
