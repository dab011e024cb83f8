/**
 * Writes the CIBuild golden *requests* (`test/fixtures/cibuild/<case>/{request.json,now.txt}`) and
 * the go sample's stage requests under `examples/cibuild/`. Observed children are the hook's own
 * earlier answers plus what the apiserver and controllers add, chained stage by stage.
 *
 * Usage: `npx tsx test/controllers/cibuild/make-fixtures.ts`, then
 * `UPDATE_GOLDEN=1 node scripts/run-tests.mjs cibuild/golden` and review the diff.
 */
import { mkdirSync, writeFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import {
  DIGEST,
  DIGEST2,
  SEED_SPECS,
  SHA,
  SHA2,
  buildPod,
  builtOutcomes,
  childOf,
  deploymentStatus,
  jobStatus,
  lifecycle,
  observe,
  parent,
  request,
  sync,
  type JobPhase,
} from "./world.ts";

interface Case {
  request: unknown;
  now: string;
  hook?: "sync" | "finalize" | "customize";
}

const cases: Record<string, Case> = {};
const go = SEED_SPECS["build-go"]!;
const L = lifecycle("build-go", go);
const [fresh, running, succeeded, available] = L.stages as [any, any, any, any];
const readyStatus = available.response.status;

cases["fresh"] = { request: fresh.request, now: fresh.now };
cases["building"] = { request: running.request, now: running.now };
cases["succeeded-deploy"] = { request: succeeded.request, now: succeeded.now };
cases["ready"] = { request: available.request, now: available.now };

/** A finished build of `spec` (fresh answer → observed Job in `phase` with the given Pods). */
function finished(spec: Record<string, unknown>, phase: JobPhase, outcomes: Parameters<typeof buildPod>[3][], name = "build-go") {
  const r1 = sync(request({ parent: parent(spec, { name }) }), "2026-03-02T10:00:05Z");
  const job = childOf(r1, "Job")!;
  const observedJob = observe(job, "2026-03-02T10:00:06Z", jobStatus(phase, "2026-03-02T10:00:06Z", "2026-03-02T10:03:00Z"));
  const pods = outcomes.map((o, i) => buildPod(job, `p${i}`, `2026-03-02T10:0${i}:07Z`, o));
  return { status: r1.status, job: observedJob, pods };
}

const gitSyncAuthLog = [
  '{"logger":"","ts":"2026-03-02 10:00:09.114","caller":{"file":"main.go","line":1183},"level":0,"msg":"starting up","version":"v4.7.1"}',
  '{"logger":"","ts":"2026-03-02 10:00:10.220","caller":{"file":"main.go","line":1321},"msg":"too many failures, aborting","error":"Run(git fetch --depth 1 --prune --no-auto-gc origin HEAD): exit status 128: { stdout: \\"\\", stderr: \\"git@github.com: Permission denied (publickey).\\\\r\\\\nfatal: Could not read from remote repository.\\\\n\\\\nPlease make sure you have the correct access rights\\\\nand the repository exists.\\" }","failCount":1}',
].join("\n");
{
  const f = finished(go, "failed-backoff", [{ "git-sync": { exitCode: 1, message: gitSyncAuthLog } }, { "git-sync": { exitCode: 1, message: gitSyncAuthLog } }]);
  cases["failed-clone"] = { request: request({ parent: parent(go, { status: f.status }), jobs: [f.job], pods: f.pods }), now: "2026-03-02T10:03:01Z" };
}
{
  const spec = { ...go, subContext: "does-not-exist" };
  const f = finished(spec, "failed-policy", [{ "git-sync": {}, prepare: { exitCode: 2, message: `ContextDirNotFound: directory does-not-exist does not exist at commit ${SHA}\n` } }]);
  cases["failed-context-dir"] = { request: request({ parent: parent(spec, { status: f.status }), jobs: [f.job], pods: f.pods }), now: "2026-03-02T10:03:01Z" };
}
{
  const spec = { ...go, build: { dockerfile: "docker/Dockerfile.prod" } };
  const f = finished(spec, "failed-policy", [{ "git-sync": {}, prepare: { exitCode: 3, message: `DockerfileNotFound: file docker/Dockerfile.prod does not exist in app1 at commit ${SHA}\n` } }]);
  cases["failed-dockerfile"] = { request: request({ parent: parent(spec, { status: f.status }), jobs: [f.job], pods: f.pods }), now: "2026-03-02T10:03:01Z" };
}
{
  const kanikoLog = "INFO[0003] Running: [/bin/sh -c go build -o /app ./...]\nmain.go:3:8: package github.com/x/y is not in std\nerror building image: error building stage: failed to execute command: waiting for process to exit: exit status 1";
  const f = finished(go, "failed-backoff", [
    { "git-sync": {}, prepare: { message: SHA }, build: { exitCode: 1, message: kanikoLog } },
    { "git-sync": {}, prepare: { message: SHA }, build: { exitCode: 1, message: kanikoLog } },
  ]);
  cases["failed-build"] = { request: request({ parent: parent(go, { status: f.status }), jobs: [f.job], pods: f.pods }), now: "2026-03-02T10:03:01Z" };
}
{
  const f = finished(go, "failed-deadline", [
    { "git-sync": { waiting: { reason: "ImagePullBackOff", message: 'Back-off pulling image "registry.k8s.io/git-sync/git-sync:v4.7.1"' } } },
  ]);
  cases["deadline"] = { request: request({ parent: parent(go, { status: f.status }), jobs: [f.job], pods: f.pods }), now: "2026-03-02T10:30:07Z" };
}
{
  // A new revision while the old build runs → new Job name; the stale running Job goes (latest wins).
  const spec = { ...go, SCMBranch: "release-2" };
  cases["spec-change-while-building"] = {
    request: request({ parent: parent(spec, { generation: 2, status: running.response.status }), jobs: [L.runningJob], pods: [L.runningPod] }),
    now: "2026-03-02T10:01:30Z",
  };
}
{
  const spec = { ...go, deploy: { replicas: 3, port: 8080 } };
  cases["deploy-only-change"] = {
    request: request({ parent: parent(spec, { generation: 2, status: readyStatus }), jobs: [L.doneJob], pods: [L.donePod], deployments: [L.observedDeployment] }),
    now: "2026-03-02T11:00:00Z",
  };
}
{
  const spec = { ...go, rebuildToken: "2026-03-02-nightly" };
  cases["rebuild-token"] = {
    request: request({ parent: parent(spec, { generation: 2, status: readyStatus }), jobs: [L.doneJob], pods: [L.donePod], deployments: [L.observedDeployment] }),
    now: "2026-03-02T11:00:00Z",
  };
}
{
  const spec = { ...go, rebuildToken: "2" };
  const r1 = sync(request({ parent: parent(spec, { generation: 2, status: readyStatus }), jobs: [L.doneJob], deployments: [L.observedDeployment] }), "2026-03-02T11:00:00Z");
  const newJob = observe(childOf(r1, "Job", "build-go-" + (r1.status.buildHash as string))!, "2026-03-02T11:00:01Z", jobStatus("running", "2026-03-02T11:00:01Z"));
  const newPod = buildPod(newJob, "n1", "2026-03-02T11:00:02Z", { "git-sync": {}, prepare: { message: SHA2 }, build: { running: true } });
  const doneNew = observe(childOf(r1, "Job", newJob.metadata.name)!, "2026-03-02T11:00:01Z", jobStatus("complete", "2026-03-02T11:00:01Z", "2026-03-02T11:03:00Z"));
  const donePod = buildPod(newJob, "n1", "2026-03-02T11:00:02Z", builtOutcomes(newJob, SHA2, DIGEST2));
  const r2 = sync(request({ parent: parent(spec, { generation: 2, status: r1.status }), jobs: [L.doneJob, newJob], pods: [newPod], deployments: [L.observedDeployment] }), "2026-03-02T11:01:00Z");
  cases["rebuild-succeeded-rolls-out"] = {
    request: request({ parent: parent(spec, { generation: 2, status: r2.status }), jobs: [L.doneJob, doneNew], pods: [donePod], deployments: [L.observedDeployment] }),
    now: "2026-03-02T11:03:01Z",
  };
}
{
  const spec = { ...go, suspend: true };
  const req = request({ parent: parent(spec, { generation: 2, status: running.response.status }), jobs: [L.runningJob], pods: [L.runningPod] });
  cases["suspend-running"] = { request: req, now: "2026-03-02T10:02:00Z" };
  const suspended = sync(req, "2026-03-02T10:02:00Z");
  cases["suspend-resume"] = { request: request({ parent: parent(go, { generation: 3, status: suspended.status }) }), now: "2026-03-02T10:10:00Z" };
}
{
  // Retention: current + deployed kept uncounted; newest 1 succeeded and 1 failed stale kept.
  const spec = { ...go, rebuildToken: "t6", retention: { succeededLimit: 1, failedLimit: 1 } };
  const stale = (token: string, phase: JobPhase, start: string, end: string) => {
    const r = sync(request({ parent: parent({ ...go, rebuildToken: token }) }), start);
    return observe(childOf(r, "Job")!, start, phase === "running" ? jobStatus("running", start) : jobStatus(phase, start, end));
  };
  const jobs = [
    L.doneJob, // deployed (lastSuccessfulBuild)
    stale("t1", "complete", "2026-03-01T01:00:00Z", "2026-03-01T01:05:00Z"),
    stale("t2", "complete", "2026-03-01T02:00:00Z", "2026-03-01T02:05:00Z"),
    stale("t3", "failed-backoff", "2026-03-01T03:00:00Z", "2026-03-01T03:05:00Z"),
    stale("t4", "failed-deadline", "2026-03-01T04:00:00Z", "2026-03-01T04:05:00Z"),
    stale("t5", "running", "2026-03-02T11:50:00Z", ""),
  ];
  cases["retention"] = { request: request({ parent: parent(spec, { generation: 7, status: readyStatus }), jobs, deployments: [L.observedDeployment] }), now: "2026-03-02T12:00:00Z" };
}
{
  // The Job of a finished build was deleted (TTL, retention, a human): never rebuilt.
  cases["job-deleted-after-success"] = {
    request: request({ parent: parent(go, { status: readyStatus }), deployments: [L.observedDeployment] }),
    now: "2026-03-02T12:00:00Z",
  };
  const f = finished(go, "failed-backoff", []);
  const failedStatus = sync(
    request({ parent: parent(go, { status: f.status }), jobs: [f.job], pods: [buildPod(f.job, "p0", "2026-03-02T10:00:07Z", { "git-sync": { exitCode: 1, message: gitSyncAuthLog } })] }),
    "2026-03-02T10:03:01Z",
  ).status;
  cases["job-deleted-after-failure"] = { request: request({ parent: parent(go, { status: failedStatus }) }), now: "2026-03-02T12:00:00Z" };
  cases["status-lost"] = { request: request({ parent: parent(go), deployments: [L.observedDeployment] }), now: "2026-03-02T12:00:00Z" };
  // The build Job succeeded at 10:04:30 and no Pod of it is observed. Past the digest grace
  // (60 s after completion) the tag is deployed; within it the build waits for the Pod's digest.
  cases["digest-unknown-tag-fallback"] = {
    request: request({ parent: parent(go, { status: running.response.status }), jobs: [L.doneJob] }),
    now: "2026-03-02T10:05:31Z",
  };
  cases["digest-waiting-no-pod"] = {
    request: request({ parent: parent(go, { status: running.response.status }), jobs: [L.doneJob] }),
    now: "2026-03-02T10:04:31Z",
  };
  // Metacontroller's Pod cache behind its Job cache: the Job succeeded, the Pod still looks running.
  cases["digest-waiting-pod-lags"] = {
    request: request({ parent: parent(go, { status: running.response.status }), jobs: [L.doneJob], pods: [L.runningPod] }),
    now: "2026-03-02T10:04:31Z",
  };
}
{
  const deadline = observe(L.deployment, "2026-03-02T10:04:32Z", deploymentStatus(1, 0, { deadline: true }));
  cases["progress-deadline"] = {
    request: request({ parent: parent(go, { status: succeeded.response.status }), jobs: [L.doneJob], pods: [L.donePod], deployments: [deadline] }),
    now: "2026-03-02T10:16:01Z",
  };
}
{
  const spec = { ...go, deploy: { enabled: false } };
  const f = finished(spec, "complete", [{ "git-sync": {}, prepare: { message: SHA }, build: {}, digest: { message: DIGEST } }]);
  cases["deploy-disabled"] = { request: request({ parent: parent(spec, { status: f.status }), jobs: [f.job], pods: f.pods }), now: "2026-03-02T10:03:01Z" };
  const mutable = { SCMRepoURL: go.SCMRepoURL, SCMSecret: "git-creds", output: { image: "registry.example.com/team/app:latest", immutableTag: false } };
  // kaniko exited 0 but the digest step found no digest file: no digest, so the tag is deployed.
  const m = finished(mutable, "complete", [{ "git-sync": {}, prepare: { message: SHA }, build: {}, digest: { exitCode: 0, message: "" } }]);
  cases["mutable-tag-no-digest"] = { request: request({ parent: parent(mutable, { status: m.status }), jobs: [m.job], pods: m.pods }), now: "2026-03-02T10:03:01Z" };
}

// Every SpecValid=False reason, each with a Ready CIBuild's children observed: they must come back unchanged.
const invalid: Record<string, Record<string, unknown>> = {
  "conflicting-fields": { ...go, source: { git: { url: "git@github.com:victorpaulo/other.git" } } },
  "missing-repo-url": { imageDestination: go.imageDestination, SCMSecret: "git-creds" },
  "scaffold-sample": { foo: "bar" },
  "invalid-git-url": { ...go, SCMRepoURL: "ftp://example.com/repo.git" },
  "credentials-in-url": { ...go, SCMRepoURL: "https://alice:ghp_S3cr3tT0kenValue@github.com/victorpaulo/microservices.git" },
  "missing-clone-secret": { SCMRepoURL: go.SCMRepoURL, imageDestination: go.imageDestination },
  "invalid-revision": { ...go, SCMBranch: "--upload-pack=/tmp/evil" },
  "missing-image-destination": { SCMRepoURL: go.SCMRepoURL, SCMSecret: "git-creds" },
  "invalid-image-reference": { ...go, imageDestination: "kind-registry:5000/App:1.0@sha256:abc" },
  "invalid-context-dir": { ...go, subContext: "../../etc" },
  "invalid-dockerfile-path": { ...go, build: { dockerfile: "/etc/passwd" } },
  "invalid-build-arg": { ...go, build: { buildArgs: [{ name: "GO VERSION", value: "1.23" }] } },
  "invalid-timeout": { ...go, build: { timeout: "forever" } },
  "unsupported-strategy": { ...go, build: { strategy: "buildah" } },
  "invalid-field": { ...go, deploy: { replicas: -1 } },
};
for (const [name, spec] of Object.entries(invalid)) {
  cases[`invalid-${name.replace(/^invalid-/, "")}`] = {
    request: request({
      parent: parent(spec, { generation: 2, status: readyStatus }),
      jobs: [L.doneJob],
      pods: [L.donePod],
      deployments: [L.observedDeployment],
    }),
    now: "2026-03-02T11:00:00Z",
  };
}

{
  // A 70-character name: every derived name still a DNS-1123 label of at most 63.
  const longName = "payments-reconciliation-service-nightly-build-for-the-eu-west-1-region";
  const spec = { ...go, deploy: { port: 8080 } };
  const LL = lifecycle(longName, spec);
  cases["long-name-fresh"] = { request: LL.stages[0]!.request, now: LL.stages[0]!.now };
  cases["long-name-deployed"] = { request: LL.stages[3]!.request, now: LL.stages[3]!.now };
}
{
  cases["finalize-with-children"] = {
    request: request({ parent: parent(go, { status: readyStatus, deletionTimestamp: "2026-03-02T12:00:00Z" }), jobs: [L.doneJob], pods: [L.donePod], deployments: [L.observedDeployment], finalizing: true }),
    now: "2026-03-02T12:00:01Z",
    hook: "finalize",
  };
  cases["finalize-done"] = {
    request: request({ parent: parent(go, { status: readyStatus, deletionTimestamp: "2026-03-02T12:00:00Z" }), finalizing: true }),
    now: "2026-03-02T12:00:05Z",
    hook: "finalize",
  };
  cases["customize"] = {
    request: { controller: { metadata: { name: "cibuild-controller" } }, parent: parent(go) },
    now: "2026-03-02T10:00:00Z",
    hook: "customize",
  };
}
for (const seed of ["build-java", "build-nodejs", "build-ace"]) {
  cases[`seed-${seed.replace("build-", "")}-fresh`] = { request: request({ parent: parent(SEED_SPECS[seed]!, { name: seed }) }), now: "2026-03-02T10:00:05Z" };
}
{
  const https = {
    source: {
      git: { url: "https://github.com/example/shop.git", revision: "v2.3.0", cloneSecret: "github-https", depth: 0, submodules: "off" },
      contextDir: "services/api",
    },
    build: {
      dockerfile: "build/Dockerfile",
      target: "runtime",
      buildArgs: [{ name: "GO_VERSION", value: "1.23" }, { name: "LDFLAGS", value: "-s -w; echo $(id) `id` \"quoted\"" }],
      cache: { enabled: true, repo: "registry.example.com/shop/api-cache" },
      reproducible: true,
      timeout: "1h30m",
      retries: 2,
      resources: { requests: { cpu: "500m", memory: "1Gi" }, limits: { memory: "4Gi" } },
      nodeSelector: { "kubernetes.io/arch": "amd64" },
      tolerations: [{ key: "builds", operator: "Exists", effect: "NoSchedule" }],
      serviceAccountName: "builder",
    },
    output: { image: "registry.example.com/shop/api:2.3.0", pushSecret: "registry-push", additionalTags: ["stable"] },
    deploy: { replicas: 2, port: 8080, servicePort: 80, serviceType: "ClusterIP", env: [{ name: "LOG_LEVEL", value: "info" }], imagePullSecrets: [{ name: "registry-pull" }] },
    retention: { succeededLimit: 5, failedLimit: 1 },
  };
  cases["structured-https-fresh"] = { request: request({ parent: parent(https, { name: "shop-api" }) }), now: "2026-03-02T10:00:05Z" };
  const buildkit = { ...https, build: { ...https.build, strategy: "buildkit" } };
  cases["buildkit-fresh"] = { request: request({ parent: parent(buildkit, { name: "shop-api" }) }), now: "2026-03-02T10:00:05Z" };
}
{
  // Hook version v2: children keyed namespace/name.
  const v2 = structuredClone(available.request) as { children: Record<string, Record<string, unknown>>; related: Record<string, Record<string, unknown>> };
  for (const map of [v2.children, v2.related]) {
    for (const [group, objects] of Object.entries(map)) {
      map[group] = Object.fromEntries(Object.entries(objects).map(([k, v]) => [`default/${k}`, v]));
    }
  }
  cases["ready-hook-v2-keys"] = { request: v2, now: available.now };
}

{
  // Following a branch (spec.triggers): poll probes and recorded pushes.
  const pushAnnotation = (sha: string, seenAt: string) => ({
    "cicd.cicd.com/pushed-commit": JSON.stringify({ sha, ref: "refs/heads/master", repository: "github.com/victorpaulo/microservices", defaultBranch: true, seenAt, provider: "github", delivery: `d-${sha.slice(0, 8)}` }),
  });
  const withAnnotations = (p: any, annotations: Record<string, string>) => ({ ...p, metadata: { ...p.metadata, annotations } });
  const polled = { ...go, triggers: { poll: { interval: "5m" } } };
  const p1 = sync(request({ parent: parent(polled) }), "2026-03-02T10:00:05Z");
  cases["triggers-poll-fresh"] = { request: request({ parent: parent(polled) }), now: "2026-03-02T10:00:05Z" };
  const probe = childOf(p1, "Job")!;
  const probeDone = observe(probe, "2026-03-02T10:00:06Z", jobStatus("complete", "2026-03-02T10:00:07Z", "2026-03-02T10:00:09Z"));
  const probePod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `${probe.metadata.name}-q8w2z`,
      namespace: "default",
      uid: "pod-probe",
      creationTimestamp: "2026-03-02T10:00:06Z",
      labels: { ...(probe.spec as any).template.metadata.labels, "batch.kubernetes.io/job-name": probe.metadata.name, "job-name": probe.metadata.name },
      ownerReferences: [{ apiVersion: "batch/v1", kind: "Job", name: probe.metadata.name, uid: probeDone.metadata.uid, controller: true, blockOwnerDeletion: true }],
    },
    spec: structuredClone((probe.spec as any).template.spec),
    status: {
      phase: "Succeeded",
      containerStatuses: [{ name: "ls-remote", image: "img", imageID: "", ready: false, restartCount: 0, started: false, state: { terminated: { exitCode: 0, reason: "Completed", message: SHA, startedAt: "2026-03-02T10:00:07Z", finishedAt: "2026-03-02T10:00:08Z" } } }],
    },
  } as any;
  cases["triggers-poll-answered"] = { request: request({ parent: parent(polled, { status: p1.status }), jobs: [probeDone], pods: [probePod] }), now: "2026-03-02T10:00:10Z" };

  const pushed = { ...go, triggers: { push: { secretRef: { name: "cibuild-webhook" } } } };
  cases["triggers-push-pinned"] = { request: request({ parent: withAnnotations(parent(pushed), pushAnnotation(SHA2, "2026-03-02T10:00:01Z")) }), now: "2026-03-02T10:00:05Z" };
  // Ready after an unpinned build of SHA; a push of that same commit changes nothing.
  const LP = lifecycle("build-go", pushed);
  const ready = LP.stages[3] as any;
  const readyReq = structuredClone(ready.request);
  readyReq.parent = withAnnotations(readyReq.parent, pushAnnotation(SHA, "2026-03-02T10:07:00Z"));
  cases["triggers-push-same-commit"] = { request: readyReq, now: "2026-03-02T10:07:01Z" };
  // A push of SHA2 while SHA2's pinned build runs, then a push of a newer commit: cancel and rebuild.
  const r1 = sync(cases["triggers-push-pinned"]!.request, "2026-03-02T10:00:05Z");
  const pinnedJob = observe(childOf(r1, "Job")!, "2026-03-02T10:00:06Z", jobStatus("running", "2026-03-02T10:00:06Z"));
  const SHA3 = "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00";
  cases["triggers-push-during-build"] = {
    request: request({ parent: withAnnotations(parent(pushed, { status: r1.status }), pushAnnotation(SHA3, "2026-03-02T10:01:00Z")), jobs: [pinnedJob] }),
    now: "2026-03-02T10:01:01Z",
  };
}

const root = join("test", "fixtures", "cibuild");
for (const [name, c] of Object.entries(cases)) {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "request.json"), JSON.stringify(c.request, null, 2) + "\n");
  writeFileSync(join(dir, "now.txt"), c.now + "\n");
  if (c.hook && c.hook !== "sync") writeFileSync(join(dir, "hook.txt"), c.hook + "\n");
  else rmSync(join(dir, "hook.txt"), { force: true });
}
const examples = join("examples", "cibuild");
L.stages.forEach((s: any, i: number) => {
  writeFileSync(join(examples, `go-${i + 1}-${s.name}.request.json`), JSON.stringify(s.request, null, 2) + "\n");
});
console.log(`wrote ${Object.keys(cases).length} cases and ${L.stages.length} example requests`);
