/**
 * batch/v1 Job state, as upstream pkg/controller/job/util/utils.go judges it.
 *
 * @packageDocumentation
 */
import type { KubeObject } from "../metacontroller/contract.ts";

/** How a Job ended, or `undefined` while it still runs. */
export type JobOutcome = "Complete" | "Failed";

interface JobConditionLike {
  type?: unknown;
  status?: unknown;
  reason?: unknown;
  message?: unknown;
  lastTransitionTime?: unknown;
}

function conditionsOf(job: KubeObject): JobConditionLike[] {
  const status = job.status as { conditions?: unknown } | undefined;
  return Array.isArray(status?.conditions) ? (status.conditions as JobConditionLike[]) : [];
}

/**
 * The finished condition of a Job: the first `Complete` or `Failed` condition whose status is
 * `True`. `SuccessCriteriaMet` and `FailureTarget` are interim (pods may still be terminating)
 * and do not finish a Job (KEP-3998).
 */
export function finishedCondition(job: KubeObject): (JobConditionLike & { type: JobOutcome }) | undefined {
  return conditionsOf(job).find(
    (c): c is JobConditionLike & { type: JobOutcome } =>
      (c?.type === "Complete" || c?.type === "Failed") && c.status === "True",
  );
}

/** `Complete`, `Failed`, or `undefined` for a Job that has not finished. */
export function jobOutcome(job: KubeObject): JobOutcome | undefined {
  return finishedCondition(job)?.type;
}

/** True when the object is being deleted (`metadata.deletionTimestamp` set). */
export function isBeingDeleted(obj: KubeObject): boolean {
  return typeof obj.metadata.deletionTimestamp === "string" && obj.metadata.deletionTimestamp !== "";
}
