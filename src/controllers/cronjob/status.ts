/**
 * The CronJob's status: active references, times, conditions and the schedule record.
 *
 * @packageDocumentation
 */
import type { KubeObject } from "../../metacontroller/contract.ts";
import { withTransitionTimes, type ConditionInput } from "../../kube/conditions.ts";
import { jobOutcome } from "../../kube/jobs.ts";
import { copyOwn } from "../../kube/copy-own.ts";
import { sortByTimeThenName } from "../../kube/objects.ts";
import { formatTime, parseTime } from "../../kube/time.ts";
import { DEFAULTS, MAX_ACTIVE_REFS } from "./constants.ts";
import { ScheduleRecordSchema, type CronJobStatus, type JobReference, type ScheduleRecord } from "./schema.ts";
import { scheduledTimeOfJob, scheduledTimeOfName } from "./scheduled-time.ts";

/** The parent's current status as an object (anything else counts as empty). */
export function currentStatus(parent: KubeObject): Record<string, unknown> {
  const status = (parent as { status?: unknown }).status;
  return status && typeof status === "object" && !Array.isArray(status) ? (status as Record<string, unknown>) : {};
}

/** Names listed in `status.active` (malformed entries ignored). */
export function activeNamesInStatus(status: Record<string, unknown>): string[] {
  if (!Array.isArray(status.active)) return [];
  return status.active
    .map((ref) => (ref && typeof ref === "object" ? (ref as { name?: unknown }).name : undefined))
    .filter((n): n is string => typeof n === "string" && n !== "");
}

/**
 * The effective last schedule time: the latest of `status.lastScheduleTime`,
 * the scheduled times of observed Jobs and of Jobs named in `status.active`.
 *
 * `status.lastScheduleTime` counts even when it is later than `now`: another hook replica whose
 * clock runs ahead may have created that slot's Job, and a replica behind it must not create a Job
 * for an older slot that was passed over. As upstream (`mostRecentScheduleTime` returns nothing
 * while the last schedule time is after now), no slot at or before it ever runs, whatever the
 * local clock says. Jobs' scheduled times (annotations, names) later than `now` are ignored: a
 * hand-made or adopted Job named for the far future must not stop the schedule.
 *
 * @returns the time, possibly after `now` (only from the status), or undefined when none
 */
export function effectiveLastScheduleTime(
  cronJobName: string,
  status: Record<string, unknown>,
  jobs: readonly KubeObject[],
  now: Date,
): Date | undefined {
  let latest = parseTime(status.lastScheduleTime);
  const consider = (t: Date | undefined) => {
    if (t && t.getTime() <= now.getTime() && (!latest || t.getTime() > latest.getTime())) latest = t;
  };
  for (const job of jobs) consider(scheduledTimeOfJob(cronJobName, job));
  for (const name of activeNamesInStatus(status)) consider(scheduledTimeOfName(cronJobName, name));
  return latest;
}

/**
 * The schedule record (docs/cronjob.md, "Schedule changes"). Unchanged schedule and zone keep
 * their `since`; a change
 * is in force from `now`, the moment this hook first sees it; without a (valid) record the
 * schedule counts as in force since the last schedule time, else since creation, so a lost status
 * never drops a legitimate missed run.
 */
export function scheduleRecord(
  spec: unknown,
  status: Record<string, unknown>,
  lastScheduleTime: Date | undefined,
  creation: Date | undefined,
  now: Date,
): ScheduleRecord {
  const s = (spec && typeof spec === "object" ? spec : {}) as Record<string, unknown>;
  const schedule = typeof s.schedule === "string" ? s.schedule : "";
  const timeZone = typeof s.timeZone === "string" ? s.timeZone : DEFAULTS.timeZone;
  // A `since` after `now` (an edited status, a skewed clock) would silently hold every slot back
  // until then; nothing can have been seen in the future, so such a record counts as missing, and
  // the fallback is clamped to now as well.
  const notAfterNow = (t: Date) => formatTime(t.getTime() > now.getTime() ? now : t);
  const old = ScheduleRecordSchema.safeParse(status.schedule);
  const oldSince = old.success ? parseTime(old.data.since) : undefined;
  if (old.success && oldSince && oldSince.getTime() <= now.getTime()) {
    if (old.data.schedule === schedule && old.data.timeZone === timeZone) return old.data;
    return { schedule, timeZone, since: formatTime(now) };
  }
  return { schedule, timeZone, since: notAfterNow(lastScheduleTime ?? creation ?? now) };
}

/** `status.lastSuccessfulTime`: the latest of the old value and succeeded Jobs' completionTime. */
export function lastSuccessfulTime(status: Record<string, unknown>, jobs: readonly KubeObject[]): Date | undefined {
  let latest = parseTime(status.lastSuccessfulTime);
  for (const job of jobs) {
    if (jobOutcome(job) !== "Complete") continue;
    const t = parseTime((job.status as { completionTime?: unknown } | undefined)?.completionTime);
    if (t && (!latest || t.getTime() > latest.getTime())) latest = t;
  }
  return latest;
}

/**
 * `status.active`: references to the given Jobs ordered by scheduled time (unknown last, then by
 * name), the most recent {@link MAX_ACTIVE_REFS} kept; undefined when empty (the CRD has
 * MinItems 1).
 */
export function activeReferences(cronJobName: string, jobs: readonly KubeObject[]): JobReference[] | undefined {
  if (jobs.length === 0) return undefined;
  const ordered = sortByTimeThenName(jobs, (job) => scheduledTimeOfJob(cronJobName, job)?.getTime());
  return ordered.slice(-MAX_ACTIVE_REFS).map((job) => {
    const ref: JobReference = { apiVersion: "batch/v1", kind: "Job", name: job.metadata.name };
    if (job.metadata.namespace) ref.namespace = job.metadata.namespace;
    if (job.metadata.uid) ref.uid = job.metadata.uid;
    return ref;
  });
}

/** Inputs of {@link buildStatus}. */
export interface StatusParts {
  active: JobReference[] | undefined;
  lastScheduleTime: Date | undefined;
  lastSuccessfulTime: Date | undefined;
  conditions: ConditionInput[];
  schedule: ScheduleRecord;
}

/**
 * The whole status the hook answers (Metacontroller replaces the parent's status with it and adds
 * `observedGeneration`). Conditions keep their `lastTransitionTime` unless their status changed.
 */
export function buildStatus(parent: KubeObject, parts: StatusParts, now: Date): CronJobStatus {
  const previous = currentStatus(parent).conditions;
  const status: CronJobStatus = {};
  if (parts.active) status.active = parts.active;
  if (parts.lastScheduleTime) status.lastScheduleTime = formatTime(parts.lastScheduleTime);
  if (parts.lastSuccessfulTime) status.lastSuccessfulTime = formatTime(parts.lastSuccessfulTime);
  const generation = parent.metadata.generation;
  status.conditions = withTransitionTimes(
    previous,
    parts.conditions.map((c) => (generation !== undefined ? withObservedGeneration(c, generation) : c)),
    now,
  );
  status.schedule = parts.schedule;
  return status;
}

/**
 * `{ ...condition, observedGeneration }`, made key by key: a spread followed by a new key costs V8
 * a new hidden class on every call (see copyOwn in kube/copy-own.ts), and this runs twice a call.
 */
function withObservedGeneration(condition: ConditionInput, observedGeneration: number): ConditionInput {
  const out = copyOwn(condition);
  out.observedGeneration = observedGeneration;
  return out;
}
