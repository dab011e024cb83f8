/**
 * Kubernetes time values: RFC 3339 with second precision, in UTC (`2026-01-02T03:04:05Z`), as
 * metav1.Time serializes.
 *
 * @packageDocumentation
 */

import { BoundedMemo } from "./memo.ts";

/** Entries of each time memo. */
const TIMES_MEMO_MAX = 4096;

/** Formats a Date as metav1.Time does (UTC, whole seconds, `Z`). */
export function formatTime(date: Date): string {
  // A call writes the same few times again and again.
  return formatted.get(Math.floor(date.getTime() / 1000), (seconds) => new Date(seconds * 1000).toISOString().replace(".000Z", "Z"));
}

/** Formatted times by epoch second. */
const formatted = new BoundedMemo<number, string>(TIMES_MEMO_MAX);

/**
 * Parses an RFC 3339 time; returns undefined for anything else (never throws, never guesses).
 * @param value - e.g. `2026-01-02T03:04:05Z` or `2026-01-02T04:04:05+01:00`
 */
export function parseTime(value: unknown): Date | undefined {
  if (typeof value !== "string") return undefined;
  // A hook reads the same few timestamps (a Job's times, the status' times) on every call, and
  // parsing date text costs more than a lookup. Long texts (never a time) are not remembered.
  const ms = value.length <= 64 ? parsed.get(value, parseMs) : parseMs(value);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

/** Epoch ms of an RFC 3339 text, NaN for anything else. */
function parseMs(value: string): number {
  return RFC3339.test(value) ? new Date(value).getTime() : Number.NaN;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Parsed times by text (NaN: not a time). */
const parsed = new BoundedMemo<string, number>(TIMES_MEMO_MAX);

const STRICT_RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/**
 * Parses an RFC 3339 time given by a person (a command-line argument, a test's clock) strictly:
 * every field must exist on the calendar and the clock. JavaScript's Date rolls impossible values
 * over (`2026-02-30` is March 2, `T24:00:00` the next midnight), which would quietly run a command
 * at another time than the one written; such a text is almost always a typo, so it is refused.
 * @param value - e.g. `2026-01-02T03:04:05Z`, `2026-01-02T04:04:05.5+01:00` (a space may stand for `T`)
 * @returns the instant, or undefined when the text is not such a time
 */
export function parseExactTime(value: string): Date | undefined {
  const m = STRICT_RFC3339.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second, , offsetHours = "0", offsetMinutes = "0"] = m.slice(1);
  const date = new Date(value.replace(" ", "T"));
  const y = Number(year);
  const mo = Number(month);
  const d = Number(day);
  const exists =
    !Number.isNaN(date.getTime()) &&
    mo >= 1 &&
    mo <= 12 &&
    d >= 1 &&
    // Day 0 of the next month is the last day of this one.
    d <= new Date(Date.UTC(y, mo, 0)).getUTCDate() &&
    Number(hour) <= 23 &&
    Number(minute) <= 59 &&
    Number(second) <= 59 &&
    Number(offsetHours) <= 23 &&
    Number(offsetMinutes) <= 59;
  return exists ? date : undefined;
}
