/**
 * Step 2 of the CronJob sync hook: decide. The rules are in docs/cronjob.md; this module turns an
 * {@link ObservedCronJob} into a {@link SyncPlan} and builds nothing but the one new Job.
 *
 * @packageDocumentation
 */
import type { KubeObject } from "../../metacontroller/contract.ts";
import type { ConditionInput } from "../../kube/conditions.ts";
import { isBeingDeleted } from "../../kube/jobs.ts";
import { isDns1123Subdomain, isLabelValue } from "../../kube/names.ts";
import { formatTime } from "../../kube/time.ts";
import type { Decision, SpecProblem } from "../types.ts";
import {
  Action,
  ConditionType,
  DEFAULTS,
  MAX_CRONJOB_NAME_LENGTH,
  MAX_JOB_NAME_LENGTH,
  MAX_RESYNC_SECONDS,
  Reason,
  RESYNC_PAD_SECONDS,
  SkipReason,
} from "./constants.ts";
import { selectHistoryToPrune } from "./history.ts";
import { buildJob } from "./job.ts";
import type { ObservedCronJob } from "./observe.ts";
import { jobNameFor } from "./scheduled-time.ts";
import { activeNamesInStatus } from "./status.ts";
import type { ValidCronJob } from "./validate.ts";

/** What every plan carries: the Jobs it leaves out and the decisions, in the order taken. */
interface PlanBase {
  /** Finished Jobs beyond the history limits (left out: Metacontroller deletes them). */
  pruned: KubeObject[];
  decisions: Decision[];
}

/**
 * The parent itself is wrong: an invalid spec, or a name no Job can carry. Nothing is created,
 * every other observed Job is kept, `Ready=False` with the first problem's reason; the reason
 * is also the one `metahooks_parents_invalid_total` counts.
 */
export interface InvalidPlan extends PlanBase {
  kind: "Invalid";
  problems: [SpecProblem, ...SpecProblem[]];
  /** The condition message. */
  message: string;
}

/**
 * A valid CronJob that creates nothing now: being deleted, suspended, or a schedule that never
 * fires again. `Ready=False` with the reason; no resync.
 */
export interface BlockedPlan extends PlanBase {
  kind: "Blocked";
  reason: typeof Reason.Deleting | typeof Reason.Suspended | typeof Reason.NeverFires;
  message: string;
  /** Running Jobs left out under Replace (a schedule that stopped firing keeps that rule). */
  replaced: KubeObject[];
  lastScheduleTime: Date | undefined;
}

/** A CronJob on schedule: at most one new Job, the Scheduling condition, the next resync. */
export interface ScheduledPlan extends PlanBase {
  kind: "Scheduled";
  valid: ValidCronJob;
  /** The Job for the most recent due slot, when it is created in this call. */
  newJob: KubeObject | undefined;
  /** Running Jobs left out under Replace (Metacontroller deletes them with their Pods). */
  replaced: KubeObject[];
  /** The last schedule time after this call (the new Job's slot, else the observed one). */
  lastScheduleTime: Date | undefined;
  /** The outcome for the most recent due slot. */
  scheduling: ConditionInput;
  /** Seconds until just after the next slot (> 0 when the call is on time). */
  resyncAfterSeconds: number;
}

/** What the sync hook does, decided from what it observed. */
export type SyncPlan = InvalidPlan | BlockedPlan | ScheduledPlan;

function condition(type: string, status: ConditionInput["status"], reason: string, message: string): ConditionInput {
  return { type, status, reason, message };
}

/**
 * A Job name's shape, length aside: a DNS-1123 subdomain (lowercase ASCII letters, digits, `-`,
 * `.`), which is also a valid label value once it is at most 63 characters.
 */
const JOB_NAME_SHAPE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The name rules: a Job name (`<name>-<unix minutes>`) must be a DNS-1123 subdomain and a label value. */
function nameProblem(name: string, now: Date): SpecProblem | undefined {
  const sample = jobNameFor(name, now);
  // A Job name is a DNS-1123 subdomain, and it becomes the Pods' job-name label value, so it must
  // also be a label value: at most 63 characters (dots are fine in both, kubernetes#50850). The
  // characters are checked first: shortening never fixes an uppercase or non-ASCII name.
  if (!JOB_NAME_SHAPE.test(sample)) {
    return {
      reason: Reason.InvalidName,
      field: "metadata.name",
      message: `Job names such as ${JSON.stringify(sample.slice(0, 80))} would not be valid: a CronJob name must be a DNS-1123 subdomain (lowercase letters, digits, '-' and '.')`,
    };
  }
  if (sample.length <= MAX_JOB_NAME_LENGTH && isDns1123Subdomain(sample) && isLabelValue(sample)) return undefined;
  return {
    reason: Reason.NameTooLong,
    field: "metadata.name",
    message: `Job names such as ${JSON.stringify(sample)} would be longer than the ${MAX_JOB_NAME_LENGTH} characters a label value allows; use a CronJob name of at most ${MAX_CRONJOB_NAME_LENGTH} characters`,
  };
}

/** What happens to the most recent due slot. */
interface SlotOutcome {
  newJob?: KubeObject;
  lastScheduleTime: Date | undefined;
  scheduling: ConditionInput;
  decisions: Decision[];
}

/**
 * The most recent slot in (last schedule time, now]: skipped when a Job of that name is known,
 * when it is later than startingDeadlineSeconds, or under Forbid while a Job runs (the last two
 * without moving lastScheduleTime, so the slot can still start later); else its Job is created.
 */
function decideSlot(o: ObservedCronJob, valid: ValidCronJob, candidate: Date, now: Date): SlotOutcome {
  const name = jobNameFor(o.name, candidate);
  const slot = formatTime(candidate);
  const knownNames = new Set([...o.jobs.map((j) => j.metadata.name), ...activeNamesInStatus(o.status)]);
  const skip = (scheduling: ConditionInput, reason: string): SlotOutcome => ({
    lastScheduleTime: o.lastScheduleTime,
    scheduling,
    decisions: [{ action: Action.Skip, reason, object: name }],
  });
  if (knownNames.has(name)) {
    return skip(condition(ConditionType.Scheduling, "True", Reason.UpToDate, `the Job ${name} for the slot at ${slot} already exists`), SkipReason.AlreadyExists);
  }
  const deadline = valid.spec.startingDeadlineSeconds;
  if (deadline !== undefined && (now.getTime() - candidate.getTime()) / 1000 > deadline) {
    // No lateness figure in the message: it grows with the clock and would rewrite the status on
    // every call.
    const message = `the slot at ${slot} was missed: more than startingDeadlineSeconds (${deadline}) late`;
    return skip(condition(ConditionType.Scheduling, "False", Reason.MissedSchedule, message), SkipReason.TooLate);
  }
  if ((valid.spec.concurrencyPolicy ?? DEFAULTS.concurrencyPolicy) === "Forbid" && o.running.length > 0) {
    const message = `the slot at ${slot} waits: concurrencyPolicy is Forbid and ${o.running.map((j) => j.metadata.name).join(", ")} still running`;
    return skip(condition(ConditionType.Scheduling, "False", Reason.ConcurrencyForbidden, message), SkipReason.Forbid);
  }
  return {
    newJob: buildJob(o.parent, valid.spec.jobTemplate, candidate, valid.zone),
    lastScheduleTime: candidate,
    scheduling: condition(ConditionType.Scheduling, "True", Reason.JobCreated, `created the Job ${name} for the slot at ${slot}`),
    decisions: [{ action: Action.Create, object: name }],
  };
}

/**
 * Replace as a desired state: while the latest slot's Job exists (or is created now), every other
 * running Job is left out. Upstream deletes them at the moment it creates the new Job; a stateless
 * hook must keep saying so on every call, or a delete Metacontroller failed to carry out (an API
 * error, a lost response) would leave the old Job running next to the new one for good.
 */
function replacedJobs(o: ObservedCronJob, valid: ValidCronJob, newJob: KubeObject | undefined, lastScheduleTime: Date | undefined): KubeObject[] {
  if ((valid.spec.concurrencyPolicy ?? DEFAULTS.concurrencyPolicy) !== "Replace" || !lastScheduleTime) return [];
  const latest = jobNameFor(o.name, lastScheduleTime);
  const latestRuns = newJob?.metadata.name === latest || o.running.some((j) => j.metadata.name === latest);
  return latestRuns ? o.running.filter((j) => j.metadata.name !== latest) : [];
}

/**
 * Seconds from `now` until just after `slot` (padded by RESYNC_PAD_SECONDS, ms precision so the
 * answer is stable), at most MAX_RESYNC_SECONDS. A slot past the Date range (an `@every` step
 * added to a far-future anchor gives NaN) also waits the longest resync.
 */
export function resyncSecondsUntil(slot: Date, now: Date): number {
  const seconds = Math.round(((slot.getTime() - now.getTime()) / 1000 + RESYNC_PAD_SECONDS) * 1000) / 1000;
  return Number.isFinite(seconds) ? Math.min(seconds, MAX_RESYNC_SECONDS) : MAX_RESYNC_SECONDS;
}

/** Why no slot is due: the last schedule time is in the future, or nothing came due since it (or ever). */
function upToDateMessage(future: Date | undefined, lastScheduleTime: Date | undefined): string {
  if (future && lastScheduleTime) return `status.lastScheduleTime ${formatTime(lastScheduleTime)} is later than now; no slot at or before it runs`;
  return lastScheduleTime ? `no slot due since ${formatTime(lastScheduleTime)}` : "no slot due yet";
}

/**
 * Decides one sync call. In order: history cleanup (always, with valid limits); being deleted; an
 * invalid spec (or a parent too deep to read); a name no Job can carry; suspended; then the schedule: the most recent due slot (none before a
 * schedule change was first seen), Replace, and the next slot (none: it never fires).
 */
export function planSync(o: ObservedCronJob, now: Date): SyncPlan {
  const pruned = selectHistoryToPrune(o.jobs, o.historyLimits);
  const decisions: Decision[] = pruned.map((job) => ({ action: Action.Prune, reason: "HistoryLimit", object: job.metadata.name }));
  const blocked = (reason: BlockedPlan["reason"], message: string, replaced: KubeObject[] = [], lastScheduleTime = o.lastScheduleTime): BlockedPlan => ({
    kind: "Blocked",
    reason,
    message,
    replaced,
    lastScheduleTime,
    pruned,
    decisions: [...decisions, { action: Action.Skip, reason }],
  });
  const invalid = (problems: [SpecProblem, ...SpecProblem[]], message: string): InvalidPlan => ({
    kind: "Invalid",
    problems,
    message,
    pruned,
    decisions: [...decisions, { action: Action.Skip, reason: problems[0].reason }],
  });

  if (isBeingDeleted(o.parent)) return blocked(Reason.Deleting, "the CronJob is being deleted; no new Jobs");
  const valid = o.spec.valid;
  if (!valid) {
    const [first] = o.spec.problems;
    return invalid(o.spec.problems, `${first.field}: ${first.message}`);
  }
  const badName = nameProblem(o.name, now);
  if (badName) return invalid([badName], badName.message);
  if (valid.spec.suspend === true) return blocked(Reason.Suspended, "spec.suspend is true; no new Jobs");

  const anchor = o.lastScheduleTime ?? o.creation ?? now;
  // A last schedule time from the future (another replica's clock ran ahead) leaves no slot in
  // (anchor, now], and the next slot is the first after it; otherwise the first after now, also
  // after a Job is created below (the resync targets it). Asked first: a schedule with no future
  // slot (`0 0 30 2 *`) never had a past one either, and the backward search is the costly one.
  const future = o.lastScheduleTime !== undefined && o.lastScheduleTime.getTime() > now.getTime() ? o.lastScheduleTime : undefined;
  const next = valid.schedule.nextSlot(future ?? now, anchor);
  let candidate = next ? valid.schedule.latestSlot(now, anchor) : undefined;
  if (candidate && candidate.getTime() < o.scheduleSince.getTime()) {
    // Slots of a changed schedule before the change was first seen are not run: running one
    // retroactively is the surprise kubernetes#130838 reports (docs/cronjob.md, "Schedule changes").
    decisions.push({ action: Action.Skip, reason: SkipReason.BeforeScheduleChange, object: jobNameFor(o.name, candidate) });
    candidate = undefined;
  }
  const slot = candidate ? decideSlot(o, valid, candidate, now) : undefined;
  const lastScheduleTime = slot ? slot.lastScheduleTime : o.lastScheduleTime;
  const replaced = replacedJobs(o, valid, slot?.newJob, lastScheduleTime);
  const replaceDecisions = replaced.map((j) => ({ action: Action.Replace, reason: "Replace", object: j.metadata.name }));
  // A created Job is logged after the Jobs it replaces; a skipped slot before them.
  if (slot?.newJob) decisions.push(...replaceDecisions, ...slot.decisions);
  else decisions.push(...(slot?.decisions ?? []), ...replaceDecisions);

  // A status so far ahead that no slot follows it (year 9999) is still a status from the future,
  // not a schedule that never fires: ask again at the longest resync.
  const wake = next ?? (future && valid.schedule.nextSlot(now, anchor) ? new Date(now.getTime() + MAX_RESYNC_SECONDS * 1000) : undefined);
  if (!wake) {
    return blocked(Reason.NeverFires, `the schedule ${JSON.stringify(valid.spec.schedule)} has no future slot`, replaced, lastScheduleTime);
  }
  return {
    kind: "Scheduled",
    valid,
    newJob: slot?.newJob,
    replaced,
    lastScheduleTime,
    scheduling: slot?.scheduling ?? condition(ConditionType.Scheduling, "True", Reason.UpToDate, upToDateMessage(future, lastScheduleTime)),
    resyncAfterSeconds: resyncSecondsUntil(wake, now),
    pruned,
    decisions,
  };
}
