import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { applyAddOperations, escapePointerToken, missingDefaultsPatch } from "../../src/admission/json-patch.ts";

test("adds only missing keys, recursing into objects and equal-length arrays", () => {
  const original = { a: 1, nested: { x: "set" }, list: [{ name: "n" }], other: [1] };
  const defaulted = { a: 2, nested: { x: "default", y: true }, list: [{ name: "n", value: "" }], other: [1, 2], added: { deep: 1 } };
  assert.deepEqual(missingDefaultsPatch(original, defaulted, "/spec"), [
    { op: "add", path: "/spec/nested/y", value: true },
    { op: "add", path: "/spec/list/0/value", value: "" },
    { op: "add", path: "/spec/added", value: { deep: 1 } },
  ]);
});

test("never replaces or removes a value the user set", () => {
  const original = { keep: "mine", gone: 1, n: null };
  const defaulted = { keep: "default", n: 5 };
  assert.deepEqual(missingDefaultsPatch(original, defaulted, "/spec"), []);
});

test("escapes ~ and / in keys (RFC 6901)", () => {
  assert.equal(escapePointerToken("a/b~c"), "a~1b~0c");
  const ops = missingDefaultsPatch({}, { "cicd.cicd.com/x~y": "v" }, "/spec");
  assert.deepEqual(ops, [{ op: "add", path: "/spec/cicd.cicd.com~1x~0y", value: "v" }]);
  assert.deepEqual(applyAddOperations({ spec: {} }, ops), { spec: { "cicd.cicd.com/x~y": "v" } });
});

function roundTrip<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

test("property: applying the patch to the original gives the defaults without touching set values", () => {
  const json = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: "small" }, fc.string(), fc.integer(), fc.boolean(), tie("object"), fc.array(tie("value"), { maxLength: 3 })),
    object: fc.dictionary(fc.string({ maxLength: 4 }), tie("value"), { maxKeys: 4 }),
  }));
  fc.assert(
    // JSON round trip: plain prototypes, as documents from the wire have.
    fc.property(json.object.map(roundTrip), json.object.map(roundTrip), (original, extra) => {
      // The defaulted document = original plus extra keys where original has none.
      const defaulted: Record<string, unknown> = { ...extra, ...original };
      const ops = missingDefaultsPatch(original, defaulted, "");
      assert.ok(ops.every((o) => o.op === "add"));
      const patched = applyAddOperations(original, ops);
      assert.deepEqual(patched, defaulted);
    }),
    { numRuns: 300 },
  );
});
