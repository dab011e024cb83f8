/**
 * Spec validation and defaulting, shared by the sync hook and admission webhooks.
 *
 * @packageDocumentation
 */
import type { KubeObject } from "../../metacontroller/contract.ts";
import type { SpecProblem } from "../types.ts";
import { writeDefaults } from "../defaults.ts";
import { copyOwn } from "../../kube/copy-own.ts";
import { DEFAULTS, MAX_CRONJOB_NAME_LENGTH, Reason } from "./constants.ts";
import { CronJobSpecSchema, type CronJobSpec } from "./schema.ts";
import { parseSchedule, type Schedule } from "./schedule.ts";
import { checkTimeZone } from "./time-zone.ts";
import { nestingProblem } from "../../kube/nesting.ts";
import { qualifiedNameProblem } from "../../kube/qualified-name.ts";

/** A spec that passed every check, with its parsed schedule and effective zone. */
export interface ValidCronJob {
  spec: CronJobSpec;
  schedule: Schedule;
  /** `spec.timeZone`, or UTC when unset. */
  zone: string;
}

/**
 * Result of {@link readCronJobSpec}: either the valid spec (and no problems), or the problems in
 * check order (the first is the condition's reason).
 */
export type ReadSpec = { problems: []; valid: ValidCronJob } | { problems: [SpecProblem, ...SpecProblem[]]; valid?: undefined };

function fieldOf(path: ReadonlyArray<PropertyKey>): string {
  return ["spec", ...path.map(String)].join(".");
}

/**
 * Checks a CronJob spec, in this order: `schedule` (type, `TZ=` prefix, grammar), `timeZone`
 * (upstream name rules, then whether the zone exists), then every other field as the zod schema
 * says (negative numbers, the concurrencyPolicy enum, a missing jobTemplate…).
 *
 * @param spec - `parent.spec` as received (any JSON value)
 * @returns the problems (empty when valid) and the parsed spec when valid
 */
export function readCronJobSpec(spec: unknown): ReadSpec {
  const parsed = CronJobSpecSchema.safeParse(spec);
  const issues = parsed.success ? [] : parsed.error.issues;
  const problems: SpecProblem[] = [];
  const raw = (spec && typeof spec === "object" ? spec : {}) as Record<string, unknown>;

  const scheduleIssue = issues.find((i) => i.path[0] === "schedule");
  const zoneIssue = issues.find((i) => i.path[0] === "timeZone");
  const zoneText = typeof raw.timeZone === "string" ? raw.timeZone : undefined;
  const zoneMessage = zoneIssue ? zoneIssue.message : zoneText !== undefined ? checkTimeZone(zoneText) : undefined;
  const zone = zoneMessage === undefined && zoneText !== undefined ? zoneText : DEFAULTS.timeZone;

  let schedule: Schedule | undefined;
  if (scheduleIssue) {
    problems.push({ reason: Reason.InvalidSchedule, field: "spec.schedule", message: scheduleIssue.message });
  } else if (typeof raw.schedule === "string") {
    const result = parseSchedule(raw.schedule, zone);
    if (result.ok) schedule = result.schedule;
    else problems.push({ reason: Reason.InvalidSchedule, field: "spec.schedule", message: result.message });
  }
  if (zoneMessage !== undefined) {
    problems.push({ reason: Reason.InvalidTimeZone, field: "spec.timeZone", message: zoneMessage });
  }
  for (const issue of issues) {
    if (issue === scheduleIssue || issue === zoneIssue) continue;
    if (issue.path[0] === "schedule" || issue.path[0] === "timeZone") continue;
    const reason = issue.path[0] === "jobTemplate" ? Reason.InvalidJobTemplate : Reason.InvalidSpec;
    problems.push({ reason, field: issue.path.length ? fieldOf(issue.path) : "spec", message: issue.message });
  }
  // The template's label and annotation keys become the Job's: a key the API rejects would fail
  // every Job's creation, and one such as `__proto__` the schema's record parse drops without a
  // word. So each key as received is checked here, and an odd one makes the template invalid
  // instead of being changed on the way to the Job.
  const templateMeta = (raw.jobTemplate as { metadata?: Record<string, unknown> } | undefined)?.metadata;
  for (const field of ["labels", "annotations"] as const) {
    const map = templateMeta && typeof templateMeta === "object" ? templateMeta[field] : undefined;
    if (!map || typeof map !== "object" || Array.isArray(map)) continue;
    for (const key of Object.keys(map)) {
      const problem = qualifiedNameProblem(key);
      if (!problem) continue;
      // One per map keeps the answer small whatever the number of keys.
      problems.push({ reason: Reason.InvalidJobTemplate, field: `spec.jobTemplate.metadata.${field}`, message: `key ${JSON.stringify(key)} ${problem}` });
      break;
    }
  }
  // As upstream ValidateCronJobSpec: the Job controller generates the selector of every Job, so a
  // template selector (or manualSelector) makes the API reject each Job, and the slot would be lost.
  const jobSpec = (raw.jobTemplate as { spec?: Record<string, unknown> } | undefined)?.spec;
  if (jobSpec && typeof jobSpec === "object") {
    if (jobSpec.selector !== undefined) {
      problems.push({ reason: Reason.InvalidJobTemplate, field: "spec.jobTemplate.spec.selector", message: "must not be set: the selector of each Job is generated" });
    }
    if (jobSpec.manualSelector === true) {
      problems.push({ reason: Reason.InvalidJobTemplate, field: "spec.jobTemplate.spec.manualSelector", message: "true is not supported: the selector of each Job is generated" });
    }
  }
  const [first, ...rest] = problems;
  if (first) return { problems: [first, ...rest] };
  // No problem means zod accepted the spec and the schedule parsed; anything else is a bug here.
  if (!parsed.success || !schedule) throw new Error("readCronJobSpec: a spec without problems did not parse");
  return { problems: [], valid: { spec: parsed.data, schedule, zone } };
}

/** A DNS-1123 subdomain, length aside (the length has its own rule and reason). */
const DNS_1123_SUBDOMAIN_SHAPE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Admission validation: nesting (the whole object, {@link nestingProblem}), then the name rules
 * on create (a DNS-1123 subdomain, `InvalidName`; at most 52 characters, `NameTooLong`, as upstream
 * `ValidateCronJobCreate`; updates skip it so legacy objects stay editable), then
 * {@link readCronJobSpec}'s checks.
 *
 * @param parent - the CronJob being created or updated
 * @param oldParent - the stored CronJob on update
 */
export function validateCronJob(parent: KubeObject, oldParent?: KubeObject): SpecProblem[] {
  // Measured first: past the bound nothing else may walk the object.
  const tooDeep = nestingProblem(parent);
  if (tooDeep) return [tooDeep];
  const problems: SpecProblem[] = [];
  if (!oldParent && !DNS_1123_SUBDOMAIN_SHAPE.test(parent.metadata.name)) {
    problems.push({
      reason: Reason.InvalidName,
      field: "metadata.name",
      message: "must be a DNS-1123 subdomain (lowercase letters, digits, '-' and '.'): it starts every Job's name",
    });
  } else if (!oldParent && parent.metadata.name.length > MAX_CRONJOB_NAME_LENGTH) {
    problems.push({
      reason: Reason.NameTooLong,
      field: "metadata.name",
      message: `must be no more than ${MAX_CRONJOB_NAME_LENGTH} characters (Job names add an 11-character suffix)`,
    });
  }
  problems.push(...readCronJobSpec((parent as { spec?: unknown }).spec).problems);
  return problems;
}

/**
 * The spec with every default the hook assumes written out where unset: concurrencyPolicy
 * Allow, suspend false, successfulJobsHistoryLimit 3, failedJobsHistoryLimit 1, timeZone UTC.
 * Never changes a value that is set; anything that is not an object is returned unchanged.
 */
export function defaultCronJobSpec(spec: unknown): unknown {
  if (!spec || typeof spec !== "object" || Array.isArray(spec)) return spec;
  // Copied key by key: the defaults add keys, and a spread copy that gains keys costs V8 a new
  // hidden class every time (see copyOwn).
  const out = copyOwn(spec as Record<string, unknown>);
  writeDefaults(out, DEFAULTS);
  return out;
}
