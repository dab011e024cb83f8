/**
 * The in-place envelope checks (parseSyncRequest, checkSyncResponse) must answer exactly as the
 * zod schemas do: the same accepted set, the same issues, and for responses the same bytes (zod's
 * output puts known keys first, and the answer's key order is part of a byte-identical answer).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  checkSyncResponse,
  isObjectMap,
  ObjectMapSchema,
  parseSyncRequest,
  SyncRequestSchema,
  SyncResponseSchema,
} from "../../src/metacontroller/contract.ts";

const OMIT = Symbol("omit");

/** A record whose fields may be left out (OMIT), with its keys in a rotated order. */
function shuffledRecord(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  return fc.tuple(fc.record(fields), fc.nat(), fc.boolean()).map(([rec, rot, reverse]) => {
    let entries = Object.entries(rec).filter(([, v]) => v !== OMIT);
    if (reverse) entries = entries.reverse();
    const k = entries.length ? rot % entries.length : 0;
    return Object.fromEntries([...entries.slice(k), ...entries.slice(0, k)]);
  });
}

const odd = fc.constantFrom<unknown>(null, 0, 1.5, -1, "", "x", true, [], [1], {}, 2 ** 60);
/** A field's value: usually valid, sometimes odd (weight `oddWeight` of 9), sometimes left out. */
const maybe = <T>(valid: fc.Arbitrary<T>, oddWeight = 1) =>
  oddWeight > 0
    ? fc.oneof({ weight: 6, arbitrary: valid }, { weight: oddWeight, arbitrary: odd }, { weight: 2, arbitrary: fc.constant(OMIT) })
    : fc.oneof({ weight: 6, arbitrary: valid }, { weight: 2, arbitrary: fc.constant(OMIT) });
// JSON.parse makes "__proto__" an own key; zod's copies drop it.
const plainStringMap = fc.dictionary(fc.constantFrom("app", "b", "a", "job-name", "1"), fc.string({ maxLength: 3 }));
const stringMap = fc.oneof(
  fc.dictionary(fc.constantFrom("app", "b", "a", "job-name", "__proto__", "1"), fc.string({ maxLength: 3 })),
  fc.constant(JSON.parse('{"__proto__":"x","a":"b"}')),
  fc.constant({ a: 1 }),
);

const metadataWith = (o: number) => shuffledRecord({
  name: fc.oneof(fc.constantFrom("hello-1", "a"), fc.constant("")),
  namespace: maybe(fc.constant("default"), o),
  uid: maybe(fc.constant("u-1"), o),
  generation: maybe(fc.constantFrom(1, 0, -0, 3), o),
  resourceVersion: maybe(fc.constant("12"), o),
  creationTimestamp: maybe(fc.constant("2026-01-05T12:00:00Z"), o),
  deletionTimestamp: fc.oneof(maybe(fc.constant("2026-01-05T12:00:00Z"), o), fc.constant(null)),
  labels: maybe(o ? stringMap : plainStringMap, o),
  annotations: maybe(o ? stringMap : plainStringMap, o),
  finalizers: maybe(fc.array(fc.oneof(fc.constant("f"), odd), { maxLength: 2 }), o),
  ownerReferences: maybe(fc.array(fc.oneof(fc.constant({ kind: "CronJob", name: "x" }), odd), { maxLength: 2 }), o),
  managedFields: maybe(fc.constant([{ manager: "m" }]), o),
  extra: maybe(fc.constant({ deep: { x: 1 } }), o),
});

const objectWith = (o: number) =>
  fc.oneof(
    { weight: 8, arbitrary: shuffledRecord({ apiVersion: maybe(fc.constantFrom("batch/v1", "")), kind: maybe(fc.constantFrom("Job", "")), metadata: maybe(metadataWith(o)), spec: maybe(fc.constant({ x: 1 })), status: maybe(fc.constant({ y: 2 })) }) },
    { weight: 1, arbitrary: odd },
  );
const object = objectWith(1);

const objectMap = fc.oneof(
  { weight: 6, arbitrary: fc.dictionary(fc.constantFrom("Job.batch/v1", "Pod.v1"), fc.oneof({ weight: 5, arbitrary: fc.dictionary(fc.string({ maxLength: 4 }), object, { maxKeys: 4 }) }, { weight: 1, arbitrary: odd })) },
  { weight: 1, arbitrary: odd },
  { weight: 1, arbitrary: fc.anything() },
);

const parent = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ apiVersion: "batch.tutorial.kubebuilder.io/v1", kind: "CronJob", metadata: { name: "hello", uid: "p" }, spec: { schedule: "* * * * *" } }) },
  { weight: 1, arbitrary: odd },
);

const request = fc.oneof(
  { weight: 8, arbitrary: shuffledRecord({ controller: maybe(fc.constant({ metadata: { name: "c" } })), parent: maybe(parent), children: fc.oneof(maybe(objectMap), fc.constant(null)), related: fc.oneof(maybe(objectMap), fc.constant(null)), finalizing: maybe(fc.boolean()), extra: maybe(fc.constant(1)) }) },
  { weight: 1, arbitrary: fc.anything() },
);

const response = fc.oneof(
  {
    weight: 8,
    arbitrary: shuffledRecord({
      status: fc.oneof({ weight: 6, arbitrary: fc.constant({ b: 1, a: { conditions: [] } }) }, { weight: 2, arbitrary: fc.constant(JSON.parse('{"__proto__":{"p":1},"z":1}')) }, { weight: 1, arbitrary: odd }),
      children: fc.oneof({ weight: 6, arbitrary: fc.array(fc.oneof({ weight: 3, arbitrary: objectWith(0) }, { weight: 1, arbitrary: object }), { maxLength: 3 }) }, { weight: 1, arbitrary: odd }),
      resyncAfterSeconds: maybe(fc.constantFrom(60.1, 0.001, 0, -5, Number.NaN, Number.POSITIVE_INFINITY)),
      finalized: maybe(fc.boolean()),
      extra: fc.oneof({ weight: 8, arbitrary: fc.constant(OMIT) }, { weight: 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constant(1) }),
    }),
  },
  { weight: 1, arbitrary: fc.anything() },
);

test("isObjectMap never accepts what ObjectMapSchema rejects", () => {
  let accepted = 0;
  fc.assert(
    fc.property(objectMap, (map) => {
      if (isObjectMap(map)) {
        accepted++;
        assert.ok(ObjectMapSchema.safeParse(map).success, JSON.stringify(map));
      }
    }),
    { numRuns: 3000 },
  );
  assert.ok(accepted > 300, `the generator reaches valid maps too (${accepted})`);
});

test("parseSyncRequest: the same verdict, data and issues as SyncRequestSchema", () => {
  let accepted = 0;
  fc.assert(
    fc.property(request, (body) => {
      const ours = parseSyncRequest(body);
      const zod = SyncRequestSchema.safeParse(body);
      assert.equal(ours.success, zod.success);
      if (ours.success && zod.success) {
        accepted++;
        // Same content (the observed objects are the originals, so only their key order may differ).
        assert.deepStrictEqual(JSON.parse(JSON.stringify(ours.data)), JSON.parse(JSON.stringify(zod.data)));
      } else if (!ours.success && !zod.success) {
        assert.deepStrictEqual(ours.error.issues, zod.error.issues);
      }
    }),
    { numRuns: 3000 },
  );
  assert.ok(accepted > 300, `the generator reaches valid requests too (${accepted})`);
});

test("checkSyncResponse: the same verdict and issues as SyncResponseSchema, and the same bytes", () => {
  let accepted = 0;
  fc.assert(
    fc.property(response, (res) => {
      const ours = checkSyncResponse(res);
      const zod = SyncResponseSchema.safeParse(res);
      assert.equal(ours.success, zod.success);
      if (ours.success && zod.success) {
        accepted++;
        assert.equal(JSON.stringify(ours.data), JSON.stringify(zod.data));
      } else if (!ours.success && !zod.success) {
        assert.deepStrictEqual(ours.error.issues, zod.error.issues);
      }
    }),
    { numRuns: 3000 },
  );
  assert.ok(accepted > 150, `the generator reaches valid responses too (${accepted})`);
});

test("observed children reach the hook as the very objects that arrived (no copies)", () => {
  const child = { apiVersion: "batch/v1", kind: "Job", metadata: { name: "hello-1", labels: { a: "b" } }, spec: {} };
  const parsed = parseSyncRequest({
    parent: { apiVersion: "v", kind: "K", metadata: { name: "p" } },
    children: { "Job.batch/v1": { "hello-1": child } },
  });
  assert.ok(parsed.success);
  assert.equal(parsed.data.children["Job.batch/v1"]!["hello-1"], child);
  assert.deepStrictEqual(parsed.data.related, {});
  assert.equal(parsed.data.finalizing, false);
});

test("parseSyncRequest: the parent is exactly zod's output (values, undefined members, key order at every copied level)", () => {
  const plainParent = shuffledRecord({ apiVersion: fc.constant("v1"), kind: fc.constant("CronJob"), metadata: metadataWith(0), spec: maybe(fc.constant({ x: 1 }), 0), status: maybe(fc.constant({ y: 2 }), 0) });
  // Members present with the value undefined (a JavaScript caller's request) beside the usual ones.
  const withUndefined = fc
    .tuple(plainParent, fc.subarray(["namespace", "uid", "generation", "labels", "annotations", "finalizers", "ownerReferences", "extra"]), fc.boolean())
    .map(([o, keys, top]) => {
      if (o === null || typeof o !== "object" || Array.isArray(o)) return o;
      const obj = { ...(o as Record<string, unknown>) };
      if (obj.metadata && typeof obj.metadata === "object" && !Array.isArray(obj.metadata)) {
        const meta = { ...(obj.metadata as Record<string, unknown>) };
        for (const k of keys) meta[k] = undefined;
        obj.metadata = meta;
      }
      if (top) obj.status = undefined;
      return obj;
    });
  const keysDeep = (v: unknown): unknown =>
    v !== null && typeof v === "object" ? (Array.isArray(v) ? v.map(keysDeep) : Object.keys(v).map((k) => [k, keysDeep((v as Record<string, unknown>)[k])])) : v;
  let accepted = 0;
  fc.assert(
    fc.property(fc.oneof(plainParent, objectWith(1), withUndefined), (parentValue) => {
      const body = { parent: parentValue, children: {} };
      const ours = parseSyncRequest(body);
      const zod = SyncRequestSchema.safeParse(body);
      assert.equal(ours.success, zod.success);
      if (ours.success && zod.success) {
        accepted++;
        assert.deepStrictEqual(ours.data.parent, zod.data.parent);
        assert.deepStrictEqual(keysDeep(ours.data.parent), keysDeep(zod.data.parent));
        assert.notEqual(ours.data.parent, parentValue);
      } else if (!ours.success && !zod.success) {
        assert.deepStrictEqual(ours.error.issues, zod.error.issues);
      }
    }),
    { numRuns: 3000 },
  );
  assert.ok(accepted > 500, `the generator reaches valid parents too (${accepted})`);
});
