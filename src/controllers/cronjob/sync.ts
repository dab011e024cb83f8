/**
 * The CronJob sync hook: request → validate → decide → children → status → response.
 *
 * @packageDocumentation
 */
import { listChildren, type KubeObject, type SyncRequest } from "../../metacontroller/contract.ts";
import type { ConditionInput } from "../../kube/conditions.ts";
import { isBeingDeleted, jobOutcome } from "../../kube/jobs.ts";
import { isDns1123Subdomain, isLabelValue } from "../../kube/names.ts";
import { reemitObserved, sortChildren } from "../../kube/objects.ts";
import { formatTime, parseTime } from "../../kube/time.ts";
import type { Decision, HookResult } from "../types.ts";
import {
  Action,
  ConditionType,
  DEFAULTS,
  JOB_GROUP_KEY,
  MAX_CRONJOB_NAME_LENGTH,
  MAX_JOB_NAME_LENGTH,
  Reason,
  RESYNC_PAD_SECONDS,
  SkipReason,
} from "./constants.ts";
import { historyLimits, selectHistoryToPrune } from "./history.ts";
import { buildJob } from "./job.ts";
import { jobNameFor } from "./scheduled-time.ts";
import {
  activeNamesInStatus,
  activeReferences,
  buildStatus,
  currentStatus,
  effectiveLastScheduleTime,
  lastSuccessfulTime,
  scheduleRecord,
} from "./status.ts";
import { readCronJobSpec, type ReadSpec, type ValidCronJob } from "./validate.ts";
import { nestingProblem } from "../../kube/nesting.ts";

/** Why the CronJob creates nothing at all right now (Ready=False). */
interface Blocked {
  reason: string;
  message: string;
  /** True when the parent itself is wrong (spec, name, nesting), not merely waiting. */
  invalid: boolean;
}

/** What the decision step chose for the most recent due slot. */
interface SlotDecision {
  newJob?: KubeObject;
  replaced: KubeObject[];
  lastScheduleTime: Date | undefined;
  scheduling: ConditionInput;
  decisions: Decision[];
}

/**
 * A Job name's shape, length aside: a DNS-1123 subdomain (lowercase ASCII letters, digits, `-`,
 * `.`), which is also a valid label value once it is at most 63 characters.
 */
const JOB_NAME_SHAPE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function blockedBy(parent: KubeObject, read: ReturnType<typeof readCronJobSpec>, now: Date): Blocked | undefined {
  if (isBeingDeleted(parent)) return { reason: Reason.Deleting, message: "the CronJob is being deleted; no new Jobs", invalid: false };
  const first = read.problems[0];
  if (first) return { reason: first.reason, message: `${first.field}: ${first.message}`, invalid: true };
  const name = parent.metadata.name;
  const sample = jobNameFor(name, now);
  // A Job name is a DNS-1123 subdomain, and it becomes the Pods' job-name label value, so it must
  // also be a label value: at most 63 characters (dots are fine in both, kubernetes#50850). The
  // characters are checked first: shortening never fixes an uppercase or non-ASCII name.
  if (!JOB_NAME_SHAPE.test(sample)) {
    return {
      reason: Reason.InvalidName,
      message: `Job names such as ${JSON.stringify(sample.slice(0, 80))} would not be valid: a CronJob name must be a DNS-1123 subdomain (lowercase letters, digits, '-' and '.')`,
      invalid: true,
    };
  }
  if (sample.length > MAX_JOB_NAME_LENGTH || !isDns1123Subdomain(sample) || !isLabelValue(sample)) {
    return {
      reason: Reason.NameTooLong,
      message: `Job names such as ${JSON.stringify(sample)} would be longer than the ${MAX_JOB_NAME_LENGTH} characters a label value allows; use a CronJob name of at most ${MAX_CRONJOB_NAME_LENGTH} characters`,
      invalid: true,
    };
  }
  if (read.valid?.spec.suspend === true) return { reason: Reason.Suspended, message: "spec.suspend is true; no new Jobs", invalid: false };
  return undefined;
}

function condition(type: string, status: ConditionInput["status"], reason: string, message: string): ConditionInput {
  return { type, status, reason, message };
}

/**
 * Decides what to do about the most recent slot in (last schedule time, now] (issue 2 rule 8):
 * skip it when a Job of that name is known, when it is later than startingDeadlineSeconds
 * (without moving lastScheduleTime), or under Forbid while a Job runs (also without moving it);
 * under Replace leave every running Job out; then create its Job. At most one Job per call.
 */
function decideSlot(
  parent: KubeObject,
  valid: ValidCronJob,
  candidate: Date,
  running: readonly KubeObject[],
  knownNames: ReadonlySet<string>,
  lastScheduleTime: Date | undefined,
  now: Date,
): SlotDecision {
  const name = jobNameFor(parent.metadata.name, candidate);
  const slot = formatTime(candidate);
  const keep = { replaced: [], lastScheduleTime };
  if (knownNames.has(name)) {
    return {
      ...keep,
      scheduling: condition(ConditionType.Scheduling, "True", Reason.UpToDate, `the Job ${name} for the slot at ${slot} already exists`),
      decisions: [{ action: Action.Skip, reason: SkipReason.AlreadyExists, object: name }],
    };
  }
  const deadline = valid.spec.startingDeadlineSeconds;
  const lateSeconds = (now.getTime() - candidate.getTime()) / 1000;
  if (deadline !== undefined && lateSeconds > deadline) {
    return {
      ...keep,
      scheduling: condition(
        ConditionType.Scheduling,
        "False",
        Reason.MissedSchedule,
        // No lateness figure: it grows with the clock and would rewrite the status on every call.
        `the slot at ${slot} was missed: more than startingDeadlineSeconds (${deadline}) late`,
      ),
      decisions: [{ action: Action.Skip, reason: SkipReason.TooLate, object: name }],
    };
  }
  const policy = valid.spec.concurrencyPolicy ?? DEFAULTS.concurrencyPolicy;
  if (policy === "Forbid" && running.length > 0) {
    return {
      ...keep,
      scheduling: condition(
        ConditionType.Scheduling,
        "False",
        Reason.ConcurrencyForbidden,
        `the slot at ${slot} waits: concurrencyPolicy is Forbid and ${running.map((j) => j.metadata.name).join(", ")} still running`,
      ),
      decisions: [{ action: Action.Skip, reason: SkipReason.Forbid, object: name }],
    };
  }
  const replaced = policy === "Replace" ? [...running] : [];
  const newJob = buildJob(parent, valid.spec.jobTemplate, candidate, valid.zone);
  return {
    newJob,
    replaced,
    lastScheduleTime: candidate,
    scheduling: condition(ConditionType.Scheduling, "True", Reason.JobCreated, `created the Job ${name} for the slot at ${slot}`),
    decisions: [
      ...replaced.map((j) => ({ action: Action.Replace, reason: "Replace", object: j.metadata.name })),
      { action: Action.Create, object: name },
    ],
  };
}

/**
 * Replace as a desired state: once the Job of the latest slot exists (or is created now), no other
 * Job may run. Upstream deletes the running Jobs at the moment it creates the new one; a stateless
 * hook must keep saying so on every call, or a delete that Metacontroller failed to carry out
 * (API error, lost response) would leave the old Job running next to the new one for good.
 *
 * @returns running Jobs to leave out now, beyond those `alreadyReplaced`; adds their decisions
 */
function staleUnderReplace(
  parent: KubeObject,
  valid: ValidCronJob,
  running: readonly KubeObject[],
  alreadyReplaced: readonly KubeObject[],
  newJob: KubeObject | undefined,
  lastScheduleTime: Date | undefined,
  decisions: Decision[],
): KubeObject[] {
  if ((valid.spec.concurrencyPolicy ?? DEFAULTS.concurrencyPolicy) !== "Replace" || !lastScheduleTime) return [];
  const latest = jobNameFor(parent.metadata.name, lastScheduleTime);
  const latestRuns = newJob?.metadata.name === latest || running.some((j) => j.metadata.name === latest);
  if (!latestRuns) return [];
  const done = new Set(alreadyReplaced.map((j) => j.metadata.name));
  const stale = running.filter((j) => j.metadata.name !== latest && !done.has(j.metadata.name));
  for (const j of stale) decisions.push({ action: Action.Replace, reason: "Replace", object: j.metadata.name });
  return stale;
}

/**
 * The CronJob sync hook, a pure function of the request and the clock.
 *
 * Semantics follow upstream pkg/controller/cronjob (cronjob_controllerv2.go, utils.go) with the
 * differences listed in README "CronJob": classic-cron DST, schedule changes effective from the
 * moment first seen, `status.active` from observed children only, no missed-slot loop.
 *
 * @param request - a parsed Metacontroller sync request for a CronJob parent
 * @param now - the current time
 * @returns every observed Job that stays (history pruning and Replace leave Jobs out), at most
 *   one new Job, the whole status, and `resyncAfterSeconds` (seconds, > 0) until the next slot;
 *   no resync when suspended, invalid, deleting or never firing
 */
export function syncCronJob(request: SyncRequest, now: Date): HookResult {
  const parent = request.parent;
  const cronJobName = parent.metadata.name;
  const spec = (parent as { spec?: unknown }).spec;
  const jobs = listChildren(request.children, JOB_GROUP_KEY);
  const status = currentStatus(parent);
  const decisions: Decision[] = [];

  // Measured before anything reads the parent: past this bound nothing in it is looked at (a
  // clone or hash of it would overflow the stack), so it counts as unreadable.
  const tooDeep = nestingProblem(parent);

  // Rule 3: history cleanup on every call, before anything can stop us, but only with limits the
  // spec states validly (see historyLimits); an unreadable parent keeps every Job.
  const pruned = tooDeep ? [] : selectHistoryToPrune(jobs, historyLimits(spec));
  for (const job of pruned) decisions.push({ action: Action.Prune, reason: "HistoryLimit", object: job.metadata.name });
  const prunedNames = new Set(pruned.map((j) => j.metadata.name));
  const running = jobs.filter((j) => jobOutcome(j) === undefined);

  const read: ReadSpec = tooDeep ? { problems: [tooDeep] } : readCronJobSpec(spec);
  const creation = parseTime(parent.metadata.creationTimestamp);
  let lastScheduleTime = effectiveLastScheduleTime(cronJobName, status, jobs, now);
  const record = scheduleRecord(spec, status, lastScheduleTime, creation, now);

  let blocked = blockedBy(parent, read, now);
  let scheduling: ConditionInput | undefined;
  let newJob: KubeObject | undefined;
  let replaced: KubeObject[] = [];
  let resyncAfterSeconds: number | undefined;

  const valid = read.valid;
  if (!blocked && valid) {
    const anchor = lastScheduleTime ?? creation ?? now;
    // A last schedule time from the future (another replica's clock ran ahead) leaves no slot in
    // (anchor, now], and the next slot is the first after it; otherwise the first after now
    // (rule 12), also after a Job is created below. Asked first: a schedule with no future slot
    // (`0 0 30 2 *`) never had a past one either, and the backward search is the costly one.
    const future = lastScheduleTime !== undefined && lastScheduleTime.getTime() > now.getTime();
    const next = valid.schedule.nextSlot(future ? lastScheduleTime! : now, anchor);
    let candidate = next ? valid.schedule.latestSlot(now, anchor) : undefined;
    const since = parseTime(record.since)!;
    if (candidate && candidate.getTime() < since.getTime()) {
      // Rule 9: slots of a changed schedule before the change was first seen are not run.
      decisions.push({ action: Action.Skip, reason: SkipReason.BeforeScheduleChange, object: jobNameFor(cronJobName, candidate) });
      candidate = undefined;
    }
    if (candidate) {
      const knownNames = new Set([...jobs.map((j) => j.metadata.name), ...activeNamesInStatus(status)]);
      const slot = decideSlot(parent, valid, candidate, running, knownNames, lastScheduleTime, now);
      newJob = slot.newJob;
      replaced = slot.replaced;
      lastScheduleTime = slot.lastScheduleTime;
      scheduling = slot.scheduling;
      decisions.push(...slot.decisions);
    }
    replaced.push(...staleUnderReplace(parent, valid, running, replaced, newJob, lastScheduleTime, decisions));
    if (next) {
      // Seconds, padded so the resync lands just after the slot; ms precision keeps it stable.
      resyncAfterSeconds = Math.round(((next.getTime() - now.getTime()) / 1000 + RESYNC_PAD_SECONDS) * 1000) / 1000;
    } else {
      blocked = { reason: Reason.NeverFires, message: `the schedule ${JSON.stringify(valid.spec.schedule)} has no future slot`, invalid: false };
    }
    scheduling ??= condition(
      ConditionType.Scheduling,
      "True",
      Reason.UpToDate,
      future
        ? `status.lastScheduleTime ${formatTime(lastScheduleTime!)} is later than now; no slot at or before it runs`
        : lastScheduleTime
          ? `no slot due since ${formatTime(lastScheduleTime)}`
          : "no slot due yet",
    );
  }
  if (blocked) decisions.push({ action: Action.Skip, reason: blocked.reason });

  const replacedNames = new Set(replaced.map((j) => j.metadata.name));
  const kept = jobs.filter((j) => !prunedNames.has(j.metadata.name) && !replacedNames.has(j.metadata.name));
  const children = kept.map(reemitObserved);
  if (newJob) children.push(newJob);
  const stillRunning = running.filter((j) => !replacedNames.has(j.metadata.name));
  if (newJob) stillRunning.push(newJob);

  const ready = blocked
    ? condition(ConditionType.Ready, "False", blocked.reason, blocked.message)
    : condition(
        ConditionType.Ready,
        "True",
        Reason.Active,
        `schedule ${JSON.stringify(valid!.spec.schedule)} in ${valid!.zone}`,
      );
  const conditions = [ready];
  if (!blocked && scheduling) conditions.push(scheduling);

  const response: HookResult["response"] = {
    status: buildStatus(
      parent,
      {
        active: activeReferences(cronJobName, stillRunning),
        lastScheduleTime,
        lastSuccessfulTime: lastSuccessfulTime(status, jobs),
        conditions,
        schedule: record,
      },
      now,
    ),
    children: sortChildren(children),
  };
  if (!blocked && resyncAfterSeconds !== undefined && resyncAfterSeconds > 0) response.resyncAfterSeconds = resyncAfterSeconds;
  return blocked?.invalid ? { response, decisions, invalidReason: blocked.reason } : { response, decisions };
}
