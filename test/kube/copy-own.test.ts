import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { copyOwn } from "../../src/kube/copy-own.ts";

// Keys that behave differently from plain names: integer-like keys (enumerated first, in numeric
// order), "__proto__" (an own key after JSON.parse, the prototype when assigned), and names of
// Object.prototype members.
const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom("__proto__", "0", "10", "2", "constructor", "toString", "hasOwnProperty", "-1", "01"));

test("copyOwn copies what a spread copies: the same own keys, in the same order, with the same values", () => {
  fc.assert(
    fc.property(fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 8 }), (dict) => {
      // Through JSON.parse, as request bodies arrive: "__proto__" is then an own key.
      const source = JSON.parse(JSON.stringify(dict)) as Record<string, unknown>;
      const spread = { ...source };
      const copy = copyOwn(source);
      assert.deepEqual(Object.keys(copy), Object.keys(spread));
      for (const k of Object.keys(spread)) assert.equal(copy[k], spread[k], `value of ${k} (shallow: the same reference)`);
      assert.equal(Object.getPrototypeOf(copy), Object.prototype, "an own __proto__ key never becomes the prototype");
      assert.equal(JSON.stringify(copy), JSON.stringify(spread));
      assert.notEqual(copy, source);
    }),
  );
});

test("copyOwn leaves inherited keys out, copies undefined and null as {}, and a key added later goes last", () => {
  const source = Object.assign(Object.create({ inherited: 1 }), { b: 1, a: 2 });
  const copy = copyOwn<Record<string, number>>(source);
  assert.deepEqual(Object.keys(copy), ["b", "a"]);
  copy.c = 3;
  assert.deepEqual(Object.keys(copy), ["b", "a", "c"]);
  assert.equal(Object.keys(source).length, 2, "the source is not changed");
  assert.deepEqual(copyOwn(undefined), {});
  assert.deepEqual(copyOwn(null), {});
});
