/**
 * Which observed build Jobs to keep. Every Job left out of the answer is deleted by Metacontroller
 * (Background propagation, so its Pods go too), so retention is simply what we return. There is
 * no `ttlSecondsAfterFinished`: a Job deleted behind our back would look like a build to redo.
 *
 * @packageDocumentation
 */
import type { ObservedBuildJob } from "./build-state.ts";

/** The retention decision for the observed stale Jobs. */
export interface RetentionResult {
  keep: ObservedBuildJob[];
  /** Omitted Jobs, with the bounded reason used in decisions. */
  drop: Array<{ job: ObservedBuildJob; reason: "Superseded" | "Suspended" | "RetentionLimit" | "Deleting" }>;
}

/** Newest first: finish time, then creation time, then name (all descending). */
function newestFirst(a: ObservedBuildJob, b: ObservedBuildJob): number {
  const key = (j: ObservedBuildJob) => [j.finishTime ?? "", j.creationTimestamp ?? "", j.name] as const;
  const ka = key(a);
  const kb = key(b);
  for (let i = 0; i < ka.length; i++) {
    if (ka[i]! < kb[i]!) return 1;
    if (ka[i]! > kb[i]!) return -1;
  }
  return 0;
}

/**
 * Applies the retention rules to the Jobs that are *not* the current build's Job.
 *
 * - The Job named in `lastSuccessfulBuild` is always kept and not counted.
 * - Unfinished stale Jobs are omitted: the latest spec wins (an outdated build only costs
 *   capacity; OpenShift's SerialLatestOnly does the same), and a suspended
 *   CIBuild runs nothing.
 * - Jobs already being deleted are left to finish going.
 * - Of the rest, the newest `succeededLimit` succeeded and `failedLimit` failed Jobs are kept.
 *
 * @param stale - observed Jobs other than the current build's
 * @param deployedJobName - `lastSuccessfulBuild.name`, if any
 */
export function retainJobs(
  stale: ObservedBuildJob[],
  deployedJobName: string | undefined,
  limits: { succeededLimit: number; failedLimit: number },
  suspended: boolean,
): RetentionResult {
  const result: RetentionResult = { keep: [], drop: [] };
  const succeeded: ObservedBuildJob[] = [];
  const failed: ObservedBuildJob[] = [];
  for (const job of stale) {
    if (job.beingDeleted) result.drop.push({ job, reason: "Deleting" });
    else if (job.name === deployedJobName) result.keep.push(job);
    else if (job.state === "Succeeded") succeeded.push(job);
    else if (job.state === "Failed") failed.push(job);
    else result.drop.push({ job, reason: suspended ? "Suspended" : "Superseded" });
  }
  for (const [list, limit] of [
    [succeeded, limits.succeededLimit],
    [failed, limits.failedLimit],
  ] as const) {
    list.sort(newestFirst);
    list.forEach((job, i) => (i < limit ? result.keep.push(job) : result.drop.push({ job, reason: "RetentionLimit" })));
  }
  return result;
}
