/**
 * Kubernetes time values: RFC 3339 with second precision, in UTC (`2026-01-02T03:04:05Z`), as
 * metav1.Time serializes.
 *
 * @packageDocumentation
 */

/** Formats a Date as metav1.Time does (UTC, whole seconds, `Z`). */
export function formatTime(date: Date): string {
  return new Date(Math.floor(date.getTime() / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/**
 * Parses an RFC 3339 time; returns undefined for anything else (never throws, never guesses).
 * @param value - e.g. `2026-01-02T03:04:05Z` or `2026-01-02T04:04:05+01:00`
 */
export function parseTime(value: unknown): Date | undefined {
  if (typeof value !== "string") return undefined;
  if (!/^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(value)) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
