/**
 * Step 3 of the CronJob hooks: build the answer from the plan. Every observed Job the plan does
 * not leave out is re-emitted as observed; the status is written whole (an omitted field would
 * be wiped).
 *
 * @packageDocumentation
 */
import type { KubeObject } from "../../metacontroller/contract.ts";
import type { ConditionInput } from "../../kube/conditions.ts";
import { isBeingDeleted } from "../../kube/jobs.ts";
import { reemitObserved, sortChildren } from "../../kube/objects.ts";
import type { HookResult } from "../types.ts";
import { Action, ConditionType, FINALIZE_RESYNC_SECONDS, Reason } from "./constants.ts";
import type { ObservedCronJob } from "./observe.ts";
import type { SyncPlan } from "./plan.ts";
import { activeReferences, buildStatus, lastSuccessfulTime } from "./status.ts";

/** The sync answer: kept and new Jobs, `Ready` (and `Scheduling` when on schedule), the resync. */
export function renderSync(o: ObservedCronJob, plan: SyncPlan, now: Date): HookResult {
  const replaced = plan.kind === "Invalid" ? [] : plan.replaced;
  const newJob = plan.kind === "Scheduled" ? plan.newJob : undefined;
  // Most calls leave nothing out: then every observed Job is kept, with no name sets to build.
  const children = plan.pruned.length || replaced.length ? o.jobs.filter(notIn([...plan.pruned, ...replaced])).map(reemitObserved) : o.jobs.map(reemitObserved);
  const stillRunning = replaced.length ? o.running.filter(notIn(replaced)) : o.running.slice();
  if (newJob) {
    children.push(newJob);
    stillRunning.push(newJob);
  }

  const conditions: ConditionInput[] =
    plan.kind === "Scheduled"
      ? [
          { type: ConditionType.Ready, status: "True", reason: Reason.Active, message: `schedule ${JSON.stringify(plan.valid.spec.schedule)} in ${plan.valid.zone}` },
          plan.scheduling,
        ]
      : [{ type: ConditionType.Ready, status: "False", reason: plan.kind === "Invalid" ? plan.problems[0].reason : plan.reason, message: plan.message }];

  const response: HookResult["response"] = {
    status: buildStatus(
      o.parent,
      {
        active: activeReferences(o.name, stillRunning),
        lastScheduleTime: plan.kind === "Invalid" ? o.lastScheduleTime : plan.lastScheduleTime,
        lastSuccessfulTime: lastSuccessfulTime(o.status, o.jobs),
        conditions,
        schedule: o.scheduleRecord,
      },
      now,
    ),
    children: sortChildren(children),
  };
  if (plan.kind === "Scheduled" && plan.resyncAfterSeconds > 0) response.resyncAfterSeconds = plan.resyncAfterSeconds;
  const result: HookResult = { response, decisions: plan.decisions };
  if (plan.kind === "Invalid") result.invalidReason = plan.problems[0].reason;
  return result;
}

/** A filter keeping the Jobs whose name is not among `jobs`' names. */
function notIn(jobs: readonly KubeObject[]): (job: KubeObject) => boolean {
  const names = new Set(jobs.map((j) => j.metadata.name));
  return (job) => !names.has(job.metadata.name);
}

/**
 * The finalize answer: no children (Metacontroller deletes every observed Job with background
 * propagation, Pods included); `finalized` only once no Job is observed, so the finalizer goes
 * only after the Jobs; until then a resync after {@link FINALIZE_RESYNC_SECONDS} seconds. The
 * status keeps the times and the schedule record and says `Ready=False/Deleting`.
 */
export function renderFinalize(o: ObservedCronJob, now: Date): HookResult {
  const remaining = o.jobs.length;
  const response: HookResult["response"] = {
    status: buildStatus(
      o.parent,
      {
        active: undefined,
        lastScheduleTime: o.lastScheduleTime,
        lastSuccessfulTime: lastSuccessfulTime(o.status, o.jobs),
        conditions: [
          {
            type: ConditionType.Ready,
            status: "False",
            reason: Reason.Deleting,
            message: remaining ? `the CronJob is being deleted; waiting for ${remaining} Job(s) to be deleted` : "the CronJob is being deleted",
          },
        ],
        schedule: o.scheduleRecord,
      },
      now,
    ),
    children: [],
    finalized: remaining === 0,
  };
  if (remaining) response.resyncAfterSeconds = FINALIZE_RESYNC_SECONDS;
  const decisions = o.jobs
    .filter((j: KubeObject) => !isBeingDeleted(j))
    .map((j) => ({ action: Action.Delete, reason: "Finalizing", object: j.metadata.name }));
  return { response, decisions };
}
