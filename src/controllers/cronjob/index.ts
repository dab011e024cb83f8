/**
 * The CronJob kind (`batch.tutorial.kubebuilder.io/v1`, kind `CronJob`): batch/v1 Jobs on a cron
 * schedule, served as Metacontroller CompositeController hooks.
 *
 * @packageDocumentation
 */
import { defineKind } from "../define-kind.ts";
import { DEFAULTS, JOB_CHILD, PARENT } from "./constants.ts";
import { explainCronJob } from "./explain.ts";
import { finalizeCronJob } from "./finalize.ts";
import { CRONJOB_SCHEMA } from "./schema.ts";
import { syncCronJob } from "./sync.ts";
import { defaultCronJobSpec, validateCronJob } from "./validate.ts";

/** The CronJob kind: no options, Jobs as its only children. */
export const cronJobController = defineKind<undefined>({
  name: "cronjob",
  parent: PARENT,
  children: [JOB_CHILD],
  schema: CRONJOB_SCHEMA,
  defaults: DEFAULTS,
  hooks: {
    sync: (request, now) => syncCronJob(request, now),
    finalize: (request, now) => finalizeCronJob(request, now),
  },
  admission: { validate: validateCronJob, defaultSpec: defaultCronJobSpec },
  explain: explainCronJob,
});

export { syncCronJob } from "./sync.ts";
export { finalizeCronJob } from "./finalize.ts";
export { validateCronJob, defaultCronJobSpec, readCronJobSpec } from "./validate.ts";
export { parseSchedule, checkScheduleSyntax, type Schedule } from "./schedule.ts";
export { checkTimeZone } from "./time-zone.ts";
export * from "./constants.ts";
export * from "./schema.ts";
