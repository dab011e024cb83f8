/**
 * CEL `x-kubernetes-validations` for the CronJob spec: the rules of the hook's validation that
 * CEL can express, so clusters without the admission webhook still reject the simplest mistakes
 * at apply time. The hook keeps checking everything (it never trusts the schema), and every rule
 * here must be no stricter than the hook: test/crd/cel-rules.test.ts evaluates each rule on a
 * passing and a failing example and checks the kind's own validation agrees.
 *
 * `self` is `spec`. Rules avoid list iteration and use only standard CEL functions, so their
 * estimated cost stays far below the apiserver's per-rule limit. Sources: upstream
 * `pkg/apis/batch/validation/validation.go` (validateCronJobSpec, validateTimeZone).
 *
 * @packageDocumentation
 */
import type { CelRule } from "../../crd/build-crd.ts";

/** The CronJob spec rules. */
export const cronJobCelRules: CelRule[] = [
  {
    rule: "!has(self.startingDeadlineSeconds) || self.startingDeadlineSeconds >= 0",
    message: "spec.startingDeadlineSeconds must be >= 0",
    fieldPath: ".startingDeadlineSeconds",
  },
  {
    rule: "!has(self.successfulJobsHistoryLimit) || self.successfulJobsHistoryLimit >= 0",
    message: "spec.successfulJobsHistoryLimit must be >= 0",
    fieldPath: ".successfulJobsHistoryLimit",
  },
  {
    rule: "!has(self.failedJobsHistoryLimit) || self.failedJobsHistoryLimit >= 0",
    message: "spec.failedJobsHistoryLimit must be >= 0",
    fieldPath: ".failedJobsHistoryLimit",
  },
  {
    // Upstream rejects TZ=/CRON_TZ= prefixes on create since 1.29 ("use timeZone field instead").
    rule: "!self.schedule.matches('^\\\\s*(CRON_)?TZ=')",
    message: "spec.schedule must not start with TZ= or CRON_TZ=; set spec.timeZone instead",
    fieldPath: ".schedule",
  },
  {
    // validateTimeZone: not empty, not Local (any case), `/`-separated parts of [A-Za-z0-9._+-]{1,14}
    // that are not `.` or `..` and do not start with `-`. Whether the zone exists is the hook's check.
    rule:
      "!has(self.timeZone) || (self.timeZone.matches('^[A-Za-z0-9._+][A-Za-z0-9._+-]{0,13}(/[A-Za-z0-9._+][A-Za-z0-9._+-]{0,13})*$') && !self.timeZone.matches('(^|/)[.]{1,2}(/|$)') && !self.timeZone.matches('^[Ll][Oo][Cc][Aa][Ll]$'))",
    message: "spec.timeZone must be an IANA time zone name such as Europe/Berlin (not empty, not Local)",
    fieldPath: ".timeZone",
  },
];
