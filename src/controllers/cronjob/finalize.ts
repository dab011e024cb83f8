/**
 * The CronJob finalize hook.
 *
 * @packageDocumentation
 */
import { listChildren, type SyncRequest } from "../../metacontroller/contract.ts";
import { isBeingDeleted } from "../../kube/jobs.ts";
import { parseTime } from "../../kube/time.ts";
import type { HookResult } from "../types.ts";
import { Action, ConditionType, FINALIZE_RESYNC_SECONDS, JOB_GROUP_KEY, Reason } from "./constants.ts";
import { buildStatus, currentStatus, effectiveLastScheduleTime, lastSuccessfulTime, scheduleRecord } from "./status.ts";

/**
 * The CronJob finalize hook: no children are desired (Metacontroller deletes every observed Job
 * with background propagation, Pods included); `finalized` is true only once no Job is observed,
 * so the finalizer goes only after the Jobs are gone. Until then it asks for a resync after
 * {@link FINALIZE_RESYNC_SECONDS} seconds. The status keeps the times and schedule record and
 * says Ready=False/Deleting.
 *
 * @param request - a Metacontroller finalize request for a CronJob parent
 * @param now - the current time
 */
export function finalizeCronJob(request: SyncRequest, now: Date): HookResult {
  const parent = request.parent;
  const jobs = listChildren(request.children, JOB_GROUP_KEY);
  const status = currentStatus(parent);
  const spec = (parent as { spec?: unknown }).spec;
  const lastScheduleTime = effectiveLastScheduleTime(parent.metadata.name, status, jobs, now);
  const remaining = jobs.length;
  const response: HookResult["response"] = {
    status: buildStatus(
      parent,
      {
        active: undefined,
        lastScheduleTime,
        lastSuccessfulTime: lastSuccessfulTime(status, jobs),
        conditions: [
          {
            type: ConditionType.Ready,
            status: "False",
            reason: Reason.Deleting,
            message: remaining ? `the CronJob is being deleted; waiting for ${remaining} Job(s) to be deleted` : "the CronJob is being deleted",
          },
        ],
        schedule: scheduleRecord(spec, status, lastScheduleTime, parseTime(parent.metadata.creationTimestamp), now),
      },
      now,
    ),
    children: [],
    finalized: remaining === 0,
  };
  if (remaining) response.resyncAfterSeconds = FINALIZE_RESYNC_SECONDS;
  const decisions = jobs
    .filter((j) => !isBeingDeleted(j))
    .map((j) => ({ action: Action.Delete, reason: "Finalizing", object: j.metadata.name }));
  return { response, decisions };
}
