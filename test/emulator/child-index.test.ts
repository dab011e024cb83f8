import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { ChildIndex } from "../../src/emulator/child-index.ts";

// The index must answer what a Map keyed by `apiVersion|kind|namespace/name` answers (the
// emulator's former key), in the same order: Metacontroller's writes follow this order.
test("ChildIndex answers and orders like a Map keyed by the composed identity", () => {
  const part = (values: string[]) => fc.constantFrom(...values);
  const identity = fc.record({
    apiVersion: part(["batch/v1", "v1", "apps/v1"]),
    kind: part(["Job", "Pod", "Deployment"]),
    namespace: fc.option(part(["", "a", "b"]), { nil: undefined }),
    name: fc.option(part(["x", "y", "10", "2", "__proto__"]), { nil: undefined }),
  });
  fc.assert(
    fc.property(fc.array(identity, { maxLength: 30 }), fc.array(identity, { maxLength: 10 }), (sets, probes) => {
      const index = new ChildIndex();
      const map = new Map<string, object>();
      const key = (i: { apiVersion: string; kind: string; namespace?: string | undefined; name?: string | undefined }) => `${i.apiVersion}|${i.kind}|${i.namespace ?? ""}/${i.name ?? ""}`;
      sets.forEach((i, n) => {
        const obj = { n, apiVersion: i.apiVersion, kind: i.kind, metadata: { namespace: i.namespace, name: i.name } };
        index.set(i.apiVersion, i.kind, i.namespace, i.name, obj);
        map.set(key(i), obj);
      });
      assert.deepEqual(index.values(), [...map.values()]);
      assert.equal(index.size, map.size);
      for (const p of [...sets, ...probes]) {
        assert.equal(index.get(p.apiVersion, p.kind, p.namespace, p.name), map.get(key(p)));
        const probe = { apiVersion: p.apiVersion, kind: p.kind, metadata: { namespace: p.namespace, name: p.name } };
        assert.equal(index.hasObject(probe), map.has(key(p)));
      }
    }),
  );
});
