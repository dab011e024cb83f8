import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { listSlots, zonedSchedule } from "../../src/simulate/slots.ts";
import { runNext } from "../../src/cli/next.ts";
import { parseDurationArg, parseIntervalArg, parseTimeArg } from "../../src/cli/time-args.ts";

const noClock = () => {
  throw new Error("the clock must not be read when --from is given");
};

test("a fixed-time slot in the spring-forward gap is moved to just after the gap, once", () => {
  const slots = listSlots(zonedSchedule("0,30 2 * * *", "Europe/Berlin"), new Date("2026-03-28T12:00:00Z"), { count: 3 });
  assert.deepEqual(
    slots.map((s) => [s.at.toISOString(), s.local, s.mark]),
    [
      ["2026-03-29T01:00:00.000Z", "2026-03-29T03:00:00+02:00", "moved"],
      ["2026-03-30T00:00:00.000Z", "2026-03-30T02:00:00+02:00", undefined],
      ["2026-03-30T00:30:00.000Z", "2026-03-30T02:30:00+02:00", undefined],
    ],
  );
  assert.match(slots[0]!.note!, /02:00–03:00 do not exist on 2026-03-29/);
});

test("a wildcard schedule's slots in the spring-forward gap do not run; the first slot after the gap is marked, once", () => {
  const ny = listSlots(zonedSchedule("0 */2 * * *", "America/New_York"), new Date("2026-03-08T04:00:00Z"), { count: 3 });
  assert.deepEqual(ny.map((s) => [s.local, s.mark]), [
    ["2026-03-08T00:00:00-05:00", undefined],
    ["2026-03-08T04:00:00-04:00", "gap"],
    ["2026-03-08T06:00:00-04:00", undefined],
  ]);
  assert.match(ny[1]!.note!, /^02:00–03:00 do not exist on 2026-03-08 \(DST starts\); the slots there do not run/);
  const quarter = listSlots(zonedSchedule("*/15 * * * *", "Europe/Berlin"), new Date("2026-03-29T00:30:00Z"), { count: 3 });
  assert.deepEqual(quarter.map((s) => [s.local, s.mark]), [
    ["2026-03-29T01:45:00+01:00", undefined],
    ["2026-03-29T03:00:00+02:00", "gap"],
    ["2026-03-29T03:15:00+02:00", undefined],
  ]);
  // A daily wildcard job whose whole day fell into the gap: the next day's first slot is marked,
  // naming the day of the gap; Troll's two-hour change and Lord Howe's half hour likewise.
  const daily = listSlots(zonedSchedule("*/30 2 * * *", "America/New_York"), new Date("2026-03-07T12:00:00Z"), { count: 3 });
  assert.deepEqual(daily.map((s) => [s.local, s.mark]), [
    ["2026-03-09T02:00:00-04:00", "gap"],
    ["2026-03-09T02:30:00-04:00", undefined],
    ["2026-03-10T02:00:00-04:00", undefined],
  ]);
  assert.match(daily[0]!.note!, /^02:00–03:00 do not exist on 2026-03-08 /);
  const troll = listSlots(zonedSchedule("0 */2 * * *", "Antarctica/Troll"), new Date("2026-03-28T23:00:00Z"), { count: 2 });
  assert.deepEqual(troll.map((s) => [s.local, s.mark]), [["2026-03-29T00:00:00Z", undefined], ["2026-03-29T04:00:00+02:00", "gap"]]);
  assert.match(troll[1]!.note!, /^01:00–03:00 do not exist on 2026-03-29 /);
  const lordHowe = listSlots(zonedSchedule("*/15 * * * *", "Australia/Lord_Howe"), new Date("2026-10-03T15:00:00Z"), { count: 2 });
  assert.deepEqual(lordHowe.map((s) => [s.local, s.mark]), [["2026-10-04T01:45:00+10:30", undefined], ["2026-10-04T02:30:00+11:00", "gap"]]);
  // A gap that holds none of the schedule's wall times is no hole: 0, 3, 6 … hours skip 02:00 anyway.
  assert.ok(listSlots(zonedSchedule("0 */3 * * *", "Europe/Berlin"), new Date("2026-03-28T22:00:00Z"), { count: 3 }).every((s) => s.mark === undefined));
  // Autumn has no gap.
  assert.ok(listSlots(zonedSchedule("0 */2 * * *", "America/New_York"), new Date("2026-11-01T00:00:00Z"), { count: 6 }).every((s) => s.mark !== "gap"));
});

test("a fixed-time slot in the repeated autumn hour is merged (runs once); a wildcard one is repeated", () => {
  const fixed = listSlots(zonedSchedule("30 2 * * *", "Europe/Berlin"), new Date("2026-10-24T12:00:00Z"), { count: 2 });
  assert.deepEqual(fixed.map((s) => [s.local, s.mark]), [["2026-10-25T02:30:00+02:00", "merged"], ["2026-10-26T02:30:00+01:00", undefined]]);
  const wild = listSlots(zonedSchedule("30 * * * *", "Europe/Berlin"), new Date("2026-10-25T00:00:00Z"), { count: 3 });
  assert.deepEqual(wild.map((s) => [s.local, s.mark]), [
    ["2026-10-25T02:30:00+02:00", "repeated"],
    ["2026-10-25T02:30:00+01:00", "repeated"],
    ["2026-10-25T03:30:00+01:00", undefined],
  ]);
});

test("UTC and @every slots are never marked; a schedule that never fires lists nothing", () => {
  assert.ok(listSlots(zonedSchedule("* * * * *"), new Date("2026-03-29T00:00:00Z"), { count: 200 }).every((s) => s.mark === undefined));
  const every = listSlots(zonedSchedule("@every 90m", "Europe/Berlin"), new Date("2026-03-29T00:00:00Z"), { count: 2 });
  assert.deepEqual(every.map((s) => [s.at.toISOString(), s.mark]), [["2026-03-29T01:30:00.000Z", undefined], ["2026-03-29T03:00:00.000Z", undefined]]);
  assert.deepEqual(listSlots(zonedSchedule("0 0 30 2 *"), new Date("2026-01-01T00:00:00Z"), { count: 3 }), []);
});

test("`metahooks next` prints a table (default) or JSON, with --from, -n and --time-zone", () => {
  const table = runNext(["30 2 * * *", "--time-zone", "Europe/Berlin", "-n", "3", "--from", "2026-03-28"], noClock);
  assert.equal(table.exitCode, 0, table.stderr);
  assert.equal(
    table.stdout,
    [
      "#  UTC                   Europe/Berlin              DST",
      "1  2026-03-28T01:30:00Z  2026-03-28T02:30:00+01:00",
      "2  2026-03-29T01:00:00Z  2026-03-29T03:00:00+02:00  moved: 02:00–03:00 do not exist on 2026-03-29 (DST starts); the slots there run once, at 03:00",
      "3  2026-03-30T00:30:00Z  2026-03-30T02:30:00+02:00",
      "",
    ].join("\n"),
  );
  // UTC (the default) has nothing to add to the UTC column; another zone keeps its column even
  // in a season when it reads as UTC.
  assert.equal(runNext(["0 9 * * *", "-n", "2", "--from", "2026-01-26"], noClock).stdout, "#  UTC\n1  2026-01-26T09:00:00Z\n2  2026-01-27T09:00:00Z\n");
  assert.match(runNext(["0 9 * * *", "-n", "1", "--from", "2026-01-26", "--time-zone", "Europe/London"], noClock).stdout, /^#  UTC +Europe\/London +DST\n1  2026-01-26T09:00:00Z  \S+\n$/);
  const json = runNext(["30 2 * * *", "--time-zone=Europe/Berlin", "-n", "1", "--from", "2026-10-25T00:00", "-o", "json"], noClock);
  assert.deepEqual(JSON.parse(json.stdout).slots, [
    { time: "2026-10-25T00:30:00Z", local: "2026-10-25T02:30:00+02:00", dst: "merged", note: "02:30 happens twice on 2026-10-25 (DST ends); runs once, at the first" },
  ]);
  const now = runNext(["@hourly", "-n", "1"], () => new Date("2026-01-01T10:20:00Z"));
  assert.match(now.stdout, /2026-01-01T11:00:00Z/);
});

test("`metahooks next` rejects bad input with the hook's own message (exit 1) and misuse with usage (exit 2)", () => {
  const bad = runNext(["0 0 * * 7"], () => new Date(0));
  assert.equal(bad.exitCode, 1);
  assert.match(bad.stderr, /day of week/);
  assert.equal(runNext(["* * * * *", "--time-zone", "Mars/Olympus"], () => new Date(0)).exitCode, 1);
  for (const args of [[], ["*", "*"], ["* * * * *", "-n", "0"], ["* * * * *", "-n", "x"], ["* * * * *", "-o", "yaml"], ["* * * * *", "--bogus"], ["* * * * *", "--from", "2026-02-30"]]) {
    const out = runNext(args, () => new Date(0));
    assert.equal(out.exitCode, 2, args.join(" "));
    assert.equal(out.stdout, "", args.join(" "));
    assert.match(out.stderr, /Usage: metahooks next/, args.join(" "));
  }
});

test("time arguments: dates and offset-less times are UTC; impossible dates and reversed intervals are rejected", () => {
  assert.equal(parseTimeArg("2026-03-28", "--from").toISOString(), "2026-03-28T00:00:00.000Z");
  assert.equal(parseTimeArg("2026-03-28T01:30", "--from").toISOString(), "2026-03-28T01:30:00.000Z");
  assert.equal(parseTimeArg("2026-03-28T03:30:00+02:00", "--from").toISOString(), "2026-03-28T01:30:00.000Z");
  assert.equal(parseTimeArg("2026-03-28 01:30:15.5Z", "--from").toISOString(), "2026-03-28T01:30:15.500Z");
  // Date would roll each of these over to another instant; they are typos, refused as --now refuses them.
  for (const bad of ["2026-02-30", "2026-13-01", "tomorrow", "2026-03-28T25:00", "2026-03-26T24:00:00", "2026-03-26T24:00:00Z", "2026-03-26T23:60", "2026-03-26T23:59:60Z", "2026-03-26T10:00+24:00", ""]) {
    assert.throws(() => parseTimeArg(bad, "--from"), /--from/, bad);
  }
  assert.deepEqual(parseIntervalArg("2026-03-29T01:00/03:00", "--outage"), { start: new Date("2026-03-29T01:00:00Z"), end: new Date("2026-03-29T03:00:00Z") });
  assert.deepEqual(parseIntervalArg("2026-03-29T01:00/2h", "--outage").end, new Date("2026-03-29T03:00:00Z"));
  assert.deepEqual(parseIntervalArg("2026-03-29/2026-03-30T00:30Z", "--outage").end, new Date("2026-03-30T00:30:00Z"));
  assert.throws(() => parseIntervalArg("2026-03-29T03:00/01:00", "--outage"), /the end 2026-03-29T01:00:00Z is not after the start 2026-03-29T03:00:00Z/);
  assert.throws(() => parseIntervalArg("2026-03-29T03:00", "--outage"), /start\/end/);
  assert.equal(parseDurationArg("1h30m", "--job-duration"), 5400);
  assert.equal(parseDurationArg("90s", "--job-duration"), 90);
  assert.throws(() => parseDurationArg("20", "--job-duration"), /--job-duration/);
});

test("the CLI runs `next` (bin/metahooks.js)", () => {
  const out = spawnSync(process.execPath, ["bin/metahooks.js", "next", "0 9 * * MON-FRI", "--from", "2026-01-02T10:00:00Z", "-n", "2"], { encoding: "utf8" });
  assert.equal(out.status, 0, out.stderr);
  assert.match(out.stdout, /2026-01-05T09:00:00Z[\s\S]*2026-01-06T09:00:00Z/);
});
