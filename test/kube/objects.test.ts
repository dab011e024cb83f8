import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { reemitObserved } from "../../src/kube/objects.ts";
import type { KubeObject } from "../../src/metacontroller/contract.ts";

/** The definition: every field but status in its order, metadata cut to what we apply. */
function expected(observed: KubeObject): KubeObject {
  const { status: _status, metadata, ...rest } = observed as KubeObject & { status?: unknown };
  const meta: KubeObject["metadata"] = { name: metadata.name };
  if (metadata.namespace) meta.namespace = metadata.namespace;
  if (metadata.labels && Object.keys(metadata.labels).length) meta.labels = { ...metadata.labels };
  const annotations = { ...(metadata.annotations ?? {}) };
  delete annotations["metacontroller.k8s.io/last-applied-configuration"];
  delete annotations["kubectl.kubernetes.io/last-applied-configuration"];
  if (Object.keys(annotations).length) meta.annotations = annotations;
  return { ...rest, metadata: meta } as KubeObject;
}

test("reemitObserved keeps every top-level field but status, in order, and name, namespace, labels and annotations without last-applied", () => {
  const key = fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom("__proto__", "status", "spec", "metacontroller.k8s.io/last-applied-configuration", "kubectl.kubernetes.io/last-applied-configuration"));
  const strings = fc.dictionary(key, fc.string({ maxLength: 3 }), { maxKeys: 4 });
  const object = fc.record(
    {
      apiVersion: fc.constant("batch/v1"),
      kind: fc.constant("Job"),
      metadata: fc.record({ name: fc.string({ minLength: 1, maxLength: 4 }), namespace: fc.string({ maxLength: 3 }), uid: fc.string(), labels: strings, annotations: strings }, { requiredKeys: ["name"] }),
      spec: fc.jsonValue(),
      status: fc.jsonValue(),
    },
    { requiredKeys: ["apiVersion", "kind", "metadata"] },
  );
  fc.assert(
    fc.property(object, fc.dictionary(key, fc.jsonValue(), { maxKeys: 3 }), (base, extra) => {
      const observed = { ...extra, ...base } as unknown as KubeObject;
      const got = reemitObserved(observed);
      const want = expected(observed);
      assert.deepStrictEqual(got, want);
      assert.deepStrictEqual(Object.keys(got), Object.keys(want));
      assert.deepStrictEqual(Object.keys(got.metadata.annotations ?? {}), Object.keys(want.metadata.annotations ?? {}));
    }),
    { numRuns: 500 },
  );
});
