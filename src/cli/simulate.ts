/**
 * `metahooks simulate <cronjob.yaml> --from <time> --to <time> [options]`: what a CronJob will do
 * over a time window, from the same YAML a user applies (one object or a multi-document file).
 *
 * @packageDocumentation
 */
import { readFileSync } from "node:fs";
import { API_VERSION, KIND } from "../controllers/cronjob/constants.ts";
import { parseManifests } from "../kube/manifest-yaml.ts";
import { formatTime } from "../kube/time.ts";
import { simulateCronJob, type Outage, type SimulationResult, type TimelineEvent } from "../simulate/cronjob.ts";
import { isOutcome, parseCommandArgs, usageError, type CliOutcome } from "./command-args.ts";
import { formatTable } from "./next.ts";
import { parseDurationArg, parseIntervalArg, parseTimeArg } from "./time-args.ts";

export const SIMULATE_USAGE = `Usage: metahooks simulate <cronjob.yaml|-> --from <time> --to <time> [options]

Runs the CronJob hooks inside an emulation of Metacontroller's loop over simulated time and
prints the timeline: each slot with the Job created or skipped (and why), Jobs finished and
deleted, and the status at the end. Same inputs, same output.

  --from <time>          the CronJob is created at this time; RFC 3339, or a date or time
                         without offset, read as UTC (2026-03-28, 2026-03-28T06:00)
  --to <time>            end of the simulation (at most ${"92"} days after --from)
  --job-duration <d>     how long each Job runs, from creation to finish (default 1m): 90s, 20m, 1h30m
  --job-fails <rate>     share of Jobs that fail: 10% or 0.1 (default 0)
  --seed <n>             seed of the failure draws (default 1)
  --outage <start/end>   the hook service is down in this window (repeatable):
                         2026-03-29T01:00/03:00, 2026-03-29T01:00/2h
  --name <name>          only the CronJob of this name (default: every CronJob in the file)
  -o, --output <fmt>     table (default) or json

The file may hold other objects (they are ignored); CronJobs must be ${API_VERSION} ${KIND}.
`;

const MAX_DAYS = 92;

const SIMULATE_COMMAND = {
  command: "simulate",
  usage: SIMULATE_USAGE,
  options: {
    from: { type: "string" },
    to: { type: "string" },
    "job-duration": { type: "string" },
    "job-fails": { type: "string" },
    seed: { type: "string" },
    outage: { type: "string", multiple: true },
    name: { type: "string" },
  },
  positional: "<cronjob.yaml>",
  tooMany: (count: number) => `expected one file, got ${count}`,
} as const;

function usage(message: string): CliOutcome {
  return usageError("simulate", SIMULATE_USAGE, message);
}

function fail(message: string): CliOutcome {
  return { exitCode: 1, stdout: "", stderr: `metahooks simulate: ${message}\n` };
}

/** Reads the CronJobs of a (multi-document) YAML or JSON text; `List` items are included. */
export function readCronJobs(text: string, source: string): Array<Record<string, any>> {
  const objects: unknown[] = [];
  let documents: unknown[];
  try {
    // As kubectl reads the file (YAML 1.1 scalars: `suspend: yes` is true, `0500` is 320).
    documents = parseManifests(text);
  } catch (err) {
    throw new Error(`${source}: ${(err as Error).message}`);
  }
  for (const value of documents) {
    if (value && typeof value === "object" && (value as any).kind === "List" && Array.isArray((value as any).items)) objects.push(...(value as any).items);
    else objects.push(value);
  }
  const isObject = (o: unknown): o is Record<string, any> => !!o && typeof o === "object" && !Array.isArray(o);
  const cronJobs = objects.filter(isObject).filter((o) => o.apiVersion === API_VERSION && o.kind === KIND);
  const unnamed = cronJobs.find((c) => typeof c.metadata?.name !== "string" || c.metadata.name === "");
  if (unnamed) throw new Error(`${source}: a CronJob without metadata.name (the API server would reject it)`);
  if (cronJobs.length > 0) return cronJobs;
  // What the file holds instead, said plainly: an object without apiVersion and kind (a hook
  // request, a bare spec) is named by its top-level keys, which a user recognises.
  const describe = (o: Record<string, any>): string =>
    typeof o.apiVersion === "string" || typeof o.kind === "string"
      ? `${o.apiVersion ?? "no apiVersion"} ${o.kind ?? "no kind"} ${typeof o.metadata?.name === "string" ? o.metadata.name : ""}`.trim()
      : `an object without apiVersion and kind, with the keys ${Object.keys(o).slice(0, 5).map((k) => k.slice(0, 40)).join(", ")}${Object.keys(o).length > 5 ? ", …" : ""}`;
  const found = objects.filter(isObject).map(describe);
  const upstream = found.some((f) => f.startsWith("batch/v1 CronJob"));
  const hookRequest = objects.some((o) => isObject(o) && isObject(o.parent) && o.parent.kind === KIND);
  throw new Error(
    `${source} holds no ${API_VERSION} ${KIND}` +
      (found.length ? ` (found: ${found.join(", ")})` : "") +
      (upstream ? `; a batch/v1 CronJob has the same spec: set apiVersion: ${API_VERSION} to simulate it with these hooks` : "") +
      (hookRequest ? "; this is a hook request: simulate takes the CronJob itself (the request's parent) as you would apply it" : ""),
  );
}

/** A file that cannot be read, said plainly (Node's errors read `ENOENT: no such file or directory, open 'x'`). */
function describeReadError(err: unknown, file: string): string {
  const code = (err as NodeJS.ErrnoException).code;
  const what = file === "-" ? "stdin" : JSON.stringify(file);
  if (code === "ENOENT") return `cannot read ${what}: no such file`;
  if (code === "EISDIR") return `cannot read ${what}: it is a directory (pass the YAML file of the CronJob)`;
  if (code === "EACCES") return `cannot read ${what}: permission denied`;
  return `cannot read ${what}: ${(err as Error).message}`;
}

/** Parses `10%`, `0.1`: a rate in [0, 1]. */
function parseRate(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(%?)$/.exec(text);
  const rate = m ? Number(m[1]) / (m[2] ? 100 : 1) : Number.NaN;
  if (!(rate >= 0 && rate <= 1)) throw new Error(`--job-fails must be a share such as 10% or 0.1 (0 to 100%), got ${JSON.stringify(text)}`);
  return rate;
}

/**
 * Runs `metahooks simulate` over its arguments (everything after `simulate`).
 * @param readInput - reads a file, or stdin for `-`
 */
export async function runSimulate(args: string[], readInput: (path: string) => string = (p) => readFileSync(p === "-" ? 0 : p, "utf8")): Promise<CliOutcome> {
  const parsed = parseCommandArgs(SIMULATE_COMMAND, args);
  if (isOutcome(parsed)) return parsed;
  const { values, positional: file, output } = parsed;
  if (values.from === undefined || values.to === undefined) return usage("--from and --to are required");
  let from: Date, to: Date, jobDurationSeconds: number, jobFailureRate: number, seed: number, outages: Outage[];
  try {
    from = parseTimeArg(values.from, "--from");
    to = parseTimeArg(values.to, "--to");
    if (to.getTime() <= from.getTime()) throw new Error("--to must be after --from");
    if (to.getTime() - from.getTime() > MAX_DAYS * 86_400_000) throw new Error(`at most ${MAX_DAYS} days at a time`);
    jobDurationSeconds = parseDurationArg(values["job-duration"] ?? "1m", "--job-duration");
    jobFailureRate = parseRate(values["job-fails"] ?? "0");
    const seedText = values.seed ?? "1";
    if (!/^\d{1,10}$/.test(seedText)) throw new Error(`--seed must be a whole number, got ${JSON.stringify(seedText)}`);
    seed = Number(seedText);
    outages = (values.outage ?? []).map((o) => parseIntervalArg(o, "--outage"));
  } catch (err) {
    return usage((err as Error).message);
  }
  let text: string;
  try {
    text = readInput(file);
  } catch (err) {
    return fail(describeReadError(err, file));
  }
  let cronJobs;
  try {
    cronJobs = readCronJobs(text, file === "-" ? "stdin" : file);
  } catch (err) {
    return fail((err as Error).message);
  }
  if (values.name !== undefined) {
    cronJobs = cronJobs.filter((c) => c.metadata?.name === values.name);
    if (cronJobs.length === 0) return fail(`no CronJob named ${JSON.stringify(values.name)} in ${file}`);
  }
  const results: SimulationResult[] = [];
  for (const cronJob of cronJobs) {
    results.push(await simulateCronJob({ cronJob, from, to, jobDurationSeconds, jobFailureRate, seed, outages }));
  }
  if (output === "json") return { exitCode: 0, stdout: JSON.stringify(results, null, 2) + "\n", stderr: "" };
  const settings = `Jobs run ${values["job-duration"] ?? "1m"}, ${Math.round(jobFailureRate * 1000) / 10}% fail (seed ${seed})` + (outages.length ? `; hook service down ${outages.map((o) => `${formatTime(o.start)} to ${formatTime(o.end)}`).join(", ")}` : "");
  return { exitCode: 0, stdout: results.map((r) => formatSimulation(r, settings)).join("\n"), stderr: "" };
}

function describeEvent(e: TimelineEvent): [string, string, string] {
  switch (e.type) {
    case "slot": {
      const dst = e.dst ? ` [DST: ${e.dst}]` : "";
      if (e.outcome === "created") return ["slot", e.job, `Job created${e.delaySeconds >= 1 ? ` ${e.delaySeconds}s late` : ""}${dst}`];
      return ["slot", e.job, `skipped: ${e.reason} (${e.message})${dst}`];
    }
    case "succeeded":
    case "failed":
      return [e.type, e.job, ""];
    case "deleted":
      return ["deleted", e.job, e.reason === "HistoryLimit" ? "history limit" : e.reason === "Replace" ? "replaced (concurrencyPolicy Replace)" : ""];
    case "outage-start":
      return ["outage", "", "hook service down"];
    case "outage-end":
      return ["outage end", "", "hook service back"];
  }
}

/** The table form of one simulation: header, timeline, summary and the final status. */
export function formatSimulation(r: SimulationResult, settings: string): string {
  const lines = [
    `CronJob ${r.namespace}/${r.name}: schedule ${JSON.stringify(r.schedule)}, timeZone ${r.timeZone}, ${r.from} to ${r.to}`,
    settings,
    "",
  ];
  // In UTC (no spec.timeZone) the zone's column would repeat the UTC one on every line; any other
  // zone keeps it, even in a season when it reads as UTC.
  const zoneColumn = r.timeZone !== "UTC";
  const rows = r.events.map((e) => (zoneColumn ? [e.at, e.local, ...describeEvent(e)] : [e.at, ...describeEvent(e)]));
  const header = zoneColumn ? ["UTC", r.timeZone, "event", "job", "detail"] : ["UTC", "event", "job", "detail"];
  lines.push(formatTable(header, rows).trimEnd(), "");
  const s = r.summary;
  const skipped = Object.entries(s.skipped).map(([k, v]) => `${v} ${k}`).join(", ");
  lines.push(
    `Summary: ${s.slots} slots, ${s.created} Jobs created, ${Object.values(s.skipped).reduce((a, b) => a + b, 0)} skipped${skipped ? ` (${skipped})` : ""}, ` +
      `${s.succeeded} succeeded, ${s.failed} failed, ${s.deleted} deleted; ${s.hookCalls} hook calls (${s.failedHookCalls} failed)`,
    `Jobs at the end: ${s.jobsAtEnd.length ? s.jobsAtEnd.join(", ") : "none"}`,
    "Status at the end:",
  );
  const st = r.status as Record<string, any>;
  for (const field of ["lastScheduleTime", "lastSuccessfulTime"]) if (st[field]) lines.push(`  ${field}: ${st[field]}`);
  if (Array.isArray(st.active)) lines.push(`  active: ${st.active.map((a: any) => a.name).join(", ")}`);
  for (const c of Array.isArray(st.conditions) ? st.conditions : []) lines.push(`  ${c.type}=${c.status} ${c.reason}: ${c.message}`);
  // No hook call answered (the service down the whole time): the API server has no status to show.
  if (lines[lines.length - 1] === "Status at the end:") lines.push("  none (no hook call was answered)");
  return lines.join("\n") + "\n";
}
