/**
 * `metahooks next '<schedule>' [--time-zone <zone>] [-n <count>] [--from <time>] [-o table|json]`:
 * the next slots of a schedule as the CronJob hook computes them, with daylight-saving marks.
 *
 * @packageDocumentation
 */
import { listSlots, zonedSchedule, type ListedSlot } from "../simulate/slots.ts";
import { formatTime } from "../kube/time.ts";
import { parseTimeArg } from "./time-args.ts";
import { isOutcome, parseCommandArgs, usageError, type CliOutcome } from "./command-args.ts";

export type { CliOutcome };

export const NEXT_USAGE = `Usage: metahooks next '<schedule>' [--time-zone <zone>] [-n <count>] [--from <time>] [-o table|json]

Lists the next slots of a CronJob schedule with the hook's own rules, marking slots that a
daylight-saving change moved (a wall time that does not exist), merged (a wall time that happens
twice, run once), repeated (a wildcard job runs at both occurrences) or gap (a wildcard job's
first slot after a spring-forward gap that swallowed some of its slots).

  --time-zone <zone>   IANA zone, as spec.timeZone (default UTC)
  -n, --count <n>      how many slots (default 10, at most 10000)
  --from <time>        list slots after this time (default now); RFC 3339, or a date or time
                       without offset, read as UTC
  -o, --output <fmt>   table (default) or json
`;

const MAX_COUNT = 10_000;

const NEXT_COMMAND = {
  command: "next",
  usage: NEXT_USAGE,
  options: {
    "time-zone": { type: "string" },
    count: { type: "string", short: "n" },
    from: { type: "string" },
  },
  positional: "<schedule>",
  tooMany: (count: number) => `expected one schedule, got ${count} arguments (quote the schedule)`,
} as const;

function usage(message: string): CliOutcome {
  return usageError("next", NEXT_USAGE, message);
}

/** Runs `metahooks next` over its arguments (everything after `next`). */
export function runNext(args: string[], clock: () => Date): CliOutcome {
  const parsed = parseCommandArgs(NEXT_COMMAND, args);
  if (isOutcome(parsed)) return parsed;
  const { values, positional: schedule, output } = parsed;
  const countText = values.count ?? "10";
  if (!/^\d+$/.test(countText) || Number(countText) < 1 || Number(countText) > MAX_COUNT) return usage(`-n (--count) must be a whole number from 1 to ${MAX_COUNT}, got ${JSON.stringify(countText)}`);
  let from: Date;
  // A malformed --from is a usage error (exit 2, with the usage), as in `simulate`; a schedule or
  // zone the hook would reject is the input's problem (exit 1).
  try {
    from = values.from === undefined ? clock() : parseTimeArg(values.from, "--from");
  } catch (err) {
    return usage((err as Error).message);
  }
  let zs;
  try {
    zs = zonedSchedule(schedule, values["time-zone"] ?? "UTC");
  } catch (err) {
    return { exitCode: 1, stdout: "", stderr: `metahooks next: ${(err as Error).message}\n` };
  }
  const slots = listSlots(zs, from, { count: Number(countText) });
  if (output === "json") {
    const json = {
      schedule,
      timeZone: zs.zone,
      from: formatTime(from),
      slots: slots.map((s) => ({ time: formatTime(s.at), local: s.local, ...(s.mark ? { dst: s.mark, note: s.note } : {}) })),
    };
    return { exitCode: 0, stdout: JSON.stringify(json, null, 2) + "\n", stderr: "" };
  }
  const note = slots.length === 0 ? "(the schedule never fires after this time)\n" : "";
  return { exitCode: 0, stdout: formatSlotTable(slots, zs.zone) + note, stderr: "" };
}

/**
 * A plain-text table: number, UTC time, zone time, DST note. For the zone `UTC` (the default, as
 * for a CronJob without `spec.timeZone`) the zone and DST columns would only repeat the UTC column
 * and stay empty, so just `#` and `UTC` are printed; any other zone keeps its column, even in a
 * season when it reads as UTC (Europe/London in winter).
 */
export function formatSlotTable(slots: readonly ListedSlot[], zone: string): string {
  if (zone === "UTC") return formatTable(["#", "UTC"], slots.map((s, i) => [String(i + 1), formatTime(s.at)]));
  const rows = slots.map((s, i) => [String(i + 1), formatTime(s.at), s.local, s.mark ? `${s.mark}: ${s.note}` : ""]);
  return formatTable(["#", "UTC", zone, "DST"], rows);
}

/** Left-aligned columns separated by two spaces; trailing spaces trimmed. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows];
  const widths = header.map((_, c) => Math.max(...all.map((r) => (r[c] ?? "").length)));
  return all.map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!))).join("  ").trimEnd()).join("\n") + "\n";
}
