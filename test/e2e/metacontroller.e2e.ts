/**
 * Metacontroller in the loop: a real Metacontroller binary (named by METACONTROLLER_BIN) runs
 * against the real apiserver with the CompositeControllers the chart renders, calling
 * `metahooks serve` on loopback. There is no kubelet and no controller-manager, so the tests play
 * the Job and Deployment controllers by writing status subresources (and the build Pod) by hand.
 * Each scenario then runs again in our emulator (src/emulator, through the test/emulator harnesses) from the same start time, and the
 * two must agree on the children created and deleted, on the hooks' decisions, and on the
 * parent's status.
 *
 * Without METACONTROLLER_BIN these tests are reported as skipped, with that reason.
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { closeSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { parse } from "yaml";
import { renderChart } from "../helpers/helm.ts";
import { findController } from "../../src/controllers/registry.ts";
import { runHook, formatDecisions } from "../../src/metacontroller/run-hook.ts";
import { startCronJobRun } from "../emulator/cronjob-harness.ts";
import { startCIBuildRun, loadCIBuildSample } from "../emulator/cibuild-harness.ts";
import type { SyncRecord } from "../../src/emulator/controller.ts";
import { finishedJobStatus } from "../../src/emulator/world.ts";
import { freePort } from "./controlplane/control-plane.ts";
import { createNamespace, createObject, requireE2eHarness, kubeRequest, kubeconfigPath, objectPath, watchCollection, type KubeObject, type Watch } from "./helpers/kube.ts";
import { installMetacontrollerCrds, installOurCrds } from "./helpers/setup.ts";
import { startService, type RunningService } from "./helpers/service.ts";

const METACONTROLLER_BIN = process.env.METACONTROLLER_BIN;
// Without a Metacontroller binary these tests report themselves skipped with this reason, also
// outside `npm run e2e`; with one, running them outside `npm run e2e` fails like every e2e file.
const skip = METACONTROLLER_BIN
  ? undefined
  : "METACONTROLLER_BIN is not set: Metacontroller-in-the-loop tests need a Metacontroller v4.17 binary (built by hand, never part of this repository)";
if (!skip) requireE2eHarness();

let ns = "";
let service: RunningService | undefined;
let recorder: HookRecorder | undefined;
let metacontroller: ChildProcess | undefined;
let metacontrollerLog = "";
const controllerNames: string[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}; Metacontroller's log: ${metacontrollerLog}`);
    await sleep(250);
  }
}

before(async () => {
  if (skip) return;
  installMetacontrollerCrds();
  installOurCrds();
  ns = await createNamespace("e2e-mc");
  service = await startService();
  recorder = await startRecorder(service.hookUrl);
  for (const cc of renderChart().filter((d) => d.kind === "CompositeController")) {
    // The chart points the hooks at its in-cluster Service; here the service runs on loopback.
    for (const hook of Object.values(cc.spec.hooks as Record<string, { webhook: { url: string } }>)) {
      hook.webhook.url = `${recorder.url}${new URL(hook.webhook.url).pathname}`;
    }
    await kubeRequest("DELETE", `/apis/metacontroller.k8s.io/v1alpha1/compositecontrollers/${cc.metadata.name}`);
    const res = await createObject(cc as KubeObject);
    assert.equal(res.status, 201, `CompositeController ${cc.metadata.name}: ${res.body?.message}`);
    controllerNames.push(cc.metadata.name);
  }
  metacontrollerLog = join(kubeconfigPath(), "..", "metacontroller.log");
  const fd = openSync(metacontrollerLog, "a");
  metacontroller = spawn(
    METACONTROLLER_BIN!,
    [
      "--discovery-interval=2s",
      `--metrics-address=127.0.0.1:${await freePort()}`,
      `--health-probe-bind-address=127.0.0.1:${await freePort()}`,
      "--zap-log-level=4",
    ],
    { env: { PATH: process.env.PATH ?? "", KUBECONFIG: kubeconfigPath() }, stdio: ["ignore", fd, fd] },
  );
  closeSync(fd);
});

after(async () => {
  if (metacontroller && metacontroller.exitCode === null) {
    const exited = new Promise((r) => metacontroller!.once("exit", r));
    metacontroller.kill("SIGTERM");
    await Promise.race([exited, sleep(5000)]);
    metacontroller.kill("SIGKILL");
  }
  for (const name of controllerNames) await kubeRequest("DELETE", `/apis/metacontroller.k8s.io/v1alpha1/compositecontrollers/${name}`);
  await recorder?.stop();
  await service?.stop();
});

/** One hook call Metacontroller made, as it went over the wire. */
interface HookCall {
  at: number;
  path: string;
  request: any;
  status: number;
  response: any;
}

interface HookRecorder {
  url: string;
  calls: HookCall[];
  stop(): Promise<void>;
}

/**
 * A pass-through in front of the hook service that keeps every call's request and response, so
 * the real run's hook calls can be replayed against the emulator's (the service's own log has
 * only the decisions, never bodies).
 */
async function startRecorder(target: string): Promise<HookRecorder> {
  const calls: HookCall[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const at = Date.now();
      const body = Buffer.concat(chunks).toString("utf8");
      try {
        const answer = await fetch(`${target}${req.url}`, { method: "POST", headers: { "Content-Type": "application/json" }, body });
        const text = await answer.text();
        calls.push({ at, path: req.url ?? "", request: JSON.parse(body), status: answer.status, response: text ? JSON.parse(text) : undefined });
        res.writeHead(answer.status, { "Content-Type": "application/json" }).end(text);
      } catch (err) {
        res.writeHead(502).end(String(err));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, calls, stop: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Lists a kind in the test namespace. */
async function list(apiVersion: string, kind: string): Promise<any[]> {
  const res = await kubeRequest("GET", await objectPath(apiVersion, kind, ns));
  assert.equal(res.status, 200);
  return res.body.items;
}

/** Records, from the apiserver's watch, the order in which children of `kinds` are created and deleted. */
async function watchChildren(kinds: Array<[string, string]>): Promise<{ events: string[]; stop: () => void }> {
  const events: string[] = [];
  const watches: Watch[] = [];
  for (const [apiVersion, kind] of kinds) {
    watches.push(
      await watchCollection(await objectPath(apiVersion, kind, ns), (type, obj) => {
        if (type === "ADDED") events.push(`create ${kind} ${obj.metadata.name}`);
        if (type === "DELETED") events.push(`delete ${kind} ${obj.metadata.name}`);
      }),
    );
  }
  return { events, stop: () => watches.forEach((w) => w.stop()) };
}

/** The real run's sync/finalize calls for one parent, as `hook: decision` strings (consecutive repeats folded). */
function recordedDecisions(controller: string, parentName: string): string[] {
  const def = findController(controller)!;
  const options = def.loadOptions ? def.loadOptions({}) : undefined;
  return fold(
    recordedCalls(controller, parentName).map((c) => {
      const hook = c.path.split("/")[1] as "sync" | "finalize";
      return `${hook}: ${formatDecisions(runHook(def, hook, c.request, new Date(c.at), options).decisions)}`;
    }),
  );
}

/** The real run's sync/finalize calls for one parent. */
function recordedCalls(controller: string, parentName: string): HookCall[] {
  return recorder!.calls.filter(
    (c) => (c.path === `/sync/${controller}` || c.path === `/finalize/${controller}`) && c.request.parent?.metadata?.name === parentName && c.request.parent?.metadata?.namespace === ns,
  );
}

/** The emulator's hook calls for one parent, as the same `hook: decision` strings. */
function emulatedDecisions(passes: SyncRecord[], controller: string): string[] {
  const def = findController(controller)!;
  const options = def.loadOptions ? def.loadOptions({}) : undefined;
  return fold(
    passes
      .filter((p) => p.hook && p.request && p.response)
      .map((p) => `${p.hook}: ${formatDecisions(runHook(def, p.hook!, p.request, new Date(p.at), options).decisions)}`),
  );
}

/** The emulator's child writes (`create Job x`, `delete Job y`) in order. */
function emulatedChildren(passes: SyncRecord[], kinds: string[]): string[] {
  return passes.flatMap((p) =>
    p.writes
      .filter((w) => !w.error && (w.op === "create" || w.op === "delete") && kinds.some((k) => w.target.startsWith(`${k} `)))
      .map((w) => `${w.op} ${w.target.split(" ")[0]} ${w.target.split("/").pop()}`),
  );
}

/** Decisions that change something ("no change" calls differ with informer timing). */
function changes(decisions: string[]): string[] {
  return fold(decisions.filter((d) => !d.endsWith(": no change")));
}

function fold(items: string[]): string[] {
  return items.filter((item, i) => i === 0 || item !== items[i - 1]);
}

const now = () => new Date().toISOString().replace(/\.\d+Z$/, "Z");

/**
 * Replaces an object's status through `/status`, re-reading and retrying when Metacontroller
 * wrote the object in between (409 Conflict), as a controller does.
 */
async function writeStatus(apiVersion: string, kind: string, name: string, status: (live: any) => unknown): Promise<any> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const live = (await kubeRequest("GET", await objectPath(apiVersion, kind, ns, name))).body;
    const res = await kubeRequest("PUT", await objectPath(apiVersion, kind, ns, name, "status"), { body: { ...live, status: status(live) } });
    if (res.status === 200) return res.body;
    assert.equal(res.status, 409, `${kind} ${name} status: ${res.status} ${res.body?.message}`);
  }
  throw new Error(`${kind} ${name}: status write kept conflicting`);
}

/** Plays the Job controller: the Job started (what the hooks see as running). */
async function startJob(name: string): Promise<any> {
  return writeStatus("batch/v1", "Job", name, () => ({ startTime: now(), active: 1, ready: 1, uncountedTerminatedPods: {} }));
}

/** Plays the Job controller: the Job's Pod succeeded. */
async function completeJob(name: string): Promise<any> {
  return writeStatus("batch/v1", "Job", name, (live) => {
    const t = now();
    return finishedJobStatus("Complete", live.status?.startTime ?? t, t);
  });
}

test("CronJob */1 with Metacontroller: two slots, Job completion, history pruning, deletion with finalize; same as the emulator", { skip, timeout: 300_000 }, async (t) => {
  const sample = parse(readFileSync("examples/cronjob/cronjob-sample.yaml", "utf8"));
  const spec = { ...sample.spec, successfulJobsHistoryLimit: 1 };
  const children = await watchChildren([["batch/v1", "Job"]]);
  const start = new Date();
  const created = await createObject({ apiVersion: sample.apiVersion, kind: "CronJob", metadata: { name: "hello", namespace: ns, labels: sample.metadata.labels }, spec });
  assert.equal(created.status, 201, created.body?.message);
  const jobs: string[] = [];
  for (let slot = 1; slot <= 2; slot++) {
    const job = await waitFor(`the Job of slot ${slot}`, 90_000, async () => (await list("batch/v1", "Job")).find((j) => !jobs.includes(j.metadata.name)));
    jobs.push(job.metadata.name);
    await startJob(job.metadata.name);
    await sleep(500);
    await completeJob(job.metadata.name);
  }
  // successfulJobsHistoryLimit 1: the first Job goes once the second has succeeded.
  await waitFor("the first Job to be pruned", 30_000, async () => ((await list("batch/v1", "Job")).some((j) => j.metadata.name === jobs[0]) ? undefined : true));
  const cronJob = await waitFor("status.lastSuccessfulTime of the second Job", 30_000, async () => {
    const res = await kubeRequest("GET", await objectPath("batch.tutorial.kubebuilder.io/v1", "CronJob", ns, "hello"));
    const second = (await list("batch/v1", "Job")).find((j) => j.metadata.name === jobs[1]);
    return res.body.status?.lastSuccessfulTime && res.body.status.lastSuccessfulTime === second?.status?.completionTime ? res.body : undefined;
  });
  assert.ok(cronJob.metadata.finalizers?.some((f: string) => f.startsWith("metacontroller.io/")), `Metacontroller's finalizer: ${JSON.stringify(cronJob.metadata.finalizers)}`);
  assert.equal(cronJob.status.observedGeneration, cronJob.metadata.generation);
  const deleteAt = new Date();
  const del = await kubeRequest("DELETE", await objectPath("batch.tutorial.kubebuilder.io/v1", "CronJob", ns, "hello"));
  assert.ok(del.status === 200 || del.status === 202, JSON.stringify(del.body));
  await waitFor("the CronJob to be finalized and gone", 60_000, async () => {
    const res = await kubeRequest("GET", await objectPath("batch.tutorial.kubebuilder.io/v1", "CronJob", ns, "hello"));
    return res.status === 404 ? true : undefined;
  });
  await sleep(1000);
  children.stop();
  assert.deepEqual(await list("batch/v1", "Job"), [], "finalize leaves no Job behind");
  const realChildren = children.events;
  const realDecisions = recordedDecisions("cronjob", "hello");

  // The same scenario in the emulator, from the same start: Jobs run about as long as here.
  const run = await startCronJobRun({ start, name: "hello", spec: { successfulJobsHistoryLimit: 1 }, jobPlan: () => ({ startAfterSeconds: 0, runSeconds: 1 }) });
  try {
    // The emulator's Jobs finish 1 s after creation; here a Job may have finished a little
    // sooner, so give the emulator up to 2 s more (the next slot is a minute away).
    await run.emu.runUntil(deleteAt.getTime() + 2000);
    run.emu.delete(run.cronJob);
    await run.emu.runFor(60);
    const emuChildren = emulatedChildren(run.passes, ["Job"]);
    const emuDecisions = emulatedDecisions(run.passes, "cronjob");
    t.diagnostic(JSON.stringify({ cronjob: { realChildren, emuChildren, realDecisions, emuDecisions } }));
    assert.deepEqual(realChildren, emuChildren, "children created and deleted, in order");
    assert.deepEqual(changes(realDecisions), changes(emuDecisions), "the hooks' decisions that change something, in order");
  } finally {
    await run.close();
  }
});

/** The termination messages git-sync/prepare and the build container write (CIBuild contract). */
function buildOutputs(job: any): { commit: string; digest: string } {
  const hex = (s: string) => createHash("sha256").update(s).digest("hex");
  return { commit: hex(`commit/${job.metadata.name}`).slice(0, 40), digest: `sha256:${hex(`digest/${job.metadata.name}`)}` };
}

/** Plays the Job controller and kubelet for a build Job: the Pod ran every container and succeeded. */
async function finishBuild(job: any): Promise<void> {
  const { commit, digest } = buildOutputs(job);
  const tpl = job.spec.template;
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `${job.metadata.name}-pod`,
      namespace: ns,
      labels: tpl.metadata?.labels ?? {},
      ownerReferences: [{ apiVersion: "batch/v1", kind: "Job", name: job.metadata.name, uid: job.metadata.uid, controller: true, blockOwnerDeletion: true }],
    },
    spec: tpl.spec,
  };
  const created = await createObject(pod as KubeObject);
  assert.equal(created.status, 201, `build Pod: ${created.body?.message}`);
  const t = now();
  const term = (message?: string) => ({ terminated: { exitCode: 0, reason: "Completed", startedAt: t, finishedAt: t, ...(message ? { message } : {}) } });
  const messageOf = (name: string) => (name === "prepare" ? commit : name === "build" ? digest : undefined);
  const status = {
    phase: "Succeeded",
    startTime: t,
    initContainerStatuses: (tpl.spec.initContainers ?? []).map((c: any) => ({ name: c.name, image: c.image, imageID: "", ready: false, restartCount: 0, state: term(messageOf(c.name)) })),
    containerStatuses: tpl.spec.containers.map((c: any) => ({ name: c.name, image: c.image, imageID: "", ready: false, restartCount: 0, state: term(messageOf(c.name)) })),
  };
  const res = await kubeRequest("PUT", await objectPath("v1", "Pod", ns, pod.metadata.name, "status"), { body: { ...created.body, status } });
  assert.equal(res.status, 200, `build Pod status: ${res.body?.message}`);
  // No pause before the Job completes: if Metacontroller's Pod cache lags behind its Job cache,
  // the hook waits for the Pod's digest instead of deploying the tag first.
  await completeJob(job.metadata.name);
}

/** Plays the Deployment controller: every replica of the current generation is available. */
async function makeAvailable(name: string): Promise<void> {
  await writeStatus("apps/v1", "Deployment", name, (dep) => {
    const replicas = dep.spec.replicas ?? 1;
    const t = now();
    return {
      observedGeneration: dep.metadata.generation,
      replicas,
      updatedReplicas: replicas,
      readyReplicas: replicas,
      availableReplicas: replicas,
      conditions: [
        { type: "Available", status: "True", reason: "MinimumReplicasAvailable", message: "Deployment has minimum availability.", lastUpdateTime: t, lastTransitionTime: t },
        { type: "Progressing", status: "True", reason: "NewReplicaSetAvailable", message: "ReplicaSet has successfully progressed.", lastUpdateTime: t, lastTransitionTime: t },
      ],
    };
  });
}

test("the go sample CIBuild with Metacontroller: apply → build Job → build Pod → Deployment → Ready; same as the emulator", { skip, timeout: 300_000 }, async (t) => {
  const sample = loadCIBuildSample("go");
  const children = await watchChildren([
    ["batch/v1", "Job"],
    ["apps/v1", "Deployment"],
    ["v1", "Service"],
  ]);
  const phases: string[] = [];
  const phaseWatch = await watchCollection(await objectPath("cicd.cicd.com/v1alpha1", "CIBuild", ns), (_type, obj) => {
    const phase = obj.status?.phase;
    if (obj.metadata.name === sample.metadata.name && phase && phases[phases.length - 1] !== phase) phases.push(phase);
  });
  const start = new Date();
  const created = await createObject({ ...sample, metadata: { ...sample.metadata, namespace: ns } } as KubeObject);
  assert.equal(created.status, 201, created.body?.message);
  const job = await waitFor("the build Job", 60_000, async () => (await list("batch/v1", "Job"))[0]);
  await sleep(1000);
  await startJob(job.metadata.name);
  await sleep(1000);
  await finishBuild(job);
  const dep = await waitFor("the Deployment", 60_000, async () => (await list("apps/v1", "Deployment"))[0]);
  await sleep(1000);
  await makeAvailable(dep.metadata.name);
  const ready = await waitFor("phase Ready", 60_000, async () => {
    const res = await kubeRequest("GET", await objectPath("cicd.cicd.com/v1alpha1", "CIBuild", ns, sample.metadata.name));
    return res.body.status?.phase === "Ready" ? res.body : undefined;
  });
  const end = new Date();
  await sleep(1000);
  phaseWatch.stop();
  children.stop();
  const { digest } = buildOutputs(job);
  assert.equal(ready.status.lastSuccessfulBuild?.imageRef, `kind-registry:5000/microservices-app1@${digest}`);
  assert.equal(ready.status.observedGeneration, ready.metadata.generation);
  const realDecisions = recordedDecisions("cibuild", sample.metadata.name);

  // The emulator's world: the Job starts 1 s and finishes 2 s after creation, the Deployment is
  // available 1 s after it is created (about the delays above).
  const run = await startCIBuildRun({ start, jobPlan: () => ({ startAfterSeconds: 1, runSeconds: 1 }), deploymentReadySeconds: 1 });
  try {
    const emuPhases: string[] = [];
    run.emu.syncListeners.push(() => {
      const phase = run.live(sample)?.status?.phase;
      if (phase && emuPhases[emuPhases.length - 1] !== phase) emuPhases.push(phase);
    });
    run.apply(sample);
    await run.emu.runUntil(end);
    const emuChildren = emulatedChildren(run.passes, ["Job", "Deployment", "Service"]);
    const emuDecisions = emulatedDecisions(run.passes, "cibuild");
    writeFileSync(join(kubeconfigPath(), "..", "cibuild-hook-calls.json"), JSON.stringify(recordedCalls("cibuild", sample.metadata.name), null, 1));
    t.diagnostic(JSON.stringify({ cibuild: { realChildren: children.events, emuChildren, phases, emuPhases, realDecisions, emuDecisions } }));
    assert.deepEqual(children.events, emuChildren, "children created and deleted, in order");
    assert.deepEqual(phases, emuPhases, "phases, in order");
    assert.deepEqual(changes(realDecisions), changes(emuDecisions), "the hooks' decisions that change something, in order");
  } finally {
    await run.close();
  }
});
