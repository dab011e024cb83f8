/**
 * Go `time.Duration` text (`time.ParseDuration`), the duration syntax Kubernetes users know from
 * flags and fields: a sign, then one or more decimal numbers each with a unit (`ns`, `us`/`µs`,
 * `ms`, `s`, `m`, `h`), e.g. `1h30m`, `1.5h`, `90s`, `300ms`. The one parser for every duration
 * metahooks reads (CronJob `@every`, CIBuild `build.timeout`).
 *
 * @packageDocumentation
 */

const UNIT_NS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  "µs": 1_000n,
  "μs": 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
/** Go's largest duration, in nanoseconds (an int64). */
const MAX_DURATION_NS = 9_223_372_036_854_775_807n;
const NS_PER_SECOND = 1_000_000_000n;

/** A parsed duration in nanoseconds (negative for a leading `-`), or why it is not one. */
export type GoDuration = { ok: true; nanoseconds: bigint } | { ok: false; error: "syntax" | "overflow" };

/**
 * Parses Go duration text exactly as `time.ParseDuration` accepts it (`0` alone needs no unit).
 * Fractions are kept to the nanosecond.
 */
export function parseGoDuration(text: string): GoDuration {
  if (text === "0") return { ok: true, nanoseconds: 0n };
  const match = /^([-+]?)((?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+)$/.exec(text);
  if (!match) return { ok: false, error: "syntax" };
  let total = 0n;
  for (const part of match[2]!.matchAll(/(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/g)) {
    const unit = UNIT_NS[part[3]!]!;
    const whole = part[1] ? BigInt(part[1]) : 0n;
    const fraction = part[2] ?? "";
    total += whole * unit + (fraction ? (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length) : 0n);
    if (total > MAX_DURATION_NS) return { ok: false, error: "overflow" };
  }
  return { ok: true, nanoseconds: match[1] === "-" ? -total : total };
}

/** Whole seconds of a duration, fractions of a second truncated (as robfig's `Every` and Job deadlines count). */
export function wholeSeconds(nanoseconds: bigint): number {
  return Number(nanoseconds / NS_PER_SECOND);
}
