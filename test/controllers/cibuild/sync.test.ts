import { test } from "node:test";
import assert from "node:assert/strict";
import { loadGoldenCases } from "../../helpers/golden.ts";
import { runHook } from "../../../src/metacontroller/run-hook.ts";
import { ciBuildController } from "../../../src/controllers/cibuild/index.ts";
import { BUILDKIT_WRAPPER_SCRIPT, DIGEST_REPORT_SCRIPT, PREPARE_SCRIPT } from "../../../src/controllers/cibuild/build-job.ts";
import { summarizeTerminationMessage } from "../../../src/controllers/cibuild/build-state.ts";
import { OPTIONS, SEED_SPECS, SHA, buildPod, childOf, jobStatus, lifecycle, observe, parent, request, sync } from "./world.ts";

const go = SEED_SPECS["build-go"]!;
const golden = Object.fromEntries(loadGoldenCases("cibuild").map((c) => [c.name, c]));
const run = (name: string) => {
  const c = golden[name]!;
  return { req: c.request as any, res: runHook(ciBuildController, c.hook as any, c.request, c.now, OPTIONS) as { response: any; decisions: Array<{ action: string; object?: string; reason?: string }> } };
};
const names = (r: any, kind: string) => r.response.children.filter((c: any) => c.kind === kind).map((c: any) => c.metadata.name).sort();

test("spec change while building: the stale running Job is dropped (latest wins), a new Job is created", () => {
  const { req, res } = run("spec-change-while-building");
  const old = Object.keys(req.children["Job.batch/v1"])[0];
  assert.ok(!names(res, "Job").includes(old));
  assert.equal(names(res, "Job").length, 1);
  assert.ok(res.decisions.some((d) => d.action === "delete" && d.object === old && d.reason === "Superseded"));
  assert.ok(res.decisions.some((d) => d.action === "create" && d.reason === "NewBuild"));
});

test("deploy-only change: no rebuild, the Deployment is updated in place and a Service appears", () => {
  const { req, res } = run("deploy-only-change");
  assert.deepStrictEqual(names(res, "Job"), Object.keys(req.children["Job.batch/v1"]));
  const d = res.response.children.find((c: any) => c.kind === "Deployment") as any;
  assert.equal(d.spec.replicas, 3);
  assert.deepStrictEqual(d.spec.template.spec.containers[0].ports, [{ name: "http", containerPort: 8080, protocol: "TCP" }]);
  const svc = res.response.children.find((c: any) => c.kind === "Service") as any;
  assert.equal(svc.metadata.name, "svc-build-go");
  assert.deepStrictEqual(svc.spec.selector, { app: "app-build-go" });
  assert.equal(svc.spec.clusterIP, undefined);
  assert.equal(res.response.status.buildHash, req.parent.status.buildHash);
});

test("rebuild token: new Job; the app keeps its image until the new build succeeds, then rolls out by digest", () => {
  const { req, res } = run("rebuild-token");
  assert.equal(names(res, "Job").length, 2);
  const before = (req.children["Deployment.apps/v1"]["deploy-build-go"] as any).spec.template.spec.containers[0].image;
  assert.equal((res.response.children.find((c: any) => c.kind === "Deployment") as any).spec.template.spec.containers[0].image, before);
  const after = run("rebuild-succeeded-rolls-out");
  const image = (after.res.response.children.find((c: any) => c.kind === "Deployment") as any).spec.template.spec.containers[0].image;
  assert.match(image, /@sha256:1{64}$/);
  assert.equal(after.res.response.status.phase, "Deploying");
});

test("suspend cancels the running build and starts none; resuming builds again", () => {
  const { res } = run("suspend-running");
  assert.deepStrictEqual(names(res, "Job"), []);
  assert.equal(res.response.status.phase, "Suspended");
  assert.equal((res.response.status.currentBuild as any).phase, "Cancelled");
  const resumed = run("suspend-resume");
  assert.equal(names(resumed.res, "Job").length, 1);
  assert.equal(resumed.res.response.status.phase, "Pending");
});

test("retention keeps the current and deployed Jobs plus the newest succeeded/failed within the limits", () => {
  const { req, res } = run("retention");
  const jobs = Object.values(req.children["Job.batch/v1"]) as any[];
  const byToken = (phase: string) =>
    jobs
      .filter((j) => j.metadata.name !== "build-go-c50f2918c7" && (j.status.conditions ?? []).some((c: any) => c.type === phase && c.status === "True"))
      .sort((a, b) => (a.status.startTime < b.status.startTime ? 1 : -1))
      .map((j) => j.metadata.name);
  const kept = names(res, "Job");
  const newestSucceeded = byToken("Complete")[0];
  const newestFailed = byToken("Failed")[0];
  const running = jobs.find((j) => !j.status.conditions)!.metadata.name;
  assert.ok(kept.includes("build-go-c50f2918c7"), "deployed build kept");
  assert.ok(kept.includes(newestSucceeded) && kept.includes(newestFailed));
  assert.ok(!kept.includes(byToken("Complete")[1]) && !kept.includes(byToken("Failed")[1]));
  assert.ok(!kept.includes(running), "stale running Job dropped");
  assert.equal(kept.length, 4, "current + deployed + 1 succeeded + 1 failed");
});

test("lastTransitionTime only changes on a transition", () => {
  const L = lifecycle("build-go", go);
  const t = (r: any, type: string) => r.status.conditions.find((c: any) => c.type === type).lastTransitionTime;
  const [fresh, running, succeeded, ready] = L.stages.map((s) => s.response);
  assert.equal(t(running, "SpecValid"), t(fresh, "SpecValid"));
  assert.equal(t(running, "BuildSucceeded"), t(fresh, "BuildSucceeded"), "Unknown → Unknown is no transition");
  assert.notEqual(t(succeeded, "BuildSucceeded"), t(running, "BuildSucceeded"));
  assert.notEqual(t(ready, "Ready"), t(succeeded, "Ready"));
  assert.ok(!JSON.stringify(running!.status).includes("2026-03-02T10:01:00Z"), "status holds 'now' only on a transition");
});

test("user values reach containers only as whole argv elements or env values", () => {
  const hostile = "$(touch /pwned); `id` \"'\n";
  const spec = {
    source: { git: { url: "https://git.example.com/o/r.git", revision: "feature/x", cloneSecret: "c" }, contextDir: "a $(b)" },
    build: { dockerfile: "d $(e)/Dockerfile", target: "t$(x)", buildArgs: [{ name: "ARG", value: hostile }] },
    output: { image: "r.example.com/a:1" },
  };
  for (const strategy of ["kaniko", "buildkit"]) {
    const r = sync(request({ parent: parent({ ...spec, build: { ...spec.build, strategy } }) }), "2026-03-02T10:00:00Z");
    assert.equal(r.status.phase, "Pending", JSON.stringify(r.status.conditions));
    const pod = (childOf(r, "Job") as any).spec.template.spec;
    const scripts = [...pod.initContainers, ...pod.containers].flatMap((c: any) => (c.command?.[0] === "sh" ? [c.command[2]] : []));
    assert.deepStrictEqual(scripts.sort(), (strategy === "buildkit" ? [BUILDKIT_WRAPPER_SCRIPT, PREPARE_SCRIPT] : [DIGEST_REPORT_SCRIPT, PREPARE_SCRIPT]).sort());
    const build = [...pod.initContainers, ...pod.containers].find((c: any) => c.name === "build");
    const argv: string[] = build.args;
    assert.ok(argv.includes(strategy === "kaniko" ? `--build-arg=ARG=${hostile}` : `--opt=build-arg:ARG=${hostile}`));
    const prepare = pod.initContainers[1];
    assert.deepStrictEqual(prepare.env, [{ name: "CONTEXT_DIR", value: "a $(b)" }, { name: "DOCKERFILE", value: "d $(e)/Dockerfile" }]);
    const git = pod.initContainers[0];
    assert.deepStrictEqual(git.env, [{ name: "GITSYNC_USERNAME", valueFrom: { secretKeyRef: { name: "c", key: "username" } } }]);
    assert.ok(git.args.includes("--password-file=/etc/git-secret/password"));
  }
});

test("buildkit strategy: rootless image, Unconfined seccomp/AppArmor, digest from the metadata file", () => {
  const { res } = run("buildkit-fresh");
  const pod = (res.response.children[0] as any).spec.template.spec;
  const build = pod.containers[0];
  assert.equal(build.image, OPTIONS.buildkitImage);
  assert.deepStrictEqual(build.command.slice(0, 2), ["sh", "-c"]);
  assert.equal(build.securityContext.seccompProfile.type, "Unconfined");
  assert.equal(build.securityContext.appArmorProfile.type, "Unconfined");
  assert.ok(build.env.some((e: any) => e.name === "BUILDKITD_FLAGS"));
  assert.match(BUILDKIT_WRAPPER_SCRIPT, /--metadata-file/);
  assert.ok(build.args.some((a: string) => a.startsWith("--output=type=image,")));
});

test("mutable tag without a digest: output.image plus a pod-template annotation forcing the rollout", () => {
  const { res } = run("mutable-tag-no-digest");
  const d = res.response.children.find((c: any) => c.kind === "Deployment") as any;
  assert.equal(d.spec.template.spec.containers[0].image, "registry.example.com/team/app:latest");
  assert.match(d.spec.template.metadata.annotations["cicd.cicd.com/build-hash"], /^[0-9a-f]{10}$/);
});

test("deploy.enabled=false: phase Succeeded and no Deployment", () => {
  const { res } = run("deploy-disabled");
  assert.equal(res.response.status.phase, "Succeeded");
  assert.deepStrictEqual(names(res, "Deployment"), []);
});

test("finalize: no children; finalized only once nothing is observed", () => {
  const withChildren = run("finalize-with-children");
  assert.deepStrictEqual(withChildren.res.response.children, []);
  assert.equal(withChildren.res.response.finalized, false);
  assert.equal(run("finalize-done").res.response.finalized, true);
  // The sync route honours `finalizing: true` too.
  const viaSync = runHook(ciBuildController, "sync", golden["finalize-done"]!.request, new Date(), OPTIONS);
  assert.equal((viaSync.response as any).finalized, true);
});

test("termination messages: git-sync JSON logs are reduced to msg: error and cut to size", () => {
  assert.equal(summarizeTerminationMessage('{"msg":"a"}\n{"msg":"too many failures","error":"exit 128"}\n'), "too many failures: exit 128");
  assert.equal(summarizeTerminationMessage("x".repeat(5000)).length, 1024);
  assert.equal(summarizeTerminationMessage("line1\nline2\u0007"), "line1 | line2");
});

test("buildkit cache on an insecure registry: registry.insecure=true on the cache refs too, not only on the push", () => {
  const spec = (insecure: boolean, repo?: string) => ({
    source: { git: { url: "https://git.example.com/o/r.git" } },
    build: { strategy: "buildkit", cache: { enabled: true, ...(repo ? { repo } : {}) } },
    output: { image: "kind-registry:5000/app:1.0", insecure },
  });
  const buildArgs = (s: unknown): string[] => (childOf(sync(request({ parent: parent(s) }), "2026-03-02T10:00:00Z"), "Job") as any).spec.template.spec.containers.find((c: any) => c.name === "build").args;
  const insecure = buildArgs(spec(true));
  assert.ok(insecure.some((a) => a.startsWith("--output=type=image,") && a.endsWith(",registry.insecure=true")), insecure.join(" "));
  assert.ok(insecure.includes("--export-cache=type=registry,ref=kind-registry:5000/app/cache,registry.insecure=true"), insecure.join(" "));
  assert.ok(insecure.includes("--import-cache=type=registry,ref=kind-registry:5000/app/cache,registry.insecure=true"), insecure.join(" "));
  const ownRepo = buildArgs(spec(true, "kind-registry:5000/cache/app"));
  assert.ok(ownRepo.includes("--export-cache=type=registry,ref=kind-registry:5000/cache/app,registry.insecure=true"), ownRepo.join(" "));
  const secure = buildArgs(spec(false));
  assert.ok(secure.includes("--export-cache=type=registry,ref=kind-registry:5000/app/cache"), secure.join(" "));
  assert.ok(!secure.some((a) => a.includes("registry.insecure")), secure.join(" "));
});

test("kaniko: a tagged cache repository is an invalid spec (kaniko adds its own tag per layer and would cache nothing); BuildKit takes it as its cache tag", () => {
  const spec = (strategy: string | undefined, repo: string) => ({
    source: { git: { url: "https://git.example.com/o/r.git" } },
    build: { ...(strategy ? { strategy } : {}), cache: { enabled: true, repo } },
    output: { image: "registry.example.com/app:1.0" },
  });
  const answer = (s: unknown) => sync(request({ parent: parent(s) }), "2026-03-02T10:00:00Z") as any;
  for (const strategy of [undefined, "kaniko"]) {
    const tagged = answer(spec(strategy, "registry.example.com/shop/cache:buildcache"));
    const valid = tagged.status.conditions.find((c: any) => c.type === "SpecValid");
    assert.equal(valid.status, "False", String(strategy));
    assert.equal(valid.reason, "InvalidImageReference");
    assert.match(valid.message, /cache repository must have no tag \(got "buildcache"\)/);
    assert.equal(tagged.children.filter((c: any) => c.kind === "Job").length, 0, "no build Job for an invalid spec");
    // A registry port is not a tag.
    assert.equal(answer(spec(strategy, "registry.example.com:5000/shop/cache")).status.conditions.find((c: any) => c.type === "SpecValid").status, "True");
  }
  const off = answer({ ...spec(undefined, "registry.example.com/shop/cache:buildcache"), build: { cache: { enabled: false, repo: "registry.example.com/shop/cache:buildcache" } } });
  assert.equal(off.status.conditions.find((c: any) => c.type === "SpecValid").status, "True", "a cache that is off blocks nothing");
  const buildkit = answer(spec("buildkit", "registry.example.com/shop/cache:buildcache"));
  assert.equal(buildkit.status.conditions.find((c: any) => c.type === "SpecValid").status, "True");
});

test("git-sync gets the build's timeout for its one attempt (its own default, 120 s, would fail a large clone on every retry)", () => {
  const job = (timeout?: string) =>
    childOf(sync(request({ parent: parent({ source: { git: { url: "https://git.example.com/o/r.git" } }, build: timeout ? { timeout } : {}, output: { image: "registry.example.com/app:1.0" } }) }), "2026-03-02T10:00:00Z"), "Job") as any;
  const gitSyncArgs = (j: any): string[] => j.spec.template.spec.initContainers.find((c: any) => c.name === "git-sync").args;
  assert.ok(gitSyncArgs(job()).includes("--sync-timeout=1800s"));
  const long = job("1h30m");
  assert.ok(gitSyncArgs(long).includes("--sync-timeout=5400s"));
  assert.equal(long.spec.activeDeadlineSeconds, 5400);
});

test("an evicted build Pod (workspace over its sizeLimit) fails the build with the kubelet's reason, not a container's log", () => {
  const spec = SEED_SPECS["build-go"]!;
  const job = childOf(sync(request({ parent: parent(spec) }), "2026-03-02T10:00:05Z"), "Job")!;
  const failed = observe(job, "2026-03-02T10:00:06Z", jobStatus("failed-backoff", "2026-03-02T10:00:06Z", "2026-03-02T10:03:00Z"));
  const pod = buildPod(job, "e1", "2026-03-02T10:00:07Z", { "git-sync": {}, prepare: { message: SHA }, build: { exitCode: 137, message: "INFO[0042] Taking snapshot of full filesystem..." } }) as any;
  pod.status.phase = "Failed";
  pod.status.reason = "Evicted";
  pod.status.message = "Usage of EmptyDir volume \"workspace\" exceeds the limit \"10Gi\". ";
  const r = sync(request({ parent: parent(spec), jobs: [failed], pods: [pod] }), "2026-03-02T10:03:01Z");
  const cond = (r.status.conditions as any[]).find((c) => c.type === "BuildSucceeded");
  assert.equal(cond.status, "False");
  assert.equal(cond.reason, "BuildFailed");
  assert.match(cond.message, /the build Pod was evicted: Usage of EmptyDir volume "workspace" exceeds the limit "10Gi"/);
  assert.doesNotMatch(cond.message, /Taking snapshot/);
});
