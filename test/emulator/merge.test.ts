import { test } from "node:test";
import assert from "node:assert/strict";
import { applyUpdate, LAST_APPLIED, threeWayMerge, withLastApplied } from "../../src/emulator/merge.ts";

test("keys removed from desired since last-applied are removed; keys never applied are kept", () => {
  const observed = { spec: { a: 1, b: 2, serverDefault: "x" } };
  const last = { spec: { a: 1, b: 2 } };
  const desired = { spec: { a: 3 } };
  assert.deepEqual(threeWayMerge(observed, last, desired), { spec: { a: 3, serverDefault: "x" } });
});

test("lists of objects sharing a merge key are merged per item, observed order first", () => {
  const observed = { c: [{ name: "b", image: "b:1", extra: true }, { name: "a", image: "a:1" }, { name: "gone", image: "g" }] };
  const last = { c: [{ name: "a", image: "a:1" }, { name: "b", image: "b:1" }, { name: "gone", image: "g" }] };
  const desired = { c: [{ name: "a", image: "a:2" }, { name: "b", image: "b:1" }, { name: "new", image: "n" }] };
  assert.deepEqual(threeWayMerge(observed, last, desired), {
    c: [{ name: "b", image: "b:1", extra: true }, { name: "a", image: "a:2" }, { name: "new", image: "n" }],
  });
});

test("containerPort beats name as the merge key; scalar lists are replaced", () => {
  const observed = { ports: [{ containerPort: 80, name: "http", protocol: "TCP" }], args: ["x", "y"] };
  const desired = { ports: [{ containerPort: 80, name: "web" }], args: ["z"] };
  assert.deepEqual(threeWayMerge(observed, desired, desired), { ports: [{ containerPort: 80, name: "web", protocol: "TCP" }], args: ["z"] });
});

test("a desired value of another JSON type does not replace an observed object (minus last-applied keys)", () => {
  const observed = { spec: { keep: 1, applied: 2 } };
  assert.deepEqual(threeWayMerge(observed, { spec: { applied: 2 } }, { spec: "text" }), { spec: { keep: 1 } });
  assert.deepEqual(threeWayMerge({ spec: 5 }, {}, { spec: { a: 1 } }), { spec: { a: 1 } });
});

test("applyUpdate reverts status and system metadata and detects no change for the same desired object", () => {
  const desired = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "n" }, data: { k: "v" } };
  const observed = withLastApplied(desired);
  Object.assign(observed.metadata, { uid: "u1", resourceVersion: "7", creationTimestamp: "2026-01-01T00:00:00Z" });
  observed.status = { seen: true };
  assert.equal(applyUpdate(observed, desired).changed, false);
  const { merged, changed } = applyUpdate(observed, { ...desired, data: { k: "w" } });
  assert.equal(changed, true);
  assert.equal(merged.metadata.uid, "u1");
  assert.equal(merged.metadata.resourceVersion, "7");
  assert.deepEqual(merged.status, { seen: true });
  assert.equal(merged.data.k, "w");
  assert.match(merged.metadata.annotations[LAST_APPLIED], /"k":"w"/);
});

test("the last-applied annotation is key-order independent (Go marshals maps sorted)", () => {
  const a = withLastApplied({ kind: "X", apiVersion: "v1", metadata: { name: "n" }, spec: { b: 1, a: 2 } });
  const b = withLastApplied({ apiVersion: "v1", metadata: { name: "n" }, kind: "X", spec: { a: 2, b: 1 } });
  assert.equal(a.metadata.annotations[LAST_APPLIED], b.metadata.annotations[LAST_APPLIED]);
});
