import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { checkScheduleSyntax, parseGoDurationSeconds, parseSchedule, SCHEDULE_CACHE_SIZE, type Schedule } from "../../../src/controllers/cronjob/schedule.ts";
import { checkTimeZone, formatInZone } from "../../../src/controllers/cronjob/time-zone.ts";

const d = (s: string) => new Date(s);
const iso = (t: Date | undefined) => t?.toISOString().replace(".000Z", "Z");

function schedule(text: string, zone = "UTC"): Schedule {
  const parsed = parseSchedule(text, zone);
  assert.ok(parsed.ok, `${text}: ${parsed.ok ? "" : parsed.message}`);
  return parsed.schedule;
}

/** Slots after `from`, n of them, by chaining nextSlot (anchor = from). */
function nextSlots(s: Schedule, from: string, n: number): string[] {
  const out: string[] = [];
  let t = d(from);
  for (let i = 0; i < n; i++) {
    const next = s.nextSlot(t, d(from));
    if (!next) break;
    out.push(iso(next)!);
    t = next;
  }
  return out;
}

test("robfig standard grammar: accepted schedules", () => {
  for (const text of [
    "* * * * *", "*/5 * * * *", "0 0 * * 0", "0 0 * * SUN", "0 0 * * mon-FRI", "0 0 1 JAN *", "0 0 1 jan-mar *",
    "? * * * *", "0 0 ? * MON", "5/15 * * * *", "0 0 1,15 * *", "0 6-16/4 * * 1-5", "*/61 * * * *", "  0 0 * * *  ",
    "0\t0 * * *", "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly",
    "@every 1h30m", "@every 90s", "@every 1.5h", "@every 1m0.5s",
  ]) {
    assert.equal(checkScheduleSyntax(text), undefined, text);
  }
});

test("robfig standard grammar: rejected schedules name the rule", () => {
  const cases: Array<[string, RegExp]> = [
    ["", /empty/],
    ["   ", /empty/],
    ["* * * *", /exactly 5 fields/],
    ["0 * * * * *", /exactly 5 fields/],
    ["0 0 0 * * * 2026", /exactly 5 fields/],
    ["0 0 * * 7", /day of week: end of range \(7\) above maximum \(6\)/],
    ["0 0 * * 5-7", /above maximum \(6\)/],
    ["0 0 L * *", /not a number/],
    ["0 0 1W * *", /not a number/],
    ["0 0 * * 1#2", /not a number/],
    ["0 0 * * 5L", /not a number/],
    ["H * * * *", /not a number/],
    ["60 * * * *", /minute: end of range \(60\)/],
    ["* 24 * * *", /hour/],
    ["* * 0 * *", /day of month: beginning of range \(0\) below minimum \(1\)/],
    ["* * 32 * *", /day of month/],
    ["* * * 13 *", /month/],
    ["* * * 0 *", /month/],
    ["mon * * * *", /minute: "mon" is not a number$/],
    ["1,,2 * * * *", /empty list element/],
    ["5-1 * * * *", /beyond end of range/],
    ["*/0 * * * *", /step must be positive/],
    ["1/2/3 * * * *", /too many slashes/],
    ["1-2-3 * * * *", /too many hyphens/],
    ["-1 * * * *", /not a number/],
    ["TZ=UTC 0 * * * *", /cannot use TZ or CRON_TZ/],
    ["CRON_TZ=Europe/Berlin 0 * * * *", /cannot use TZ or CRON_TZ/],
    ["@DAILY", /unrecognized descriptor/],
    ["@reboot", /unrecognized descriptor/],
    ["@daily ", /unrecognized descriptor/],
    ["@every", /unrecognized descriptor/],
    ["@every 0s", /at least 1s/],
    ["@every 500ms", /at least 1s/],
    ["@every 30s", /at least 1m/],
    ["@every 59.9s", /at least 1m/],
    ["@every -1m", /positive/],
    ["@every 5", /not a Go duration/],
    ["@every 1d", /not a Go duration/],
  ];
  for (const [text, pattern] of cases) {
    const message = checkScheduleSyntax(text);
    assert.ok(message, `${JSON.stringify(text)} must be rejected`);
    assert.match(message, pattern, JSON.stringify(text));
    assert.equal(parseSchedule(text, "UTC").ok, false, text);
  }
});

test("names, ?, steps and descriptors evaluate like robfig", () => {
  // Thursday 2025-11-20.
  assert.deepEqual(nextSlots(schedule("0 0 * * MON/2"), "2025-11-20T00:00:01Z", 3), [
    "2025-11-21T00:00:00Z", // Fri (MON/2 = Mon, Wed, Fri)
    "2025-11-24T00:00:00Z",
    "2025-11-26T00:00:00Z",
  ]);
  assert.deepEqual(nextSlots(schedule("5/15 * * * *"), "2026-01-05T12:00:00Z", 4), [
    "2026-01-05T12:05:00Z", "2026-01-05T12:20:00Z", "2026-01-05T12:35:00Z", "2026-01-05T12:50:00Z",
  ]);
  assert.deepEqual(nextSlots(schedule("*/61 * * * *"), "2026-01-05T12:00:00Z", 2), ["2026-01-05T13:00:00Z", "2026-01-05T14:00:00Z"]);
  assert.deepEqual(nextSlots(schedule("0 0 ? * sun"), "2025-11-20T00:00:00Z", 1), ["2025-11-23T00:00:00Z"]);
  assert.deepEqual(nextSlots(schedule("@weekly"), "2025-11-20T00:00:00Z", 1), ["2025-11-23T00:00:00Z"]);
  assert.deepEqual(nextSlots(schedule("@yearly"), "2025-11-20T00:00:00Z", 1), ["2026-01-01T00:00:00Z"]);
  assert.deepEqual(nextSlots(schedule("@monthly"), "2025-11-20T00:00:00Z", 1), ["2025-12-01T00:00:00Z"]);
  assert.deepEqual(nextSlots(schedule("@hourly"), "2025-11-20T00:00:00Z", 1), ["2025-11-20T01:00:00Z"]);
  assert.deepEqual(nextSlots(schedule("0 0 1 FEB,mar *"), "2025-11-20T00:00:00Z", 2), ["2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"]);
  assert.equal(schedule("@daily").canonical, "0 0 * * *");
  assert.equal(schedule("*/20 ? * jan-MAR *").canonical, "*/20 * * 1,2,3 *");
  assert.equal(schedule("5/20 1-2 * * *").canonical, "5,25,45 1,2 * * *");
});

test("day-of-month / day-of-week OR rule uses robfig's star bit (*/1 and ? are unrestricted)", () => {
  // Both restricted → OR: the 15th or Sun/Tue/Thu/Sat.
  assert.deepEqual(nextSlots(schedule("0 0 15 * */2"), "2025-11-20T00:00:01Z", 1), ["2025-11-22T00:00:00Z"]);
  // */1 is unrestricted in robfig → AND with "every day" → the 15th only (cron-parser and croner differ).
  assert.deepEqual(nextSlots(schedule("0 0 15 * */1"), "2025-11-15T00:00:00Z", 1), ["2025-12-15T00:00:00Z"]);
  assert.deepEqual(nextSlots(schedule("0 0 15 * ?"), "2025-11-15T00:00:00Z", 1), ["2025-12-15T00:00:00Z"]);
  assert.deepEqual(nextSlots(schedule("0 0 */1 * 1"), "2025-11-20T00:00:01Z", 1), ["2025-11-24T00:00:00Z"]);
  // 1-31 is a restriction in robfig → OR with Monday → every day.
  assert.deepEqual(nextSlots(schedule("0 0 1-31 * 1"), "2025-11-20T00:00:01Z", 1), ["2025-11-21T00:00:00Z"]);
  // Only day-of-week restricted → Mondays.
  assert.deepEqual(nextSlots(schedule("0 0 * * 1"), "2025-11-20T00:00:01Z", 1), ["2025-11-24T00:00:00Z"]);
});

test("latestSlot returns the most recent slot in (after, now] and nothing else", () => {
  const s = schedule("0 * * * *");
  assert.equal(iso(s.latestSlot(d("2026-01-05T12:20:00Z"), d("2025-12-28T12:00:00Z"))), "2026-01-05T12:00:00Z");
  assert.equal(iso(s.latestSlot(d("2026-01-05T12:00:00Z"), d("2026-01-05T11:00:00Z"))), "2026-01-05T12:00:00Z", "a slot at exactly now counts");
  assert.equal(iso(s.latestSlot(d("2026-01-05T11:59:59.999Z"), d("2026-01-05T10:30:00Z"))), "2026-01-05T11:00:00Z");
  assert.equal(s.latestSlot(d("2026-01-05T12:20:00Z"), d("2026-01-05T12:00:00Z")), undefined, "the bound is exclusive");
  assert.equal(schedule("0 0 30 2 *").latestSlot(d("2026-01-05T12:20:00Z"), d("2020-01-01T00:00:00Z")), undefined);
  assert.equal(schedule("0 0 30 2 *").nextSlot(d("2026-01-05T12:20:00Z"), d("2026-01-05T12:20:00Z")), undefined, "never fires");
});

test("decades of missed `* * * * *` slots: the most recent one, found directly (a loop would not finish)", { timeout: 20_000 }, () => {
  const s = schedule("* * * * *", "America/New_York");
  assert.equal(iso(s.latestSlot(d("2026-01-05T12:00:30Z"), d("2025-01-05T12:00:00Z"))), "2026-01-05T12:00:00Z");
  assert.equal(iso(s.latestSlot(d("2026-01-05T12:00:30Z"), d("1970-01-01T00:00:00Z"))), "2026-01-05T12:00:00Z");
});

test("DST America/New_York: a fixed-time slot in the repeated hour runs once, at its first occurrence (C3)", () => {
  const s = schedule("30 1 * * *", "America/New_York");
  assert.equal(iso(s.latestSlot(d("2024-11-03T07:00:00Z"), d("2024-11-02T05:30:00Z"))), "2024-11-03T05:30:00Z");
  assert.equal(s.latestSlot(d("2024-11-03T07:00:00Z"), d("2024-11-03T05:30:00Z")), undefined, "no second run at 06:30Z");
  assert.equal(iso(s.nextSlot(d("2024-11-03T05:30:00Z"), d("2024-11-03T05:30:00Z"))), "2024-11-04T06:30:00Z");
});

test("DST America/New_York: interval schedules follow elapsed time through the repeated hour", () => {
  const s = schedule("*/15 * * * *", "America/New_York");
  assert.deepEqual(nextSlots(s, "2024-11-03T05:30:00Z", 4), [
    "2024-11-03T05:45:00Z", "2024-11-03T06:00:00Z", "2024-11-03T06:15:00Z", "2024-11-03T06:30:00Z",
  ]);
  assert.deepEqual(nextSlots(schedule("0 * * * *", "America/New_York"), "2024-03-10T06:00:00Z", 2), [
    "2024-03-10T07:00:00Z", "2024-03-10T08:00:00Z",
  ]);
});

test("DST America/New_York: a fixed-time slot in the spring-forward gap runs once just after it (C4)", () => {
  const s = schedule("30 2 * * *", "America/New_York");
  assert.deepEqual(nextSlots(s, "2024-03-09T08:00:00Z", 2), ["2024-03-10T07:00:00Z", "2024-03-11T06:30:00Z"]);
  assert.equal(iso(s.latestSlot(d("2024-03-10T08:00:00Z"), d("2024-03-09T07:30:00Z"))), "2024-03-10T07:00:00Z");
});

test("DST follows Vixie cron: lists and ranges are fixed-time, a `*` minute or hour is wild", () => {
  // 2024-03-10 02:00-02:59 does not exist in New York; 2024-11-03 01:00-01:59 happens twice.
  const list = schedule("30 2,14 * * *", "America/New_York");
  assert.deepEqual(nextSlots(list, "2024-03-10T05:00:00Z", 2), ["2024-03-10T07:00:00Z", "2024-03-10T18:30:00Z"]);
  assert.deepEqual(nextSlots(schedule("30 1,13 * * *", "America/New_York"), "2024-11-03T04:00:00Z", 2), [
    "2024-11-03T05:30:00Z", // the first 01:30 (EDT) only
    "2024-11-03T18:30:00Z",
  ]);
  assert.deepEqual(nextSlots(schedule("0 1-2 * * *", "America/New_York"), "2024-11-03T04:00:00Z", 3), [
    "2024-11-03T05:00:00Z",
    "2024-11-03T07:00:00Z", // 02:00 EST; the repeated 01:00 EST (06:00Z) does not run again
    "2024-11-04T06:00:00Z",
  ]);
  // A `*` minute is wild: elapsed time, so both 01:xx hours run.
  assert.deepEqual(nextSlots(schedule("*/30 1 * * *", "America/New_York"), "2024-11-03T04:00:00Z", 4), [
    "2024-11-03T05:00:00Z", "2024-11-03T05:30:00Z", "2024-11-03T06:00:00Z", "2024-11-03T06:30:00Z",
  ]);
});

test("DST Europe/Berlin: spring gap and autumn repeat", () => {
  const s = schedule("30 2 * * *", "Europe/Berlin");
  assert.deepEqual(nextSlots(s, "2024-03-30T12:00:00Z", 2), ["2024-03-31T01:00:00Z", "2024-04-01T00:30:00Z"]);
  assert.deepEqual(nextSlots(s, "2024-10-26T12:00:00Z", 2), ["2024-10-27T00:30:00Z", "2024-10-28T01:30:00Z"]);
  assert.equal(s.latestSlot(d("2024-10-27T02:00:00Z"), d("2024-10-27T00:30:00Z")), undefined);
});

test("schedules use the given zone, never the process zone", () => {
  assert.deepEqual(nextSlots(schedule("0 9 * * *", "Asia/Kolkata"), "2026-01-05T00:00:00Z", 1), ["2026-01-05T03:30:00Z"]);
  assert.deepEqual(nextSlots(schedule("0 9 * * *"), "2026-01-05T00:00:00Z", 1), ["2026-01-05T09:00:00Z"]);
});

test("@every counts from the anchor (last run, else creation) in whole seconds, ignoring zones", () => {
  const s = schedule("@every 1h30m", "America/New_York");
  const anchor = d("2026-01-05T10:00:00.700Z");
  assert.equal(iso(s.latestSlot(d("2026-01-05T13:10:00Z"), anchor)), "2026-01-05T13:00:00Z");
  assert.equal(s.latestSlot(d("2026-01-05T11:29:59Z"), anchor), undefined);
  assert.equal(iso(s.nextSlot(d("2026-01-05T13:10:00Z"), anchor)), "2026-01-05T14:30:00Z");
  assert.equal(iso(s.nextSlot(d("2026-01-05T09:00:00Z"), anchor)), "2026-01-05T11:30:00Z");
  assert.equal(iso(s.latestSlot(d("2027-01-05T13:10:00Z"), anchor)), "2027-01-05T13:00:00Z", "a year of misses: one computation");
  assert.equal(s.canonical, "@every 5400s");
});

test("Go durations for @every", () => {
  assert.equal(parseGoDurationSeconds("90s"), 90);
  assert.equal(parseGoDurationSeconds("1.5h"), 5400);
  assert.equal(parseGoDurationSeconds("0.7h"), 2520);
  assert.equal(parseGoDurationSeconds("2m3.9s"), 123);
  assert.equal(parseGoDurationSeconds("1h0.5s"), 3600);
  assert.equal(parseGoDurationSeconds("+10m"), 600);
  assert.equal(parseGoDurationSeconds("1500ms"), 1);
  assert.equal(parseGoDurationSeconds(".5m"), 30);
});

test("time zones: upstream name rules, Intl existence, case-sensitive", () => {
  for (const ok of ["America/New_York", "UTC", "Etc/GMT+5", "Europe/Berlin", "America/Argentina/Buenos_Aires"]) {
    assert.equal(checkTimeZone(ok), undefined, ok);
  }
  for (const bad of ["", "Local", "local", "utc", "america/new_york", "Foo/Bar", "../etc/passwd", "-Europe/Berlin", "America/New York", "Europe/Berlinxxxxxxxxxxx", "+01:00"]) {
    assert.ok(checkTimeZone(bad), `${JSON.stringify(bad)} must be rejected`);
  }
});

test("scheduled timestamps in the CronJob's zone, as Go's RFC 3339", () => {
  assert.equal(formatInZone(d("2016-05-19T10:00:00Z"), "America/New_York"), "2016-05-19T06:00:00-04:00");
  assert.equal(formatInZone(d("2016-01-19T10:00:00Z"), "America/New_York"), "2016-01-19T05:00:00-05:00");
  assert.equal(formatInZone(d("2026-01-05T12:00:00Z"), "UTC"), "2026-01-05T12:00:00Z");
  assert.equal(formatInZone(d("2026-01-05T12:00:00Z"), "Europe/London"), "2026-01-05T12:00:00Z");
  assert.equal(formatInZone(d("2026-01-05T12:00:00Z"), "Asia/Kolkata"), "2026-01-05T17:30:00+05:30");
  assert.equal(formatInZone(d("2026-01-05T23:30:00Z"), "Pacific/Kiritimati"), "2026-01-06T13:30:00+14:00");
});

test("compiled schedules are memoized per (text, zone), frozen, and the memo is bounded", () => {
  const a = parseSchedule("*/7 3 * * *", "Europe/Berlin");
  assert.equal(parseSchedule("*/7 3 * * *", "Europe/Berlin"), a, "same text and zone: the same compiled schedule");
  assert.notEqual(parseSchedule("*/7 3 * * *", "UTC"), a, "another zone is another schedule");
  assert.ok(Object.isFrozen(a) && a.ok && Object.isFrozen(a.schedule), "a shared result cannot be changed by a caller");
  const rejected = parseSchedule("61 * * * *", "UTC");
  assert.equal(parseSchedule("61 * * * *", "UTC"), rejected, "rejections are memoized too");
  // A reused schedule answers exactly like a fresh one, whatever it answered before.
  const reused = schedule("*/7 3 * * *", "Europe/Berlin");
  reused.latestSlot(d("2026-03-29T05:00:00Z"), d("2025-01-01T00:00:00Z"));
  assert.equal(iso(reused.latestSlot(d("2026-01-05T12:00:30Z"), d("2026-01-01T00:00:00Z"))), "2026-01-05T02:56:00Z");
  // Filling the memo with other schedules evicts the least recently used entry.
  for (let i = 0; i < SCHEDULE_CACHE_SIZE; i++) parseSchedule(`${i % 60} ${Math.floor(i / 60)} * * *`, "UTC");
  assert.notEqual(parseSchedule("*/7 3 * * *", "Europe/Berlin"), a, "evicted after SCHEDULE_CACHE_SIZE other schedules");
  // Texts too long to be a real schedule are not kept at all.
  const long = `* * * * ${"1,".repeat(200)}2`;
  assert.notEqual(parseSchedule(long, "UTC"), parseSchedule(long, "UTC"));
});

test("a compiled schedule's remembered answers are croner's: any order of reference times, repeats, more than it keeps; Dates not shared", () => {
  const parsed = parseSchedule("* * * * *", "UTC");
  assert.ok(parsed.ok);
  const s = parsed.schedule;
  const minute = 60_000;
  const base = Date.UTC(2026, 2, 26);
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 20 * minute }), { minLength: 1, maxLength: 40 }), (offsets) => {
      for (const o of [...offsets, ...offsets.reverse()]) {
        const t = base + o;
        assert.equal(s.nextSlot(new Date(t), new Date(base))?.getTime(), Math.floor(t / minute) * minute + minute);
        const latest = Math.floor(t / minute) * minute;
        assert.equal(s.latestSlot(new Date(t), new Date(base))?.getTime(), latest > base ? latest : undefined);
      }
    }),
    { numRuns: 200 },
  );
  const a = s.nextSlot(new Date(base), new Date(base))!;
  a.setTime(0);
  assert.equal(s.nextSlot(new Date(base), new Date(base))?.getTime(), base + minute);
});

test("a UTC schedule answers between two slots from the remembered span exactly as croner answers each reference time", () => {
  // The answers a schedule gives with an empty memo and span, for each reference time on its own:
  // a text longer than the memo's limit is compiled afresh on every parseSchedule call.
  const fresh = (pattern: string) => {
    const padded = `${pattern}${" ".repeat(300)}`;
    const parsed = parseSchedule(padded, "UTC");
    assert.ok(parsed.ok, pattern);
    return parsed.schedule;
  };
  const patterns = ["*/7 3 * * *", "0 0 29 2 *", "30 */5 * * 1-5", "* * * * *", "59 23 31 12 *"];
  const base = Date.UTC(2026, 0, 1);
  fc.assert(
    fc.property(
      fc.constantFrom(...patterns),
      fc.array(fc.integer({ min: 0, max: 5 * 366 * 86_400_000 }), { minLength: 1, maxLength: 30 }),
      fc.integer({ min: 0, max: 86_400_000 }),
      (pattern, offsets, anchorOffset) => {
        const parsed = parseSchedule(pattern, "UTC");
        assert.ok(parsed.ok);
        const shared = parsed.schedule;
        const anchor = new Date(base + anchorOffset);
        // Nearby reference times too, so that many of them fall in one remembered span.
        for (const o of offsets.flatMap((x) => [x, x + 1, x + 59_999, x + 60_000, x - 1])) {
          const t = new Date(base + o);
          assert.equal(shared.nextSlot(t, anchor)?.getTime(), fresh(pattern).nextSlot(t, anchor)?.getTime(), `${pattern} next after ${t.toISOString()}`);
          assert.equal(shared.latestSlot(t, anchor)?.getTime(), fresh(pattern).latestSlot(t, anchor)?.getTime(), `${pattern} latest at ${t.toISOString()}`);
        }
      },
    ),
    { numRuns: 100 },
  );
});

test("a UTC schedule walked forward in time (as a simulation or a running controller asks) answers as croner answers each reference time", () => {
  const fresh = (pattern: string) => {
    const parsed = parseSchedule(`${pattern}${" ".repeat(300)}`, "UTC");
    assert.ok(parsed.ok, pattern);
    return parsed.schedule;
  };
  const patterns = ["*/7 3 * * *", "0 0 29 2 *", "30 */5 * * 1-5", "* * * * *", "*/2 * * * *", "0 * * * *"];
  fc.assert(
    fc.property(
      fc.constantFrom(...patterns),
      fc.integer({ min: 0, max: 366 * 86_400_000 }),
      // Steps from a millisecond to two days: most land in the next span, some skip several.
      fc.array(fc.oneof(fc.integer({ min: 1, max: 90_000 }), fc.integer({ min: 1, max: 2 * 86_400_000 })), { minLength: 1, maxLength: 40 }),
      (pattern, start, steps) => {
        const parsed = parseSchedule(pattern, "UTC");
        assert.ok(parsed.ok);
        const shared = parsed.schedule;
        const anchor = new Date(Date.UTC(2026, 0, 1));
        let t = Date.UTC(2026, 0, 1) + start;
        for (const step of steps) {
          t += step;
          const at = new Date(t);
          assert.equal(shared.latestSlot(at, anchor)?.getTime(), fresh(pattern).latestSlot(at, anchor)?.getTime(), `${pattern} latest at ${at.toISOString()}`);
          assert.equal(shared.nextSlot(at, anchor)?.getTime(), fresh(pattern).nextSlot(at, anchor)?.getTime(), `${pattern} next after ${at.toISOString()}`);
        }
      },
    ),
    { numRuns: 100 },
  );
});
