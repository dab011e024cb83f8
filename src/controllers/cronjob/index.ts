/**
 * The CronJob controller (`batch.tutorial.kubebuilder.io/v1`, kind `CronJob`): batch/v1 Jobs on
 * a cron schedule, served as Metacontroller CompositeController hooks.
 *
 * @packageDocumentation
 */
import type { ControllerDefinition } from "../types.ts";
import { API_VERSION, KIND } from "./constants.ts";
import { finalizeCronJob } from "./finalize.ts";
import { cronJobCrd } from "./schema.ts";
import { syncCronJob } from "./sync.ts";
import { defaultCronJobSpec, validateCronJob } from "./validate.ts";

/** Hook timeout in the CompositeController (our hooks answer in milliseconds). */
export const HOOK_TIMEOUT = "10s";

/** The CompositeController for CronJobs. */
export function cronJobCompositeController(base: string): Record<string, unknown> {
  const hook = (path: string) => ({ webhook: { url: `${base}${path}`, timeout: HOOK_TIMEOUT }, version: "v1" });
  return {
    apiVersion: "metacontroller.k8s.io/v1alpha1",
    kind: "CompositeController",
    metadata: { name: "cronjob-controller" },
    spec: {
      generateSelector: true,
      parentResource: { apiVersion: API_VERSION, resource: "cronjobs" },
      // No updateStrategy (OnDelete): a Job's template is immutable, and a kept Job must never be
      // recreated or patched because our view of it differs.
      childResources: [{ apiVersion: "batch/v1", resource: "jobs" }],
      hooks: { sync: hook("/sync/cronjob"), finalize: hook("/finalize/cronjob") },
    },
  };
}

/** The CronJob controller kind. */
export const cronJobController: ControllerDefinition<undefined> = {
  name: "cronjob",
  apiVersion: API_VERSION,
  kind: KIND,
  sync: (request, now) => syncCronJob(request, now),
  finalize: (request, now) => finalizeCronJob(request, now),
  admission: { validate: validateCronJob, defaultSpec: defaultCronJobSpec },
  crd: cronJobCrd,
  compositeController: cronJobCompositeController,
};

export { syncCronJob } from "./sync.ts";
export { finalizeCronJob } from "./finalize.ts";
export { validateCronJob, defaultCronJobSpec, readCronJobSpec } from "./validate.ts";
export { parseSchedule, checkScheduleSyntax, type Schedule } from "./schedule.ts";
export { checkTimeZone } from "./time-zone.ts";
export * from "./constants.ts";
export * from "./schema.ts";
