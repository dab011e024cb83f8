/**
 * `spec.timeZone`: validation with upstream's rules and formatting of instants in a zone.
 *
 * @packageDocumentation
 */

import { DEFAULTS } from "./constants.ts";

/** The zone of a CronJob without `spec.timeZone` (from the defaults table). */
const DEFAULT_TIME_ZONE: string = DEFAULTS.timeZone;

// Upstream pkg/apis/batch/validation/validation.go validateTimeZone: every "/"-separated part is
// 1-14 characters of [A-Za-z.-_0-9+], not "." or "..", not starting with "-".
const PART = /^[A-Za-z.\-_0-9+]{1,14}$/;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(zone, f);
  }
  return f;
}

/**
 * Checks a `spec.timeZone` value as upstream does (name rules of `validateTimeZone`, `Local`
 * rejected), then asks `Intl` whether the zone exists (upstream asks Go's `time.LoadLocation`).
 * Names are case-sensitive like Go's zoneinfo lookup: `utc` or `america/new_york` are rejected
 * although `Intl` would accept them.
 *
 * @param zone - the value of `spec.timeZone`
 * @returns a message naming the broken rule, or undefined when the zone is usable
 */
export function checkTimeZone(zone: string): string | undefined {
  if (zone === "") return "must not be empty (omit the field for UTC)";
  if (zone.toLowerCase() === "local") return "Local is not allowed: the hook has no local zone; use an IANA name";
  for (const part of zone.split("/")) {
    if (!PART.test(part) || part === "." || part === ".." || part.startsWith("-")) {
      return `${JSON.stringify(zone)} is not a valid time zone name`;
    }
  }
  let resolved: string;
  try {
    resolved = formatterFor(zone).resolvedOptions().timeZone;
  } catch {
    return `unknown time zone ${JSON.stringify(zone)}`;
  }
  if (resolved !== zone && resolved.toLowerCase() === zone.toLowerCase()) {
    return `unknown time zone ${JSON.stringify(zone)} (names are case-sensitive: ${resolved})`;
  }
  return undefined;
}

/** The offset of `zone` from UTC at `date`, in minutes (east positive). */
export function zoneOffsetMinutes(date: Date, zone: string): number {
  // The default zone has no offset ever; Intl's formatToParts would cost a few µs per Job for it.
  if (zone === DEFAULT_TIME_ZONE) return 0;
  const parts: Record<string, number> = {};
  for (const p of formatterFor(zone).formatToParts(date)) {
    if (p.type !== "literal") parts[p.type] = Number(p.value);
  }
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  const instant = Math.floor(date.getTime() / 1000) * 1000;
  return Math.round((wall - instant) / 60000);
}

/**
 * RFC 3339 in `zone`, whole seconds, as Go's `time.RFC3339` prints it: `2016-05-19T06:00:00-04:00`,
 * and `Z` when the offset is zero (as upstream's `batch.kubernetes.io/cronjob-scheduled-timestamp`).
 */
export function formatInZone(date: Date, zone: string): string {
  const offset = zoneOffsetMinutes(date, zone);
  const local = new Date(Math.floor(date.getTime() / 1000) * 1000 + offset * 60000);
  const text = local.toISOString().slice(0, 19);
  if (offset === 0) return `${text}Z`;
  const sign = offset > 0 ? "+" : "-";
  const abs = Math.abs(offset);
  return `${text}${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}
