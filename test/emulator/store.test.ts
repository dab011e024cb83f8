import { test } from "node:test";
import assert from "node:assert/strict";
import { ApiError, Store, type Obj, type WatchEvent } from "../../src/emulator/store.ts";

function setup() {
  let now = Date.parse("2026-03-01T00:00:00Z");
  const store = new Store(() => now);
  const events: WatchEvent[] = [];
  store.watch((e) => events.push(e));
  return { store, events, tick: (s: number) => (now += s * 1000) };
}

const cm = (name: string, extra: object = {}) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "ns" }, ...extra });

test("resourceVersion moves on every effective write; a no-op write emits nothing; generation follows spec only", () => {
  const { store, events } = setup();
  const a = store.create({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w", namespace: "ns" }, spec: { size: 1 } });
  assert.equal(a.metadata.generation, 1);
  const same = store.update({ ...a });
  assert.equal(same.metadata.resourceVersion, a.metadata.resourceVersion);
  assert.equal(events.length, 1);
  const labelled = store.patch({ apiVersion: "example.com/v1", kind: "Widget", namespace: "ns", name: "w" }, (o) => (o.metadata.labels = { x: "y" }));
  assert.equal(labelled.metadata.generation, 1);
  assert.notEqual(labelled.metadata.resourceVersion, a.metadata.resourceVersion);
  const status = store.patch({ apiVersion: "example.com/v1", kind: "Widget", namespace: "ns", name: "w" }, (o) => (o.status = { ok: true }), { subresource: "status" });
  assert.equal(status.metadata.generation, 1);
  const spec = store.patch({ apiVersion: "example.com/v1", kind: "Widget", namespace: "ns", name: "w" }, (o) => (o.spec = { size: 2 }));
  assert.equal(spec.metadata.generation, 2);
  assert.deepEqual(spec.status, { ok: true }, "a main-resource write keeps the live status");
  assert.throws(() => store.update({ ...a }), (e: unknown) => e instanceof ApiError && e.code === 409);
});

test("delete with finalizers only marks; removing the last finalizer removes the object", () => {
  const { store, events } = setup();
  store.create(cm("c", { metadata: { name: "c", namespace: "ns", finalizers: ["x/y"] } }));
  store.delete({ apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "c" });
  const marked = store.get({ apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "c" })!;
  assert.ok(marked.metadata.deletionTimestamp);
  store.patch({ apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "c" }, (o) => (o.metadata.finalizers = []));
  assert.equal(store.get({ apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "c" }), undefined);
  assert.deepEqual(events.map((e) => e.type), ["ADDED", "MODIFIED", "DELETED"]);
});

test("the garbage collector deletes dependents in the background, cascading", () => {
  const { store } = setup();
  const owner = store.create(cm("owner"));
  const ref = (o: Obj) => [{ apiVersion: "v1", kind: "ConfigMap", name: o.metadata.name, uid: o.metadata.uid, controller: true }];
  const child = store.create(cm("child", { metadata: { name: "child", namespace: "ns", ownerReferences: ref(owner) } }));
  store.create(cm("grandchild", { metadata: { name: "grandchild", namespace: "ns", ownerReferences: ref(child) } }));
  store.create(cm("other-ns", { metadata: { name: "other-ns", namespace: "elsewhere", ownerReferences: ref(owner) } }));
  store.delete({ apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "owner" });
  assert.deepEqual(store.all().map((o) => o.metadata.name), ["other-ns"], "cross-namespace owner references do not count");
});

test("a Job's pod template is immutable (422) and the server fills in its selector and labels", () => {
  const { store } = setup();
  const job = store.create({ apiVersion: "batch/v1", kind: "Job", metadata: { name: "j", namespace: "ns" }, spec: { template: { spec: { containers: [{ name: "c", image: "a" }] } } } });
  assert.equal(job.spec.template.metadata.labels["job-name"], "j");
  assert.deepEqual(job.spec.selector, { matchLabels: { "batch.kubernetes.io/controller-uid": job.metadata.uid } });
  const changed = structuredClone(job);
  changed.spec.template.spec.containers[0].image = "b";
  assert.throws(() => store.update(changed), (e: unknown) => e instanceof ApiError && e.code === 422);
  const ok = structuredClone(job);
  ok.spec.suspend = true;
  assert.equal(store.update(ok).spec.suspend, true);
});

test("create of an existing name is AlreadyExists; delete with a stale uid precondition is a conflict", () => {
  const { store } = setup();
  const c = store.create(cm("c"));
  assert.throws(() => store.create(cm("c")), (e: unknown) => e instanceof ApiError && e.code === 409 && e.reason === "AlreadyExists");
  assert.throws(() => store.delete({ apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "c" }, { uid: "other" }), (e: unknown) => e instanceof ApiError && e.code === 409);
  store.delete({ apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "c" }, { uid: c.metadata.uid });
  assert.throws(() => store.delete({ apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "c" }), (e: unknown) => e instanceof ApiError && e.code === 404);
});

test("writeStatus is the status-subresource patch that replaces .status: same object, same events, same no-op and 404", () => {
  const viaPatch = setup();
  const viaWrite = setup();
  for (const { store } of [viaPatch, viaWrite]) store.create(cm("c", { data: { a: "1" }, status: { phase: "A" } }));
  const ref = { apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "c" };
  for (const status of [{ phase: "B", list: [1] }, { phase: "B", list: [1] }, undefined, { phase: "C" }]) {
    const a = viaPatch.store.patch(ref, (o) => (o.status = status), { subresource: "status" });
    const b = viaWrite.store.writeStatus(ref, status);
    assert.deepStrictEqual(b, a);
  }
  assert.deepStrictEqual(viaWrite.events, viaPatch.events);
  assert.throws(() => viaWrite.store.writeStatus({ ...ref, name: "missing" }, {}), (err: unknown) => err instanceof ApiError && err.code === 404);
});
