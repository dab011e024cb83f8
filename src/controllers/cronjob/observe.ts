/**
 * Step 1 of every CronJob hook call: read the request once. Everything the decision needs is
 * here, already parsed and checked; nothing is decided yet.
 *
 * @packageDocumentation
 */
import { listChildren, type KubeObject, type SyncRequest } from "../../metacontroller/contract.ts";
import { jobOutcome } from "../../kube/jobs.ts";
import { parseTime } from "../../kube/time.ts";
import { JOB_GROUP_KEY } from "./constants.ts";
import { historyLimits, type HistoryLimits } from "./history.ts";
import type { ScheduleRecord } from "./schema.ts";
import { currentStatus, effectiveLastScheduleTime, scheduleRecord } from "./status.ts";
import { readCronJobSpec, type ReadSpec } from "./validate.ts";
import { nestingProblem } from "../../kube/nesting.ts";

/** What one request says about a CronJob. */
export interface ObservedCronJob {
  parent: KubeObject;
  /** `metadata.name`, the prefix of every Job name. */
  name: string;
  /** The observed Jobs, sorted by name. */
  jobs: KubeObject[];
  /** The observed Jobs that have not finished (no `Complete`/`Failed` condition that is True). */
  running: KubeObject[];
  /** The parent's current status (anything malformed reads as `{}`). */
  status: Record<string, unknown>;
  /** The spec: valid, or its problems in check order. */
  spec: ReadSpec;
  /**
   * The history limits, read on their own from the raw spec, so history is cleaned up also while
   * another field is invalid (see history.ts); `undefined` when nothing may be pruned (a limit
   * that does not parse, or a parent too deep to read).
   */
  historyLimits: HistoryLimits | undefined;
  creation: Date | undefined;
  /**
   * The effective last schedule time (status, observed Jobs, `status.active`); later than now
   * only when the status says so (another replica's clock ran ahead: no slot at or before it runs).
   */
  lastScheduleTime: Date | undefined;
  /** The schedule record as it will be written (a changed schedule is in force from now). */
  scheduleRecord: ScheduleRecord;
  /** `scheduleRecord.since`: slots of the schedule before it are not run. */
  scheduleSince: Date;
}

/** Reads a CronJob sync or finalize request. */
export function observeCronJob(request: SyncRequest, now: Date): ObservedCronJob {
  const parent = request.parent;
  const rawSpec = (parent as { spec?: unknown }).spec;
  const jobs = listChildren(request.children, JOB_GROUP_KEY);
  const status = currentStatus(parent);
  const creation = parseTime(parent.metadata.creationTimestamp);
  // Measured before anything reads the parent: past this bound nothing in it is looked at (a
  // clone or hash of it would overflow the stack), so it counts as unreadable and keeps every Job.
  const tooDeep = nestingProblem(parent);
  const lastScheduleTime = effectiveLastScheduleTime(parent.metadata.name, status, jobs, now);
  const record = scheduleRecord(rawSpec, status, lastScheduleTime, creation, now);
  return {
    parent,
    name: parent.metadata.name,
    jobs,
    running: jobs.filter((j) => jobOutcome(j) === undefined),
    status,
    spec: tooDeep ? { problems: [tooDeep] } : readCronJobSpec(rawSpec),
    historyLimits: tooDeep ? undefined : historyLimits(rawSpec),
    creation,
    lastScheduleTime,
    scheduleRecord: record,
    // scheduleRecord only keeps a `since` that parses, and writes the others itself.
    scheduleSince: parseTime(record.since) ?? now,
  };
}
