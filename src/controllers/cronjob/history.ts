/**
 * Finished-Job history cleanup, as upstream pkg/controller/cronjob/cronjob_controllerv2.go
 * `cleanupFinishedJobs` / `removeOldestJobs`.
 *
 * @packageDocumentation
 */
import { compareStrings, type KubeObject } from "../../metacontroller/contract.ts";
import { isBeingDeleted, jobOutcome } from "../../kube/jobs.ts";
import { parseTime } from "../../kube/time.ts";
import { DEFAULTS } from "./constants.ts";

/** History limits; `undefined` keeps every Job of that class. */
export interface HistoryLimits {
  succeeded: number | undefined;
  failed: number | undefined;
}

function readLimit(value: unknown, fallback: number): number | undefined {
  if (value === undefined || value === null) return fallback;
  // An invalid limit (negative, fractional, a string) prunes nothing: never destroy on doubt.
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/**
 * Reads the limits from a spec leniently, so cleanup also runs when other fields are invalid.
 * Unset → 3 succeeded, 1 failed; an invalid value → no pruning for that class.
 */
export function historyLimits(spec: unknown): HistoryLimits {
  const s = (spec && typeof spec === "object" ? spec : {}) as Record<string, unknown>;
  return {
    succeeded: readLimit(s.successfulJobsHistoryLimit, DEFAULTS.successfulJobsHistoryLimit),
    failed: readLimit(s.failedJobsHistoryLimit, DEFAULTS.failedJobsHistoryLimit),
  };
}

function startTime(job: KubeObject): number | undefined {
  return parseTime((job.status as { startTime?: unknown } | undefined)?.startTime)?.getTime();
}

/** Oldest first by `status.startTime`; Jobs without one sort last (newest), then by name. */
function compareByStartTime(a: KubeObject, b: KubeObject): number {
  const ta = startTime(a);
  const tb = startTime(b);
  if (ta !== tb) {
    if (ta === undefined) return 1;
    if (tb === undefined) return -1;
    return ta - tb;
  }
  return compareStrings(a.metadata.name, b.metadata.name);
}

/**
 * The finished Jobs to leave out of the desired children: per class (Complete, Failed) the oldest
 * beyond its limit. Jobs already being deleted are neither counted nor selected.
 * @returns the Jobs to prune, in the order they were selected (succeeded, then failed)
 */
export function selectHistoryToPrune(jobs: readonly KubeObject[], limits: HistoryLimits): KubeObject[] {
  const pruned: KubeObject[] = [];
  for (const [outcome, limit] of [
    ["Complete", limits.succeeded],
    ["Failed", limits.failed],
  ] as const) {
    if (limit === undefined) continue;
    const finished = jobs.filter((j) => !isBeingDeleted(j) && jobOutcome(j) === outcome).sort(compareByStartTime);
    pruned.push(...finished.slice(0, Math.max(0, finished.length - limit)));
  }
  return pruned;
}
