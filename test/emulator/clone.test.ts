import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { clone, jsonEqual } from "../../src/emulator/store.ts";

/** The definition clone() must match: JSON's round trip, thrown errors included. */
function viaJson(value: unknown): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: value === undefined ? undefined : JSON.parse(JSON.stringify(value)) };
  } catch {
    return { ok: false };
  }
}

function viaClone(value: unknown): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: clone(value) };
  } catch {
    return { ok: false };
  }
}

test("clone gives what a JSON round trip gives, for any value (dates, boxed values, -0, NaN, sparse arrays, __proto__ keys, null prototypes)", () => {
  const anything = fc.anything({
    withBigInt: true,
    withBoxedValues: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withNullPrototype: true,
    withObjectString: true,
    withSparseArray: true,
    withTypedArray: true,
    withUnicodeString: true,
    // Leaves JSON treats specially, beside ordinary ones: -0, non-finite numbers, undefined, functions, symbols.
    values: [
      fc.boolean(),
      fc.integer(),
      fc.double(),
      fc.string(),
      fc.constantFrom(-0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, undefined, null, () => 1, Symbol("s")),
    ],
    key: fc.oneof(fc.string(), fc.constantFrom("__proto__", "toJSON", "constructor", "0", "1")),
  });
  fc.assert(
    fc.property(anything, (value) => {
      assert.deepStrictEqual(viaClone(value), viaJson(value));
    }),
    { numRuns: 2000 },
  );
});

test("clone calls toJSON with the member's key, and leaves out members whose toJSON gives undefined", () => {
  const seen: string[] = [];
  const value = {
    a: { toJSON: (k: string) => (seen.push(k), `a:${k}`) },
    b: [{ toJSON: (k: string) => (seen.push(k), undefined) }],
    c: { toJSON: () => undefined },
    d: new Date(0),
  };
  assert.deepStrictEqual(clone(value), JSON.parse(JSON.stringify(value)));
  assert.deepStrictEqual(clone(value), { a: "a:a", b: [null], d: "1970-01-01T00:00:00.000Z" });
  assert.ok(seen.includes("a") && seen.includes("0"));
});

test("clone's copy shares nothing with its input", () => {
  const input = { metadata: { labels: { a: "1" } }, list: [{ x: 1 }] };
  const copy = clone(input);
  copy.metadata.labels.a = "2";
  copy.list[0]!.x = 2;
  assert.deepStrictEqual(input, { metadata: { labels: { a: "1" } }, list: [{ x: 1 }] });
});

/** jsonEqual's definition: undefined-valued keys count as absent, key order does not matter. */
function jsonEqualDefinition(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => jsonEqualDefinition(v, bb[i]));
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const ka = Object.keys(ra).filter((k) => ra[k] !== undefined);
  const kb = Object.keys(rb).filter((k) => rb[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(rb, k) && jsonEqualDefinition(ra[k], rb[k]));
}

test("jsonEqual follows its definition on near-equal pairs (undefined members, reordered keys, changed leaves)", () => {
  const leaf = fc.oneof(fc.constantFrom(undefined, null, 0, 1, "a", "b", true), fc.integer({ min: 0, max: 2 }));
  const { tree } = fc.letrec((tie) => ({
    tree: fc.oneof({ depthSize: "small" }, leaf, fc.array(tie("tree"), { maxLength: 3 }), fc.dictionary(fc.constantFrom("a", "b", "c"), tie("tree"), { maxKeys: 3 })),
  }));
  fc.assert(
    fc.property(tree, tree, (a, b) => {
      assert.equal(jsonEqual(a, b), jsonEqualDefinition(a, b));
    }),
    { numRuns: 3000 },
  );
});
