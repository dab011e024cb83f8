/**
 * Names, defaults, condition types and reasons of the CronJob controller.
 *
 * @packageDocumentation
 */

import { groupKey } from "../define-kind.ts";
import type { ChildResource, ParentResource } from "../types.ts";
import type { SpecDefaults } from "../defaults.ts";
import { REASON_NESTING_TOO_DEEP } from "../../kube/nesting.ts";

/** The parent's API group, version and kind. */
const GROUP = "batch.tutorial.kubebuilder.io";
const VERSION = "v1";
export const API_VERSION = `${GROUP}/${VERSION}`;
export const KIND = "CronJob";

/** The parent resource (the kubebuilder tutorial's CRD). */
export const PARENT: ParentResource = { apiVersion: API_VERSION, kind: KIND, plural: "cronjobs", singular: "cronjob" };

/**
 * The only child type: batch/v1 Jobs. No update strategy (OnDelete): a Job's template is
 * immutable, and a kept Job must never be recreated or patched because our view of it differs.
 */
export const JOB_CHILD: ChildResource = { apiVersion: "batch/v1", kind: "Job", resource: "jobs" };

/** The Jobs' group key in hook requests (`Job.batch/v1`). */
export const JOB_GROUP_KEY = groupKey(JOB_CHILD);

/** Upstream's scheduled-time annotation (RFC 3339 in the CronJob's zone), GA in Kubernetes 1.32. */
export const SCHEDULED_TIMESTAMP_ANNOTATION = "batch.kubernetes.io/cronjob-scheduled-timestamp";
/** The kubebuilder tutorial's scheduled-time annotation (RFC 3339, UTC). */
export const SCHEDULED_AT_ANNOTATION = "batch.tutorial.kubebuilder.io/scheduled-at";

/**
 * Defaults the hook assumes for unset fields (batch/v1 and the tutorial webhook agree, except
 * `timeZone`: upstream falls back to the controller's local zone, which a hook must never depend
 * on). The kind's defaults table: the mutating webhook and the CRD descriptions use it too.
 */
export const DEFAULTS = {
  concurrencyPolicy: "Allow",
  suspend: false,
  successfulJobsHistoryLimit: 3,
  failedJobsHistoryLimit: 1,
  timeZone: "UTC",
} as const satisfies SpecDefaults;

/** At most this many references in `status.active` (the tutorial CRD's MaxItems). */
export const MAX_ACTIVE_REFS = 10;

/** Longest CronJob name accepted on create: 63 minus the 11-character suffix upstream reserves. */
export const MAX_CRONJOB_NAME_LENGTH = 52;

/** Longest Job name: the name becomes the Pods' `job-name` label value (63 characters). */
export const MAX_JOB_NAME_LENGTH = 63;

/**
 * Seconds added to every `resyncAfterSeconds` so the resync lands just after the slot, not just
 * before it (upstream `nextScheduleDelta`, 100 ms).
 */
export const RESYNC_PAD_SECONDS = 0.1;

/**
 * Longest `resyncAfterSeconds` (24 h). Metacontroller turns the seconds into a Go
 * `time.Duration` (int64 nanoseconds, about 292 years at most), so a slot centuries away (a
 * far-future `status.lastScheduleTime`, `@every 2562047h`) would overflow it. Waking earlier than
 * the slot is harmless: the hook recomputes the same plan and asks again.
 */
export const MAX_RESYNC_SECONDS = 86_400;

/** Resync while waiting for finalization (children deletions also trigger a call). */
export const FINALIZE_RESYNC_SECONDS = 5;

/**
 * Condition types in `status.conditions`.
 *
 * - `Ready`: whether the CronJob can create Jobs at all. `False` with the first blocking reason
 *   (invalid spec, name too long, suspended, deleting, never fires).
 * - `Scheduling`: the outcome for the most recent due slot. `True` (`JobCreated` or `UpToDate`),
 *   `False` when the slot was skipped (`MissedSchedule`, `ConcurrencyForbidden`). Only present
 *   while `Ready` is `True`.
 */
export const ConditionType = {
  Ready: "Ready",
  Scheduling: "Scheduling",
} as const;

/** CamelCase condition reasons (also the SpecProblem reasons of admission). */
export const Reason = {
  /** Ready=True: valid, not suspended, fires in the future. */
  Active: "Active",
  InvalidSchedule: "InvalidSchedule",
  InvalidTimeZone: "InvalidTimeZone",
  /** Any other spec field is invalid (negative number, unknown concurrencyPolicy, no jobTemplate…). */
  InvalidSpec: "InvalidSpec",
  /** `jobTemplate` could never make a Job (no containers, restartPolicy other than OnFailure/Never). */
  InvalidJobTemplate: "InvalidJobTemplate",
  /** The Job name (`<name>-<unix minutes>`) would exceed 63 characters (a label value's limit). */
  NameTooLong: "NameTooLong",
  /**
   * The CronJob name has characters a Job name cannot carry (a Job name is a DNS-1123 subdomain
   * and also the Pods' `job-name` label value: lowercase ASCII letters, digits, `-` and `.`).
   */
  InvalidName: "InvalidName",
  /** The parent nests deeper than MAX_NESTING_DEPTH levels; nothing in it is read. */
  NestingTooDeep: REASON_NESTING_TOO_DEEP,
  Suspended: "Suspended",
  /** The schedule has no future slot (e.g. `0 0 30 2 *`). */
  NeverFires: "NeverFires",
  /** The CronJob is being deleted. */
  Deleting: "Deleting",
  /** Scheduling=True: a Job was created in this call. */
  JobCreated: "JobCreated",
  /** Scheduling=True: every due slot is handled. */
  UpToDate: "UpToDate",
  /** Scheduling=False: the most recent slot is later than startingDeadlineSeconds allows. */
  MissedSchedule: "MissedSchedule",
  /** Scheduling=False: concurrencyPolicy Forbid and a Job is still running. */
  ConcurrencyForbidden: "ConcurrencyForbidden",
} as const;

/** Decision actions (log and metric label values). */
export const Action = {
  Create: "create",
  Skip: "skip",
  /** An active Job left out because of concurrencyPolicy Replace (Metacontroller deletes it). */
  Replace: "replace",
  /** A finished Job left out because of a history limit. */
  Prune: "prune",
  /** Every Job left out during finalization. */
  Delete: "delete",
} as const;

/** Decision reasons for `skip` (bounded vocabulary; condition reasons plus these). */
export const SkipReason = {
  TooLate: "TooLate",
  Forbid: "Forbid",
  AlreadyExists: "AlreadyExists",
  BeforeScheduleChange: "BeforeScheduleChange",
} as const;
