/**
 * Slots of a CronJob schedule in a time zone, each marked when a daylight-saving change moved it,
 * merged it with another, or makes its wall time happen twice. The slots come from the hook's own
 * schedule evaluation (src/controllers/cronjob/schedule.ts); this module only lists and explains.
 *
 * @packageDocumentation
 */
import { parseSchedule, type Schedule } from "../controllers/cronjob/schedule.ts";
import { checkTimeZone, formatInZone, zoneOffsetMinutes } from "../controllers/cronjob/time-zone.ts";

/**
 * How a daylight-saving change affects a slot.
 * - `moved`: a fixed-time slot whose wall time does not exist that day (spring forward); it runs
 *   once, just after the gap (several gap slots merge into this one).
 * - `merged`: a fixed-time slot whose wall time happens twice (fall back); it runs once, at the
 *   first occurrence.
 * - `repeated`: a wildcard slot whose wall time happens twice; it runs at both occurrences
 *   (elapsed time), this is one of them.
 * - `gap`: the first slot of a wildcard schedule after a spring-forward gap that held some of its
 *   wall times (`0 *‍/2 * * *` at 02:00 in New York): those slots do not run, and this one is the
 *   next that does. Marked so that a listing shows the hole it would otherwise hide.
 */
export type DstMark = "moved" | "merged" | "repeated" | "gap";

/** One slot: the instant, its wall time in the CronJob's zone, and a DST mark with a sentence. */
export interface ListedSlot {
  /** The instant (UTC). */
  at: Date;
  /** RFC 3339 in the zone, e.g. `2026-03-29T03:00:00+02:00`. */
  local: string;
  mark?: DstMark;
  /** Why it is marked, e.g. `02:00–03:00 do not exist on 2026-03-29 (DST starts); runs once at 03:00`. */
  note?: string;
}

/** A parsed schedule plus what marking needs. */
export interface ZonedSchedule {
  schedule: Schedule;
  /** The same schedule evaluated in UTC: its instants, read as UTC, are its wall times. */
  wallClock: Schedule;
  zone: string;
  /** Fixed-time in Vixie cron's sense: neither the minute nor the hour field starts with `*`. */
  fixedTime: boolean;
  /** Minutes and hours a fixed-time pattern names (empty for `@every` and wildcard jobs). */
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
}

/**
 * Parses a schedule and a zone as the CronJob hook does.
 * @throws Error with the hook's own message for an invalid schedule or zone
 */
export function zonedSchedule(text: string, zone = "UTC"): ZonedSchedule {
  const zoneProblem = checkTimeZone(zone);
  if (zoneProblem) throw new Error(zoneProblem);
  const parsed = parseSchedule(text, zone);
  if (!parsed.ok) throw new Error(`invalid schedule ${JSON.stringify(text)}: ${parsed.message}`);
  const canonical = parsed.schedule.canonical;
  const fields = canonical.startsWith("@") ? [] : canonical.split(" ");
  const [minute = "*", hour = "*"] = fields;
  const fixedTime = fields.length === 5 && !minute.startsWith("*") && !hour.startsWith("*");
  const list = (field: string) => new Set(fixedTime ? field.split(",").map(Number) : []);
  // The same schedule on the wall clock (evaluated in UTC, where every wall time exists): which
  // wall times a spring-forward gap swallowed.
  const wall = zone === "UTC" ? parsed : parseSchedule(text, "UTC");
  return { schedule: parsed.schedule, wallClock: wall.ok ? wall.schedule : parsed.schedule, zone, fixedTime, minutes: list(minute), hours: list(hour) };
}

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

function wallClock(at: number, offsetMinutes: number): string {
  return new Date(at + offsetMinutes * MINUTE_MS).toISOString().slice(11, 16);
}

/** Marks one slot (see {@link DstMark}); undefined when no DST change touches it. */
export function markSlot(zs: ZonedSchedule, at: Date): Pick<ListedSlot, "mark" | "note"> {
  if (zs.zone === "UTC" || zs.schedule.canonical.startsWith("@every")) return {};
  const t = at.getTime();
  const offset = zoneOffsetMinutes(at, zs.zone);
  const local = new Date(t + offset * MINUTE_MS);
  const day = local.toISOString().slice(0, 10);
  if (zs.fixedTime && !(zs.minutes.has(local.getUTCMinutes()) && zs.hours.has(local.getUTCHours()))) {
    const before = zoneOffsetMinutes(new Date(t - 3 * HOUR_MS), zs.zone);
    return {
      mark: "moved",
      note: `${wallClock(t, before)}–${wallClock(t, offset)} do not exist on ${day} (DST starts); the slots there run once, at ${wallClock(t, offset)}`,
    };
  }
  if (!zs.fixedTime) {
    const gap = gapBefore(zs, t, offset);
    if (gap) return { mark: "gap", note: `${gap.from}–${gap.to} do not exist on ${gap.day} (DST starts); the slots there do not run (a * minute or hour follows the wall clock)` };
  }
  // A wall time happens twice when shifting by the offset change lands on an instant that shows it again.
  for (const probe of [t - 3 * HOUR_MS, t + 3 * HOUR_MS]) {
    const other = zoneOffsetMinutes(new Date(probe), zs.zone);
    if (other === offset) continue;
    const twin = t + (offset - other) * MINUTE_MS;
    if (twin === t || zoneOffsetMinutes(new Date(twin), zs.zone) !== other) continue;
    const wall = wallClock(t, offset);
    if (zs.fixedTime) return { mark: "merged", note: `${wall} happens twice on ${day} (DST ends); runs once, at the first` };
    return { mark: "repeated", note: `${wall} happens twice on ${day} (DST ends); runs at ${twin > t ? "the first and again at the second" : "the second too"}` };
  }
  return {};
}

/** How far back {@link gapBefore} looks for the slot before a gap (a daily wildcard job's gap swallows a whole day). */
const GAP_LOOKBACK_MS = 8 * 24 * HOUR_MS;

/**
 * The spring-forward gap between slot `t` of a wildcard schedule and the slot before it (at most
 * eight days back), when the gap held some of the schedule's wall times; else undefined. So
 * `0 *‍/2 * * *` marks 04:00 after a 02:00–03:00 gap, and `*‍/30 2 * * *` marks the next day's
 * 02:00, its whole day having fallen into the gap.
 */
function gapBefore(zs: ZonedSchedule, t: number, offset: number): { from: string; to: string; day: string } | undefined {
  // Cheap first: no spring-forward change in the window, no gap (most slots of the year).
  const start = t - GAP_LOOKBACK_MS;
  const before = zoneOffsetMinutes(new Date(start), zs.zone);
  if (before >= offset) return undefined;
  // The change's instant, to the minute (zones change on whole minutes): the first minute with the new offset.
  let lo = start;
  let hi = t;
  while (hi - lo > MINUTE_MS) {
    const mid = lo + Math.floor((hi - lo) / 2 / MINUTE_MS) * MINUTE_MS;
    if (zoneOffsetMinutes(new Date(mid), zs.zone) === before) lo = mid;
    else hi = mid;
  }
  const change = hi;
  // `t` must be the first slot at or after the change (one schedule step, not a backwards search).
  if (zs.schedule.nextSlot(new Date(change - 1), new Date(change - 1))?.getTime() !== t) return undefined;
  // And a wall time in [old wall, new wall) of the change must be one of the schedule's: one that
  // did not happen.
  const gapStart = change + before * MINUTE_MS;
  const gapEnd = change + offset * MINUTE_MS;
  const inGap = zs.wallClock.nextSlot(new Date(gapStart - 1), new Date(gapStart - 1));
  if (!inGap || inGap.getTime() >= gapEnd) return undefined;
  return { from: wallClock(change, before), to: wallClock(change, offset), day: new Date(gapEnd).toISOString().slice(0, 10) };
}

/**
 * Slots strictly after `from`, in order, up to `count` of them and not after `to`.
 * @param anchor - the `@every` grid anchor (the CronJob's creation or last schedule time); default `from`
 */
export function listSlots(zs: ZonedSchedule, from: Date, options: { count?: number; to?: Date; anchor?: Date } = {}): ListedSlot[] {
  const out: ListedSlot[] = [];
  const count = options.count ?? Number.POSITIVE_INFINITY;
  const anchor = options.anchor ?? from;
  let cursor = from;
  while (out.length < count) {
    const next = zs.schedule.nextSlot(cursor, anchor);
    if (!next || (options.to && next.getTime() > options.to.getTime())) break;
    out.push({ at: next, local: formatInZone(next, zs.zone), ...markSlot(zs, next) });
    cursor = next;
  }
  return out;
}
