/**
 * Cron schedules as Kubernetes reads them (robfig/cron v3 `ParseStandard`), evaluated by croner.
 *
 * croner's grammar is wider than robfig's (6/7 fields, `L`, `W`, `#`, day-of-week 7) and its
 * day-of-month/day-of-week OR rule looks at the literal `*` only, so this wrapper checks the
 * robfig grammar itself and hands croner a canonical pattern of explicit value lists, so both
 * libraries agree on which days fire. `@every` is not a cron pattern and is computed here.
 *
 * @packageDocumentation
 */
import { Cron } from "croner";
import { parseGoDuration, wholeSeconds } from "../../kube/duration.ts";
import { BoundedMemo } from "../../kube/memo.ts";

/** A parsed schedule. All times are instants; slots are never iterated. */
export interface Schedule {
  /** The canonical 5-field pattern handed to croner, or `@every <seconds>s`. */
  readonly canonical: string;
  /**
   * The most recent slot `s` with `after < s <= now`, or undefined when there is none.
   * @param after - exclusive lower bound; for `@every` also the grid's anchor (slots are
   *   `anchor + k·d`, k ≥ 1, anchor truncated to the second)
   */
  latestSlot(now: Date, after: Date): Date | undefined;
  /**
   * The first slot strictly after `t`, or undefined when the schedule never fires again.
   * @param anchor - the `@every` grid anchor (ignored by cron patterns)
   */
  nextSlot(t: Date, anchor: Date): Date | undefined;
}

/** Result of {@link parseSchedule}: a schedule, or a message naming the broken rule. */
export type ParsedSchedule = { ok: true; schedule: Schedule } | { ok: false; message: string };

interface FieldRule {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
  /** Day fields keep robfig's "star bit": an unrestricted field switches the OR rule to AND. */
  day?: boolean;
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"] as const;
const WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] as const;

const FIELDS: readonly FieldRule[] = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31, day: true },
  { name: "month", min: 1, max: 12, names: MONTHS },
  { name: "day of week", min: 0, max: 6, names: WEEKDAYS, day: true },
];

// robfig/cron v3 parser.go parseDescriptor (descriptors are matched case-sensitively there).
const DESCRIPTORS: Readonly<Record<string, string>> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

const EVERY = "@every ";

class ScheduleSyntaxError extends Error {}

function parseValue(text: string, rule: FieldRule): number {
  if (/^\d+$/.test(text)) return Number(text);
  const index = rule.names?.indexOf(text.toLowerCase() as never) ?? -1;
  if (index >= 0) return index + (rule.name === "month" ? 1 : 0);
  throw new ScheduleSyntaxError(`${rule.name}: ${JSON.stringify(text)} is not a number${rule.names ? " or name" : ""}`);
}

/** The values one field allows, and whether it is unrestricted in robfig's sense (`*`, `?`, `*‍/1`). */
function parseField(text: string, rule: FieldRule): { values: boolean[]; star: boolean } {
  const values = new Array<boolean>(rule.max + 1).fill(false);
  let star = false;
  for (const element of text.split(",")) {
    if (element === "") throw new ScheduleSyntaxError(`${rule.name}: empty list element in ${JSON.stringify(text)}`);
    const slash = element.split("/");
    if (slash.length > 2) throw new ScheduleSyntaxError(`${rule.name}: too many slashes in ${JSON.stringify(element)}`);
    const [range = "", stepText] = slash;
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText)) throw new ScheduleSyntaxError(`${rule.name}: step ${JSON.stringify(stepText)} is not a number`);
      step = Number(stepText);
      if (step === 0) throw new ScheduleSyntaxError(`${rule.name}: step must be positive in ${JSON.stringify(element)}`);
    }
    let start: number;
    let end: number;
    if (range === "*" || range === "?") {
      start = rule.min;
      end = rule.max;
      if (step === 1) star = true;
    } else {
      const bounds = range.split("-");
      if (bounds.length > 2) throw new ScheduleSyntaxError(`${rule.name}: too many hyphens in ${JSON.stringify(element)}`);
      start = parseValue(bounds[0] ?? "", rule);
      // robfig: "N/step" means N through the field's maximum.
      end = bounds.length === 2 ? parseValue(bounds[1] ?? "", rule) : stepText !== undefined ? rule.max : start;
    }
    if (start < rule.min) throw new ScheduleSyntaxError(`${rule.name}: beginning of range (${start}) below minimum (${rule.min})`);
    if (end > rule.max) throw new ScheduleSyntaxError(`${rule.name}: end of range (${end}) above maximum (${rule.max})`);
    if (start > end) throw new ScheduleSyntaxError(`${rule.name}: beginning of range (${start}) beyond end of range (${end})`);
    for (let v = start; v <= end; v += step) values[v] = true;
  }
  return { values, star };
}

function canonicalField(text: string, rule: FieldRule): string {
  const { values, star } = parseField(text, rule);
  const list: number[] = [];
  for (let v = rule.min; v <= rule.max; v++) if (values[v]) list.push(v);
  // croner treats a day field as unrestricted only when it is literally "*"; robfig uses the star
  // bit. Writing "*" exactly when robfig sets the star bit, and explicit lists otherwise
  // (`*‍/2` and `1-31` are restrictions in robfig), gives both libraries the same OR/AND rule.
  if (rule.day) return star ? "*" : list.join(",");
  // Daylight saving follows Vixie cron, which calls a job "wild" (elapsed time: gap slots are
  // skipped, repeated slots run twice) when its minute or hour field starts with `*`, and
  // "fixed-time" (a gap slot runs once just after the gap, a repeated slot runs once) otherwise,
  // so `30 2,14 * * *` and `0 1-2 * * *` are fixed-time. croner's fixedTimeRule "no-wildcard"
  // draws the same line when a wild field keeps its `*` or `*‍/n` spelling and every other field
  // is an explicit list.
  const wild = /^[*?](?:\/(\d+))?$/.exec(text);
  if (wild) {
    // robfig accepts steps beyond the field's span (`*‍/61` = minute 0 only); croner does not.
    const step = Math.min(Number(wild[1] ?? 1), rule.max - rule.min + 1);
    return step > 1 ? `*/${step}` : "*";
  }
  return list.join(",");
}

/**
 * Checks a 5-field pattern against robfig's standard grammar and returns croner's canonical form.
 * @throws ScheduleSyntaxError naming the field and the rule
 */
function canonicalPattern(text: string): string {
  const fields = text.split(/\s+/).filter((f) => f !== "");
  if (fields.length !== 5) {
    throw new ScheduleSyntaxError(`expected exactly 5 fields (minute hour day-of-month month day-of-week), found ${fields.length}`);
  }
  return fields.map((f, i) => canonicalField(f, FIELDS[i]!)).join(" ");
}

/**
 * Parses the duration of `@every` (Go `time.ParseDuration`: `1h30m`, `1.5h`, `90s`, `300ms`) into
 * whole seconds, truncating fractions of a second as robfig's `Every` does.
 * @throws ScheduleSyntaxError for anything Go would reject, a negative value, or less than 1 s
 *   (robfig silently raises those to 1 s; a CronJob firing every second is never intended)
 */
export function parseGoDurationSeconds(text: string): number {
  const parsed = parseGoDuration(text);
  if (!parsed.ok) {
    throw new ScheduleSyntaxError(
      parsed.error === "overflow"
        ? `@every: ${JSON.stringify(text)} overflows a Go duration`
        : `@every: ${JSON.stringify(text)} is not a Go duration (e.g. 90s, 1h30m)`,
    );
  }
  if (parsed.nanoseconds < 0n) throw new ScheduleSyntaxError("@every needs a positive duration");
  const seconds = wholeSeconds(parsed.nanoseconds);
  if (seconds < 1) throw new ScheduleSyntaxError("@every needs a duration of at least 1s");
  return seconds;
}

/** Why a schedule text is not accepted, or undefined when it parses. Does not look at zones. */
export function checkScheduleSyntax(text: string): string | undefined {
  try {
    canonicalSchedule(text);
    return undefined;
  } catch (err) {
    if (err instanceof ScheduleSyntaxError) return err.message;
    throw err;
  }
}

/** True when the schedule carries a `TZ=` / `CRON_TZ=` prefix (upstream rejects it since 1.29). */
function hasTimeZonePrefix(text: string): boolean {
  return /^\s*(CRON_)?TZ=/.test(text);
}

function canonicalSchedule(text: string): { every: number } | { pattern: string } {
  if (text.trim() === "") throw new ScheduleSyntaxError("schedule is empty");
  if (hasTimeZonePrefix(text)) {
    throw new ScheduleSyntaxError("cannot use TZ or CRON_TZ in schedule, use the timeZone field instead");
  }
  if (text.startsWith("@")) {
    if (text.startsWith(EVERY)) {
      const every = parseGoDurationSeconds(text.slice(EVERY.length));
      // Job names carry the slot in whole minutes (as upstream), so two slots in one minute would
      // share a name and every second one would silently not run.
      if (every < 60) throw new ScheduleSyntaxError("@every needs a duration of at least 1m (Job names are per minute)");
      return { every };
    }
    const expanded = DESCRIPTORS[text];
    if (!expanded) throw new ScheduleSyntaxError(`unrecognized descriptor ${JSON.stringify(text)}`);
    return { pattern: canonicalPattern(expanded) };
  }
  return { pattern: canonicalPattern(text) };
}

class CronSchedule implements Schedule {
  readonly canonical: string;
  private readonly cron: Cron;
  /** A fixed-offset zone (UTC): every slot is one fixed instant, no DST moves any. */
  private readonly fixedOffset: boolean;
  constructor(pattern: string, zone: string) {
    this.canonical = pattern;
    // Always pass the zone (croner would otherwise use the process' local zone). UTC has no DST,
    // so it goes through croner's fixed-offset path, about ten times faster than Intl.
    // fixedTimeRule "no-wildcard" with the spelling kept by canonicalField gives Vixie cron's DST
    // handling: a fixed-time slot in the spring-forward gap runs once just after it, one in the
    // repeated hour once at its first occurrence (docs/cronjob.md, "Daylight saving").
    this.fixedOffset = zone === "UTC";
    const where = this.fixedOffset ? { utcOffset: 0 } : { timezone: zone };
    this.cron = new Cron(pattern, { ...where, paused: true, mode: "5-part", domAndDow: false, fixedTimeRule: "no-wildcard" });
  }
  latestSlot(now: Date, after: Date): Date | undefined {
    const t = now.getTime();
    const slot = this.#inSpan(t) ? this.span.from : this.#latest(t);
    return slot !== undefined && slot > after.getTime() ? new Date(slot) : undefined;
  }
  nextSlot(t: Date): Date | undefined {
    const ms = t.getTime();
    const slot = this.#inSpan(ms) ? this.span.to : this.#next(ms);
    return slot === undefined ? undefined : new Date(slot);
  }
  #latest(t: number): number | undefined {
    return this.latest.get(t, (ref) => {
      // previousRuns is strictly before its reference (one call, no iteration over missed slots).
      // Slots are whole minutes, so a reference 1 ms after now includes a slot at exactly now; the
      // fallback only guards against croner rounding within the same second.
      let found = this.cron.previousRuns(1, new Date(ref + 1))[0];
      if (found && found.getTime() > ref) found = this.cron.previousRuns(1, found)[0];
      return found?.getTime();
    });
  }
  #next(t: number): number | undefined {
    return this.next.get(t, (ref) => this.cron.nextRun(new Date(ref))?.getTime());
  }
  /**
   * Whether `t` lies in the remembered span between two consecutive slots; if not, and the zone
   * has a fixed offset, the span around `t` is looked up and remembered. With a fixed offset the
   * latest slot at or before `t` and the first one after it bound a span with no slot inside, so
   * every reference time in it has the same two answers: one CronJob's calls between two slots
   * (a slot's own, the Job's start, its end) need croner once. In a zone with DST, croner's
   * backward and forward searches are not assumed to agree around a transition, so each question
   * goes to croner (through the memo by reference time).
   */
  #inSpan(t: number): boolean {
    const span = this.span;
    if (t >= span.from && t < span.to) return true;
    if (!this.fixedOffset) return false;
    // Time moves forward between calls: a reference past the span usually lies in the next one,
    // which starts at the span's end (a slot) and needs one forward search, not a backward one too.
    if (t >= span.to) {
      const after = this.#next(span.to);
      if (after !== undefined && after > span.to && t < after) {
        span.from = span.to;
        span.to = after;
        return true;
      }
    }
    const from = this.#latest(t);
    const to = this.#next(t);
    if (from === undefined || to === undefined) return false;
    span.from = from;
    span.to = to;
    return true;
  }
  // The last few answers of croner, by reference time (epoch ms). A CronJob is synced several
  // times at one instant (the slot's resync, then the events of its own writes), and croner's
  // search costs far more than a lookup. Results are plain numbers: nothing shared can be changed.
  private readonly latest = new BoundedMemo<number, number | undefined>(SLOT_MEMO_SIZE);
  private readonly next = new BoundedMemo<number, number | undefined>(SLOT_MEMO_SIZE);
  /** The remembered span `[from, to)` between two consecutive slots (fixed-offset zones only; empty at first). */
  private readonly span = { from: Number.NaN, to: Number.NaN };
}

/** Answers kept per compiled cron schedule and question (latest, next). */
const SLOT_MEMO_SIZE = 8;

class EverySchedule implements Schedule {
  readonly canonical: string;
  constructor(private readonly seconds: number) {
    this.canonical = `@every ${seconds}s`;
  }
  private grid(anchor: Date): { base: number; step: number } {
    return { base: Math.floor(anchor.getTime() / 1000) * 1000, step: this.seconds * 1000 };
  }
  latestSlot(now: Date, after: Date): Date | undefined {
    const { base, step } = this.grid(after);
    const k = Math.floor((now.getTime() - base) / step);
    if (k < 1) return undefined;
    // base > after - 1 s and step >= 1 s, so every k >= 1 slot is after `after`.
    return new Date(base + k * step);
  }
  nextSlot(t: Date, anchor: Date): Date | undefined {
    const { base, step } = this.grid(anchor);
    const k = Math.max(1, Math.floor((t.getTime() - base) / step) + 1);
    return new Date(base + k * step);
  }
}

/**
 * Parses a CronJob schedule in a time zone.
 *
 * Grammar (robfig/cron v3 `ParseStandard`, as Kubernetes): exactly 5 fields; `*`, `?`, numbers,
 * 3-letter month and weekday names (any case), ranges `a-b`, steps `/n` (`N/n` = N to max);
 * day-of-week 0-6 (7 is rejected); descriptors `@yearly @annually @monthly @weekly @daily
 * @midnight @hourly` (case-sensitive) and `@every <Go duration>` (whole seconds, at least 1 s).
 * Rejected: `TZ=`/`CRON_TZ=` prefixes, `L`, `W`, `#`, `H`, 6/7-field forms, empty text.
 *
 * @param text - `spec.schedule`
 * @param zone - an already validated IANA zone (see checkTimeZone); `@every` ignores it
 * @returns the same (frozen) result for the same text and zone while it stays among the
 *   {@link SCHEDULE_CACHE_SIZE} most recently used
 */
export function parseSchedule(text: string, zone: string): ParsedSchedule {
  // A long text is never a schedule anyone keeps (and would make a hostile memo heavy): no memo.
  if (text.length > MAX_MEMO_TEXT_LENGTH) return compileSchedule(text, zone);
  return compiled.get(`${zone}\n${text}`, () => compileSchedule(text, zone));
}

/**
 * Entries of the compiled-schedule memo. A compiled cron pattern keeps croner's tables, about
 * 81 KiB (most of it a 10,000-entry year table), so a full memo holds about 20 MiB; a cluster with
 * more distinct (schedule, zone) pairs than this only loses the saving, not correctness.
 */
export const SCHEDULE_CACHE_SIZE = 256;

/**
 * Compiled schedules (and rejections) kept between calls, keyed by zone and text, least recently
 * used first. A memo of a pure function: compiling costs croner's pattern tables and, outside UTC,
 * an Intl set-up (about 55 µs and 90 KiB per call), while a CronJob is synced several times per
 * slot with the same schedule. A `Schedule` holds no state between calls but a memo of its own
 * answers (croner's paused `Cron` only reads its pattern in `previousRuns`/`nextRun`, and the
 * answers are pure functions of the reference time), so sharing one is safe. Bounded, so a
 * stream of distinct schedules costs at most this many entries.
 */
const compiled = new BoundedMemo<string, ParsedSchedule>(SCHEDULE_CACHE_SIZE);

/** Schedule texts longer than this are compiled on every call instead of kept. */
const MAX_MEMO_TEXT_LENGTH = 256;

function compileSchedule(text: string, zone: string): ParsedSchedule {
  let canonical: { every: number } | { pattern: string };
  try {
    canonical = canonicalSchedule(text);
  } catch (err) {
    if (err instanceof ScheduleSyntaxError) return Object.freeze({ ok: false, message: err.message });
    throw err;
  }
  if ("every" in canonical) return Object.freeze({ ok: true, schedule: Object.freeze(new EverySchedule(canonical.every)) });
  try {
    return Object.freeze({ ok: true, schedule: Object.freeze(new CronSchedule(canonical.pattern, zone)) });
  } catch (err) {
    // Cannot happen for a pattern that passed our grammar; report rather than crash.
    return Object.freeze({ ok: false, message: `schedule rejected by the cron engine: ${(err as Error).message}` });
  }
}
