import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { BoundedMemo } from "../../src/kube/memo.ts";

test("a memo answers what its function answers, computes each kept key once, and undefined is a value", () => {
  const calls: number[] = [];
  const memo = new BoundedMemo<number, number | undefined>(8);
  const f = (k: number) => {
    calls.push(k);
    return k % 2 ? undefined : k * 10;
  };
  assert.equal(memo.get(2, f), 20);
  assert.equal(memo.get(3, f), undefined);
  assert.equal(memo.get(2, f), 20);
  assert.equal(memo.get(3, f), undefined);
  assert.deepEqual(calls, [2, 3], "a remembered undefined is not computed again");
});

test("a memo never holds more than its capacity, keeps what was used within half of it, and forgets the unused", () => {
  fc.assert(
    fc.property(fc.integer({ min: 2, max: 16 }), fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 300 }), (capacity, keys) => {
      const memo = new BoundedMemo<number, number>(capacity);
      const computed: number[] = [];
      // Recency as an LRU of capacity/2 sees it: keys of the last `half` distinct uses.
      const half = Math.floor(capacity / 2);
      const recent: number[] = [];
      for (const k of keys) {
        const before = computed.length;
        assert.equal(memo.get(k, (x) => (computed.push(x), x * 3)), k * 3);
        if (recent.includes(k)) assert.equal(computed.length, before, `key ${k}, used within the last ${half} distinct keys, was computed again`);
        recent.splice(recent.indexOf(k) >>> 0, recent.includes(k) ? 1 : 0);
        recent.push(k);
        if (recent.length > half) recent.shift();
        assert.ok(memo.size <= capacity, `${memo.size} entries held, capacity ${capacity}`);
      }
    }),
  );
});

test("a memo refuses a capacity below 2", () => {
  assert.throws(() => new BoundedMemo(1), RangeError);
  assert.throws(() => new BoundedMemo(Number.NaN), RangeError);
});
