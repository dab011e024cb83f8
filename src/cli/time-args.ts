/**
 * Time arguments of the `next` and `simulate` commands.
 *
 * @packageDocumentation
 */
import { formatTime, parseExactTime } from "../kube/time.ts";

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
const ZONED = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Parses a time argument: RFC 3339 (`2026-03-29T01:00:00Z`, `…+02:00`), or without an offset
 * (`2026-03-29T01:00`, `2026-03-28` = midnight), which then means UTC: the commands print UTC
 * next to the CronJob's zone, and an argument read in the reader's local zone would make the same
 * command line mean different instants on different machines.
 * @throws Error naming the option when the text is none of these or not a real date and time
 *   (2026-02-30, T24:00)
 */
export function parseTimeArg(value: string, option: string): Date {
  let text = value;
  if (DATE.test(text)) text += "T00:00:00Z";
  else if (LOCAL.test(text)) text += "Z";
  else if (!ZONED.test(text)) throw new Error(`${option} must be a date (2026-03-28) or a time (2026-03-28T01:00, UTC unless it has an offset such as Z or +02:00), got ${JSON.stringify(value)}`);
  // Seconds may be left out (`T01:00`); the strict parser wants them.
  text = text.replace(/^(.{10}[Tt ]\d{2}:\d{2})(?!:)/, "$1:00");
  // Date would roll 2026-02-30 over to March and T24:00 to the next day; a time that does not
  // exist is a typo, so it is refused (as `--now` is).
  const date = parseExactTime(text);
  if (!date) throw new Error(`${option}: ${JSON.stringify(value)} is not a real date and time`);
  return date;
}

/**
 * Parses an interval `start/end` (ISO 8601): `end` may be a full time or just the time of day on
 * the start's date (`2026-03-29T01:00/03:00`), or a Go duration (`2026-03-29T01:00/2h`).
 * @throws Error when either side does not parse or the end is not after the start
 */
export function parseIntervalArg(value: string, option: string): { start: Date; end: Date } {
  const slash = value.indexOf("/");
  if (slash < 0) throw new Error(`${option} must be start/end, e.g. 2026-03-29T01:00/03:00, got ${JSON.stringify(value)}`);
  const start = parseTimeArg(value.slice(0, slash), option);
  const endText = value.slice(slash + 1);
  let end: Date;
  if (/^\d{2}:\d{2}(:\d{2})?([Zz]|[+-]\d{2}:\d{2})?$/.test(endText)) {
    const startText = value.slice(0, slash);
    end = parseTimeArg(`${startText.slice(0, 10)}T${endText}`, option);
  } else if (/^\d{4}-/.test(endText)) {
    end = parseTimeArg(endText, option);
  } else {
    end = new Date(start.getTime() + parseDurationArg(endText, `${option} (end)`) * 1000);
  }
  if (end.getTime() <= start.getTime()) throw new Error(`${option}: the end ${formatTime(end)} is not after the start ${formatTime(start)}`);
  return { start, end };
}

const DURATION_UNITS: Readonly<Record<string, number>> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400 };

/**
 * Parses a duration in Go's notation plus days: `90s`, `20m`, `1h30m`, `1.5h`, `2d`.
 * @returns seconds (fractions kept)
 * @throws Error naming the option when the text is not such a duration
 */
export function parseDurationArg(value: string, option: string): number {
  if (!/^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/.test(value)) {
    throw new Error(`${option} must be a duration such as 90s, 20m, 1h30m or 2d, got ${JSON.stringify(value)}`);
  }
  let seconds = 0;
  for (const [, n, unit] of value.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) seconds += Number(n) * DURATION_UNITS[unit!]!;
  return seconds;
}
