import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { findTooDeep, MAX_NESTING_DEPTH } from "../../src/kube/nesting.ts";

/** Containers on the deepest path (the root counts 1; a scalar 0). */
function depthOf(v: unknown): number {
  if (v === null || typeof v !== "object") return 0;
  const children = Array.isArray(v) ? v : Object.values(v);
  return 1 + Math.max(0, ...children.map(depthOf));
}

function at(v: unknown, path: Array<string | number>): unknown {
  return path.reduce<unknown>((node, k) => (node as Record<string | number, unknown>)[k], v);
}

test("findTooDeep says too deep exactly when some container is past the limit, and its path reaches one at limit + 1", () => {
  const { tree } = fc.letrec((tie) => ({
    tree: fc.oneof({ depthSize: "small", withCrossShrink: true }, fc.integer(), fc.constant(null), fc.array(tie("tree"), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 3 }), tie("tree"), { maxKeys: 3 })),
  }));
  fc.assert(
    fc.property(tree, fc.integer({ min: 1, max: 8 }), (value, limit) => {
      const path = findTooDeep(value, limit);
      assert.equal(path !== undefined, depthOf(value) > limit);
      if (path) {
        assert.equal(path.length, limit);
        const node = at(value, path);
        assert.ok(node !== null && typeof node === "object");
      }
    }),
    { numRuns: 1000 },
  );
});

test("findTooDeep at the default limit: a chain of exactly MAX_NESTING_DEPTH fits, one more does not", () => {
  const chain = (n: number) => {
    let v: unknown = {};
    for (let i = 1; i < n; i++) v = i % 2 ? [v] : { a: v };
    return v;
  };
  assert.equal(findTooDeep(chain(MAX_NESTING_DEPTH)), undefined);
  assert.equal(findTooDeep(chain(MAX_NESTING_DEPTH + 1))?.length, MAX_NESTING_DEPTH);
  assert.equal(findTooDeep(chain(10_000))?.length, MAX_NESTING_DEPTH);
});

test("findTooDeep looks at own keys only: an enumerable property on Object.prototype (pollution) is not a path", () => {
  let deep: unknown = {};
  for (let i = 0; i < MAX_NESTING_DEPTH + 5; i++) deep = { a: deep };
  Object.defineProperty(Object.prototype, "polluted", { value: deep, enumerable: true, configurable: true });
  try {
    assert.equal(findTooDeep({ spec: { x: 1 } }), undefined, "the inherited deep value is not the object's");
    assert.equal(findTooDeep({ spec: deep })?.slice(0, 2).join("."), "spec.a", "an own deep value is still found, by its own keys");
  } finally {
    delete (Object.prototype as Record<string, unknown>).polluted;
  }
});
