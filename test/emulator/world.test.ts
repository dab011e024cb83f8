import { test } from "node:test";
import assert from "node:assert/strict";
import { Emulator } from "../../src/emulator/emulator.ts";
import { HookServer } from "./hook-server.ts";
import type { Obj } from "../../src/emulator/store.ts";
import { startToyServer, toyController, TOY_RESOURCES, widget } from "./toy-server.ts";
import { digestOf } from "../../src/emulator/world.ts";

const START = new Date("2026-03-01T00:00:00Z");

function buildJob(name: string): Obj {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name, namespace: "ci" },
    spec: {
      template: {
        metadata: { labels: { "cicd.cicd.com/build-hash": "abc" } },
        spec: {
          initContainers: [
            { name: "git-sync", image: "git-sync", args: ["--repo=https://example.com/r.git", "--ref=main"] },
            { name: "prepare", image: "busybox" },
          ],
          containers: [{ name: "build", image: "kaniko", args: ["--destination=reg/app:1.0", "--destination=reg/app:cibuild-abc"] }],
        },
      },
    },
  };
}

const pod = (emu: Emulator) => emu.store.list("v1", "Pod", "ci")[0]!;
const term = (p: Obj, name: string) =>
  [...(p.status.initContainerStatuses ?? []), ...p.status.containerStatuses].find((c: Obj) => c.name === name).state.terminated;

test("world: a build Job starts, its Pod reports the commit SHA (prepare) and the digest (build), then it completes", async () => {
  const emu = new Emulator({ start: START, world: { jobPlan: () => ({ startAfterSeconds: 2, runSeconds: 30 }) } });
  const job = emu.apply(buildJob("b1"));
  await emu.runFor(10);
  assert.equal(emu.get(job)!.status.active, 1);
  assert.equal(pod(emu).metadata.labels["job-name"], "b1");
  assert.equal(pod(emu).metadata.labels["cicd.cicd.com/build-hash"], "abc");
  assert.equal(pod(emu).status.phase, "Running");
  await emu.runFor(30);
  const done = emu.get(job)!;
  assert.deepEqual(done.status.conditions.map((c: Obj) => [c.type, c.status]), [["SuccessCriteriaMet", "True"], ["Complete", "True"]]);
  assert.match(term(pod(emu), "prepare").message, /^[0-9a-f]{40}$/);
  assert.equal(term(pod(emu), "build").message, digestOf(done));
  assert.ok(emu.world.pushedImages.has("reg/app:cibuild-abc"));
  assert.ok(emu.world.pushedImages.has(`reg/app@${digestOf(done)}`));
  emu.delete(job);
  assert.deepEqual(emu.store.list("v1", "Pod", "ci"), [], "the garbage collector removes the Pod with its Job");
});

test("world: a failing init container fails the Job; later containers never run; nothing is pushed", async () => {
  const emu = new Emulator({
    start: START,
    world: { jobPlan: () => ({ startAfterSeconds: 1, runSeconds: 5, outcome: "Failed", failure: { container: "git-sync", exitCode: 1, message: "Repository not found." } }) },
  });
  const job = emu.apply(buildJob("b2"));
  await emu.runFor(10);
  assert.equal(emu.get(job)!.status.conditions[1].type, "Failed");
  assert.deepEqual(term(pod(emu), "git-sync"), { exitCode: 1, reason: "Error", startedAt: "2026-03-01T00:00:01Z", finishedAt: "2026-03-01T00:00:06Z", message: "Repository not found." });
  assert.deepEqual(pod(emu).status.containerStatuses[0].state, { waiting: { reason: "PodInitializing" } });
  assert.equal(emu.world.pushedImages.size, 0);
});

test("world: a Deployment becomes available after the rollout delay, again after each spec change", async () => {
  const emu = new Emulator({ start: START, world: { deploymentReadySeconds: 20 } });
  const dep = emu.apply({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d", namespace: "ci" }, spec: { selector: { matchLabels: { app: "a" } }, template: { spec: { containers: [{ name: "app", image: "x:1" }] } } } });
  await emu.runFor(10);
  assert.equal(emu.get(dep)!.status.availableReplicas, 0);
  await emu.runFor(15);
  assert.equal(emu.get(dep)!.status.availableReplicas, 1);
  assert.equal(emu.get(dep)!.status.observedGeneration, 1);
  const live = emu.get(dep)!;
  emu.apply({ ...live, spec: { ...live.spec, replicas: 3 } });
  await emu.runFor(30);
  assert.deepEqual([emu.get(dep)!.status.observedGeneration, emu.get(dep)!.status.availableReplicas], [2, 3]);
});

test("the hook service restarting mid-run: calls fail like a refused dial, back off, and recover", async () => {
  const toy = await startToyServer((_p, body) => ({ body: { status: { ok: true }, children: [], resyncAfterSeconds: 60 } , ...(body ? {} : {}) }));
  const emu = new Emulator({ start: START });
  let up = true;
  const controller = emu.addController(toyController(), () => (up ? toy.baseUrl() : undefined), { resources: TOY_RESOURCES });
  try {
    const w = emu.apply(widget("w"));
    await emu.runFor(1);
    up = false;
    emu.scheduler.after(120_000, "service back", () => void (up = true));
    await emu.runFor(300);
    const failed = controller.records.filter((r) => !r.ok);
    assert.ok(failed.length >= 5 && failed.every((r) => /connection refused/.test(r.error!)));
    assert.ok(controller.records.at(-1)!.ok);
    assert.deepEqual(emu.get(w)!.status, { ok: true, observedGeneration: 1 });
  } finally {
    await toy.close();
  }
});

test("our real service is reachable through HookServer and restarts on a new port", async () => {
  const server = HookServer.forControllers(() => START);
  await server.start();
  const first = server.baseUrl()!;
  assert.equal((await fetch(`${first}/healthz`)).status, 200);
  await server.stop();
  assert.equal(server.baseUrl(), undefined);
  await server.start();
  assert.equal((await fetch(`${server.baseUrl()}/healthz`)).status, 200);
  assert.equal(server.starts, 2);
  await server.stop();
});

test("world: without Pods (pods: false) a Job runs and finishes exactly as with them, and no Pod is ever created", async () => {
  const run = async (pods: boolean, outcome: "Complete" | "Failed") => {
    const emu = new Emulator({ start: START, world: { pods, jobPlan: () => ({ startAfterSeconds: 2, runSeconds: 30, outcome }) } });
    const job = emu.apply(buildJob("b9"));
    await emu.runFor(10);
    const running = emu.get(job)!.status;
    await emu.runFor(30);
    return { running, done: emu.get(job)!.status, pods: emu.store.list("v1", "Pod", "ci").length, events: emu.world.events };
  };
  for (const outcome of ["Complete", "Failed"] as const) {
    const withPods = await run(true, outcome);
    const without = await run(false, outcome);
    assert.equal(withPods.pods, 1);
    assert.equal(without.pods, 0, "no Pod without pods");
    assert.deepEqual(without.running, withPods.running);
    assert.deepEqual(without.done, withPods.done);
    assert.deepEqual(without.events, withPods.events);
  }
});
