import { test } from "node:test";
import assert from "node:assert/strict";
import { Emulator } from "../../src/emulator/emulator.ts";
import { LAST_APPLIED } from "../../src/emulator/merge.ts";
import type { Obj } from "../../src/emulator/store.ts";
import { startToyServer, toyController, TOY_RESOURCES, widget, type ToyAnswer } from "./toy-server.ts";

const START = new Date("2026-03-01T00:00:00Z");

/** A correct toy hook: one ConfigMap per parent, status from observed children. */
function goodHook(path: string, body: Obj): ToyAnswer {
  const p = body.parent;
  const observed = Object.values(body.children["ConfigMap.v1"] ?? {}) as Obj[];
  if (path === "/finalize") return { body: { status: { phase: "Deleting" }, children: [], finalized: observed.length === 0 } };
  return {
    body: {
      status: { size: p.spec.size, observed: observed.length },
      children: [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `${p.metadata.name}-cm` }, data: { size: String(p.spec.size) } }],
    },
  };
}

async function setup(handler: (path: string, body: Obj) => ToyAnswer, cc: Obj = toyController()) {
  const server = await startToyServer(handler);
  const emu = new Emulator({ start: START });
  const controller = emu.addController(cc, server.baseUrl, { resources: TOY_RESOURCES });
  const cmRef = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default" } });
  return { server, emu, controller, cmRef, [Symbol.asyncDispose]: () => server.close() };
}

test("create: child with controller-uid label, ownerReference and last-applied; status with observedGeneration; fixed point", async () => {
  await using t = await setup(goodHook);
  const w = t.emu.apply(widget("w1", { size: 2 }));
  const passes = await t.emu.settle(10);
  assert.ok(passes <= 3, `fixed point in ${passes} passes`);
  const cm = t.emu.get(t.cmRef("w1-cm"))!;
  assert.equal(cm.metadata.labels["controller-uid"], w.metadata.uid);
  assert.deepEqual(cm.metadata.ownerReferences, [{ apiVersion: "example.com/v1", kind: "Widget", name: "w1", uid: w.metadata.uid, controller: true, blockOwnerDeletion: true }]);
  assert.deepEqual(JSON.parse(cm.metadata.annotations[LAST_APPLIED]).data, { size: "2" });
  assert.deepEqual(t.emu.get(w)!.status, { size: 2, observed: 1, observedGeneration: 1 });
  assert.ok(!t.emu.get(w)!.metadata.finalizers, "no finalize hook, no finalizer");
});

test("OnDelete never updates; InPlace updates in place; Recreate deletes then creates on a later pass", async () => {
  for (const method of ["OnDelete", "InPlace", "Recreate"]) {
    await using t = await setup(goodHook, toyController({ method }));
    const w = t.emu.apply(widget("w", { size: 1 }));
    await t.emu.settle();
    const before = t.emu.get(t.cmRef("w-cm"))!;
    t.emu.apply({ ...w, spec: { size: 5 } });
    await t.emu.settle();
    const after = t.emu.get(t.cmRef("w-cm"))!;
    if (method === "OnDelete") assert.equal(after.data.size, "1");
    if (method === "InPlace") {
      assert.equal(after.data.size, "5");
      assert.equal(after.metadata.uid, before.metadata.uid);
    }
    if (method === "Recreate") {
      assert.equal(after.data.size, "5");
      assert.notEqual(after.metadata.uid, before.metadata.uid);
    }
  }
});

test("omitted children are deleted; children:null deletes all and status:null leaves only observedGeneration", async () => {
  let mode = "good";
  await using t = await setup((path, body) => (mode === "good" ? goodHook(path, body) : { raw: "{}" }));
  const w = t.emu.apply(widget("w"));
  await t.emu.settle();
  assert.ok(t.emu.get(t.cmRef("w-cm")));
  mode = "empty";
  t.emu.apply({ ...w, metadata: { ...w.metadata, labels: { touch: "1" } } });
  await t.emu.settle();
  assert.equal(t.emu.get(t.cmRef("w-cm")), undefined);
  assert.deepEqual(t.emu.get(w)!.status, { observedGeneration: 1 });
});

test("v1 children are keyed by name, v2 by namespace/name", async () => {
  for (const version of ["v1", "v2"] as const) {
    await using t = await setup(goodHook, toyController({ version }));
    t.emu.apply(widget("w"));
    await t.emu.settle();
    const last = t.server.calls.at(-1)!.body;
    assert.deepEqual(Object.keys(last.children["ConfigMap.v1"]), [version === "v1" ? "w-cm" : "default/w-cm"]);
    assert.deepEqual(last.related, {});
  }
});

test("an orphan matching the selector is adopted (then deleted if not desired); a non-matching owned child is released", async () => {
  await using t = await setup(goodHook);
  const w = t.emu.apply(widget("w"));
  await t.emu.settle();
  const uid = w.metadata.uid;
  t.emu.apply({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "stray", namespace: "default", labels: { "controller-uid": uid } } });
  await t.emu.settle();
  assert.equal(t.emu.get(t.cmRef("stray")), undefined, "adopted, not desired, deleted");
  const cm = t.emu.get(t.cmRef("w-cm"))!;
  t.emu.apply({ ...cm, metadata: { ...cm.metadata, labels: { other: "x" } } });
  await t.emu.settle(10);
  const released = t.emu.get(t.cmRef("w-cm"))!;
  assert.deepEqual(released.metadata.ownerReferences, [], "released, not deleted");
  const last = t.controller.records.at(-1)!;
  assert.deepEqual(last.writes.map((x) => [x.op, x.error?.includes("AlreadyExists")]), [["create", true]], "re-create attempted, AlreadyExists swallowed");
  assert.ok(last.ok);
});

test("labels not matching the selector fail the whole sync: no child writes, no status write", async () => {
  await using t = await setup((_p, body) => ({
    body: { status: { x: 1 }, children: [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `${body.parent.metadata.name}-cm`, labels: { "controller-uid": "someone-else" } } }] },
  }));
  const w = t.emu.apply(widget("w"));
  await t.emu.runFor(1);
  assert.equal(t.emu.get(t.cmRef("w-cm")), undefined);
  assert.equal(t.emu.get(w)!.status, undefined);
  assert.match(t.controller.records[0]!.error!, /don't match parent selector/);
});

test("finalize hook: finalizer added first, finalize called on delete, children reconciled, parent removed after finalized", async () => {
  await using t = await setup(goodHook, toyController({ finalize: true }));
  const w = t.emu.apply(widget("w"));
  await t.emu.settle();
  assert.deepEqual(t.emu.get(w)!.metadata.finalizers, ["metacontroller.io/compositecontroller-widget-controller"]);
  t.emu.delete(w);
  await t.emu.settle();
  assert.equal(t.emu.get(w), undefined);
  assert.equal(t.emu.get(t.cmRef("w-cm")), undefined);
  const hooks = t.controller.records.map((r) => r.hook);
  assert.ok(hooks.includes("finalize"));
  const finalizeCalls = t.server.calls.filter((c) => c.path === "/finalize");
  assert.equal(finalizeCalls[0]!.body.finalizing, true);
  assert.equal(finalizeCalls.length, 2, "first call deletes the child, second sees none and finalizes");
});

test("errors back off exponentially from 5 ms; success resets; 429 honours Retry-After", async () => {
  let fail = 4;
  await using t = await setup((path, body) => (fail-- > 0 ? { status: 500, body: { error: "boom" } } : goodHook(path, body)));
  t.emu.apply(widget("w"));
  await t.emu.runFor(1);
  const times = t.controller.records.map((r) => r.at - START.getTime());
  assert.deepEqual(times.slice(0, 5), [0, 5, 15, 35, 75]);
  assert.ok(t.controller.records[4]!.ok);

  let throttle = true;
  await using u = await setup((path, body) => (throttle ? ((throttle = false), { status: 429, headers: { "retry-after": "7" }, body: {} }) : goodHook(path, body)));
  u.emu.apply(widget("w"));
  await u.emu.runFor(10);
  assert.deepEqual(u.controller.records.slice(0, 2).map((r) => r.at - START.getTime()), [0, 7000]);
});

test("resyncAfterSeconds wakes the parent exactly then; the earliest pending deadline wins", async () => {
  await using t = await setup((path, body) => ({ body: { ...(goodHook(path, body).body as Obj), resyncAfterSeconds: 30.5 } }));
  t.emu.apply(widget("w"));
  await t.emu.runFor(100);
  const times = t.controller.records.map((r) => (r.at - START.getTime()) / 1000);
  // 0: create + status → re-sync at 0 (own writes) → then 30.5 s after the last pass, and so on.
  assert.deepEqual(times.filter((s) => s > 0), [30.5, 61, 91.5]);
});

test("a v2 hook is decoded strictly (unknown key fails); v1 is loose; non-200 and wrong types fail", async () => {
  const extra = (path: string, body: Obj) => ({ body: { ...(goodHook(path, body).body as Obj), debug: true } });
  await using strict = await setup(extra, toyController({ version: "v2" }));
  strict.emu.apply(widget("w"));
  await strict.emu.runFor(0.001);
  assert.match(strict.controller.records[0]!.error!, /unknown field/);
  await using loose = await setup(extra, toyController({ version: "v1" }));
  loose.emu.apply(widget("w"));
  await loose.emu.settle();
  assert.ok(loose.controller.records.every((r) => r.ok));
  await using typed = await setup(() => ({ body: { status: {}, children: [], resyncAfterSeconds: "5" } }));
  typed.emu.apply(widget("w"));
  await typed.emu.runFor(0.001);
  assert.match(typed.controller.records[0]!.error!, /resyncAfterSeconds/);
  await using created = await setup(() => ({ status: 201, body: { status: {}, children: [] } }));
  created.emu.apply(widget("w"));
  await created.emu.runFor(0.001);
  assert.match(created.controller.records[0]!.error!, /unsupported status code: 201/);
});

test("customize: related objects are delivered and their changes trigger syncs", async () => {
  await using t = await setup((path, body) => {
    if (path === "/customize") return { body: { relatedResources: [{ apiVersion: "v1", resource: "secrets", labelSelector: { matchLabels: { for: body.parent.metadata.name } } }] } };
    const related = Object.keys(body.related["Secret.v1"] ?? {});
    return { body: { status: { related }, children: [] } };
  }, toyController({ customize: true }));
  const w = t.emu.apply(widget("w"));
  await t.emu.settle();
  t.emu.apply({ apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "default", labels: { for: "w" } } });
  t.emu.apply({ apiVersion: "v1", kind: "Secret", metadata: { name: "other", namespace: "default", labels: { for: "x" } } });
  await t.emu.settle();
  assert.deepEqual(t.emu.get(w)!.status.related, ["s"]);
  assert.equal(t.server.calls.filter((c) => c.path === "/customize").length, 1, "cached per uid/generation");
});

test("a hook that answers with 'now' in status never reaches a fixed point", async () => {
  let n = 0;
  await using t = await setup(() => ({ body: { status: { counter: n++ }, children: [] } }));
  t.emu.apply(widget("w"));
  await assert.rejects(t.emu.settle(20), /no fixed point/);
});

test("faults: stale cache and lost write responses still converge with deterministic names", async () => {
  let seed = 7;
  const rng = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const server = await startToyServer(goodHook);
  try {
    const emu = new Emulator({ start: START });
    emu.addController(toyController({ method: "InPlace" }), server.baseUrl, {
      resources: TOY_RESOURCES,
      faults: { rng, staleCacheRate: 0.5, childWriteLossRate: 0.3, childWriteErrorRate: 0.2, hookResponseLossRate: 0.2 },
    });
    for (let i = 0; i < 5; i++) emu.apply(widget(`w${i}`, { size: i }));
    await emu.runFor(60);
    const cms = emu.store.list("v1", "ConfigMap", "default");
    assert.deepEqual(cms.map((c) => c.metadata.name), ["w0-cm", "w1-cm", "w2-cm", "w3-cm", "w4-cm"]);
    for (const c of cms) assert.equal(c.data.size, c.metadata.name.slice(1, 2));
  } finally {
    await server.close();
  }
});

test("parentResource.labelSelector: a non-matching parent without the finalizer is ignored; with a finalize hook it is finalized", async () => {
  const cc = toyController({ finalize: true });
  cc.spec.parentResource.labelSelector = { matchLabels: { managed: "yes" } };
  await using t = await setup(goodHook, cc);
  const ignored = t.emu.apply(widget("ignored"));
  const w = t.emu.apply({ ...widget("w"), metadata: { name: "w", namespace: "default", labels: { managed: "yes" } } });
  await t.emu.settle();
  assert.equal(t.emu.get(ignored)!.status, undefined);
  assert.ok(t.emu.get(t.cmRef("w-cm")));
  const live = t.emu.get(w)!;
  t.emu.apply({ ...live, metadata: { ...live.metadata, labels: { managed: "no" } } });
  await t.emu.settle();
  assert.equal(t.emu.get(t.cmRef("w-cm")), undefined, "finalize hook ran and its (empty) children were applied");
  assert.ok(!t.emu.get(w)!.metadata.finalizers, "finalized: the finalizer is gone, the parent stays");
});

test("ignoreStatusChanges drops status-only parent updates; finalized:true in a plain sync makes a finalizer write loop", async () => {
  const cc = toyController();
  cc.spec.parentResource.ignoreStatusChanges = true;
  await using t = await setup(goodHook, cc);
  const w = t.emu.apply(widget("w"));
  await t.emu.settle();
  const ref = { apiVersion: "example.com/v1", kind: "Widget", namespace: "default", name: "w" };
  t.emu.store.patch(ref, (o) => (o.status = { someone: "else" }), { subresource: "status" });
  assert.equal(await t.emu.settle(), 0, "a status-only update does not trigger a sync");
  t.emu.store.patch(ref, (o) => (o.metadata.labels = { x: "y" }));
  assert.equal(await t.emu.settle(), 1, "a label change does");
  assert.equal(t.emu.get(w)!.status.size, 1);

  await using loop = await setup((path, body) => ({ body: { ...(goodHook(path, body).body as Obj), finalized: true } }), toyController({ finalize: true }));
  loop.emu.apply(widget("w"));
  await assert.rejects(loop.emu.settle(30), /no fixed point/);
});

test("Metacontroller stopped: events and timers are dropped; on start every parent is synced", async () => {
  await using t = await setup(goodHook);
  t.controller.stop();
  t.emu.apply(widget("w"));
  await t.emu.runFor(10);
  assert.equal(t.controller.records.length, 0);
  t.controller.start();
  await t.emu.settle();
  assert.ok(t.emu.get(t.cmRef("w-cm")));
});

test("InPlace on a Job template change is a 422: sync error with backoff, but the status is still written", async () => {
  let image = "a";
  const jobHook = (_path: string, body: Obj): ToyAnswer => ({
    body: {
      status: { image },
      children: [{ apiVersion: "batch/v1", kind: "Job", metadata: { name: `${body.parent.metadata.name}-job` }, spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image }] } } } }],
    },
  });
  await using t = await setup(jobHook, toyController({ children: [{ apiVersion: "batch/v1", resource: "jobs", updateStrategy: { method: "InPlace" } }] }));
  const w = t.emu.apply(widget("w"));
  await t.emu.settle();
  image = "b";
  t.emu.apply({ ...w, spec: { size: 2 } });
  await t.emu.runFor(0.1);
  const failed = t.controller.records.filter((r) => !r.ok);
  assert.ok(failed.length >= 3, "retried with backoff");
  assert.match(failed[0]!.error!, /422 Invalid: .*spec.template: field is immutable/);
  assert.equal(t.emu.get(w)!.status.image, "b", "status written despite the child error");
  const job = t.emu.store.list("batch/v1", "Job", "default")[0]!;
  assert.equal(job.spec.template.spec.containers[0].image, "a");
});

test("resyncPeriodSeconds re-queues every parent periodically", async () => {
  const cc = toyController();
  cc.spec.resyncPeriodSeconds = 60;
  await using t = await setup(goodHook, cc);
  t.emu.apply(widget("a"));
  t.emu.apply(widget("b"));
  await t.emu.settle();
  const before = t.controller.records.length;
  await t.emu.runFor(180);
  assert.equal(t.controller.records.length - before, 6, "two parents × three periods");
});

test("an answer handed over in process (shared, deep-frozen here) is never changed: every pass succeeds and children are written as over HTTP", async () => {
  const deepFreeze = <T>(v: T): T => {
    if (v && typeof v === "object") {
      for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
      Object.freeze(v);
    }
    return v;
  };
  // Children without a namespace and the controller-uid label (the emulator must copy to add
  // them) and children with both (the emulator may use them as they are).
  for (const complete of [false, true]) {
    for (const method of ["OnDelete", "InPlace", "Recreate"]) {
      const emu = new Emulator({ start: START });
      let uid = "";
      const transport = async (path: string, body: unknown) => {
        const answer = goodHook(path, body as Obj).body as Obj;
        if (complete) for (const c of answer.children) Object.assign(c.metadata, { namespace: "default", labels: { "controller-uid": uid } });
        return { status: 200, text: JSON.stringify(answer), json: deepFreeze(answer) };
      };
      const controller = emu.addController(toyController({ method }), { transport }, { resources: TOY_RESOURCES });
      const w = emu.apply(widget("w", { size: 1 }));
      uid = w.metadata.uid;
      await emu.settle();
      emu.apply({ ...w, spec: { size: 5 } });
      await emu.settle();
      assert.deepEqual(controller.records.filter((r) => !r.ok).map((r) => r.error), [], `${method}, complete ${complete}: no failed pass`);
      const cm = emu.get({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "w-cm", namespace: "default" } })!;
      assert.equal(cm.data.size, method === "OnDelete" ? "1" : "5", method);
      assert.equal(cm.metadata.labels["controller-uid"], uid);
      assert.deepEqual(emu.get(w)!.status, { size: 5, observed: 1, observedGeneration: 2 });
    }
  }
});
