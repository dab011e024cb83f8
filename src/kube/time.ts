/**
 * Kubernetes time values: RFC 3339 with second precision, in UTC (`2026-01-02T03:04:05Z`), as
 * metav1.Time serializes.
 *
 * @packageDocumentation
 */

/** Formats a Date as metav1.Time does (UTC, whole seconds, `Z`). */
export function formatTime(date: Date): string {
  const seconds = Math.floor(date.getTime() / 1000);
  let text = formatted.get(seconds);
  if (text === undefined) {
    text = new Date(seconds * 1000).toISOString().replace(".000Z", "Z");
    // Bounded memo, as for parseTime: a call writes the same few times again and again.
    if (formatted.size >= TIMES_MEMO_MAX) formatted.clear();
    formatted.set(seconds, text);
  }
  return text;
}

/** Formatted times by epoch second. */
const formatted = new Map<number, string>();

/**
 * Parses an RFC 3339 time; returns undefined for anything else (never throws, never guesses).
 * @param value - e.g. `2026-01-02T03:04:05Z` or `2026-01-02T04:04:05+01:00`
 */
export function parseTime(value: unknown): Date | undefined {
  if (typeof value !== "string") return undefined;
  let ms = parsed.get(value);
  if (ms === undefined) {
    ms = RFC3339.test(value) ? new Date(value).getTime() : Number.NaN;
    // A bounded memo of a pure function: a hook reads the same few timestamps (a Job's times, the
    // status' times) on every call, and parsing date text costs more than a map lookup. Cleared
    // whole when full, so no input stream can make it grow.
    if (parsed.size >= TIMES_MEMO_MAX) parsed.clear();
    if (value.length <= 64) parsed.set(value, ms);
  }
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Parsed times by text (NaN: not a time). */
const parsed = new Map<string, number>();
/** Entries each time memo holds before it is emptied. */
const TIMES_MEMO_MAX = 4096;
