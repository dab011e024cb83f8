/**
 * Finished-Job history cleanup, as upstream pkg/controller/cronjob/cronjob_controllerv2.go
 * `cleanupFinishedJobs` / `removeOldestJobs`.
 *
 * @packageDocumentation
 */
import type { KubeObject } from "../../metacontroller/contract.ts";
import { isBeingDeleted, jobOutcome, type JobOutcome } from "../../kube/jobs.ts";
import { sortByTimeThenName } from "../../kube/objects.ts";
import { parseTime } from "../../kube/time.ts";
import { DEFAULTS } from "./constants.ts";

/** History limits: finished Jobs kept per class. */
export interface HistoryLimits {
  succeeded: number;
  failed: number;
}

/** A limit as the spec says it: unset → the default, a non-negative integer → itself, else invalid. */
function readLimit(value: unknown, fallback: number): number | "invalid" {
  if (value === undefined || value === null) return fallback;
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : "invalid";
}

/**
 * Reads the limits from a spec on their own, so history cleanup runs before anything else can stop
 * the hook, also when another field (the schedule, the template) is invalid, as upstream cleans
 * up first. Unset → 3 succeeded, 1 failed.
 *
 * Never destroy on doubt: a spec that is not an object, or either limit invalid (negative,
 * fractional, a string), prunes nothing at all: the user's intent for history is unknown, and
 * a pruned Job cannot come back.
 *
 * @param spec - `parent.spec` as received (any JSON value); only read when the parent's nesting
 *   was checked (see nestingProblem)
 * @returns the limits, or `undefined` when nothing may be pruned
 */
export function historyLimits(spec: unknown): HistoryLimits | undefined {
  if (!spec || typeof spec !== "object" || Array.isArray(spec)) return undefined;
  const s = spec as Record<string, unknown>;
  const succeeded = readLimit(s.successfulJobsHistoryLimit, DEFAULTS.successfulJobsHistoryLimit);
  const failed = readLimit(s.failedJobsHistoryLimit, DEFAULTS.failedJobsHistoryLimit);
  if (succeeded === "invalid" || failed === "invalid") return undefined;
  return { succeeded, failed };
}

function startTime(job: KubeObject): number | undefined {
  return parseTime((job.status as { startTime?: unknown } | undefined)?.startTime)?.getTime();
}


/**
 * The finished Jobs to leave out of the desired children: per class (Complete, Failed) the oldest
 * beyond its limit. Jobs already being deleted are neither counted nor selected.
 * @returns the Jobs to prune, in the order they were selected (succeeded, then failed)
 */
export function selectHistoryToPrune(jobs: readonly KubeObject[], limits: HistoryLimits | undefined): KubeObject[] {
  if (!limits) return [];
  return [...oldestBeyond(jobs, "Complete", limits.succeeded), ...oldestBeyond(jobs, "Failed", limits.failed)];
}

/** The oldest finished Jobs of one outcome beyond `limit` (Jobs being deleted do not count). */
function oldestBeyond(jobs: readonly KubeObject[], outcome: JobOutcome, limit: number): KubeObject[] {
  let count = 0;
  for (const job of jobs) if (!isBeingDeleted(job) && jobOutcome(job) === outcome) count++;
  // Within the limit nothing is pruned, so there is no order to establish (nor a list to make).
  if (count <= limit) return [];
  const finished = jobs.filter((j) => !isBeingDeleted(j) && jobOutcome(j) === outcome);
  return sortByTimeThenName(finished, startTime).slice(0, count - limit);
}
