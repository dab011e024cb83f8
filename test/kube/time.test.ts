import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { formatTime, parseTime } from "../../src/kube/time.ts";

test("parseTime answers the same for a text seen before (memo): equal, separate Dates, and undefined for non-times", () => {
  const first = parseTime("2026-03-29T01:30:00+01:00")!;
  assert.equal(first.toISOString(), "2026-03-29T00:30:00.000Z");
  first.setTime(0); // a caller's change to its Date reaches nobody else
  assert.equal(parseTime("2026-03-29T01:30:00+01:00")!.toISOString(), "2026-03-29T00:30:00.000Z");
  for (let i = 0; i < 2; i++) {
    assert.equal(parseTime("2026-02-30T00:00:00Z")?.toISOString(), new Date("2026-02-30T00:00:00Z").toISOString());
    assert.equal(parseTime("2026-13-01T00:00:00Z"), undefined);
    assert.equal(parseTime("yesterday"), undefined);
    assert.equal(parseTime(1_700_000_000), undefined);
  }
});

test("parseTime with a memo gives what it gives without one, for any sequence of texts (repeats, more texts than the memo holds)", () => {
  const expected = (v: string) => {
    if (!/^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(v)) return undefined;
    const ms = new Date(v).getTime();
    return Number.isNaN(ms) ? undefined : ms;
  };
  const time = fc
    .date({ min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true })
    .map((d) => d.toISOString().replace(/\.\d{3}Z$/, "Z"));
  const text = fc.oneof(time, fc.string(), fc.constantFrom("2026-02-30T00:00:00Z", "2026-01-01t00:00:00z", "2026-01-01T24:00:00Z"));
  fc.assert(
    fc.property(fc.array(text, { maxLength: 50 }), fc.array(fc.nat(), { maxLength: 50 }), (texts, picks) => {
      const sequence = [...texts, ...picks.map((i) => texts[i % Math.max(1, texts.length)] ?? "")];
      for (const v of sequence) assert.equal(parseTime(v)?.getTime(), expected(v), v);
    }),
    { numRuns: 300 },
  );
  // Past the memo's bound it is emptied and refilled: still the same answers.
  for (let i = 0; i < 10_000; i++) {
    const v = formatTime(new Date(Date.UTC(2026, 0, 1) + i * 1000));
    assert.equal(parseTime(v)?.getTime(), Date.UTC(2026, 0, 1) + i * 1000);
  }
});

test("formatTime: UTC, whole seconds, Z", () => {
  assert.equal(formatTime(new Date("2026-03-29T01:30:59.999+01:00")), "2026-03-29T00:30:59Z");
  assert.equal(formatTime(new Date(0)), "1970-01-01T00:00:00Z");
});
