/**
 * The CronJob CRD (`batch.tutorial.kubebuilder.io/v1`): one zod schema for validation, types and
 * the generated openAPIV3Schema.
 *
 * @packageDocumentation
 */
import { z } from "zod";
import type { KindSchema } from "../types.ts";
import { ConditionSchema } from "../../kube/conditions.ts";
import { cronJobCelRules } from "./cel-rules.ts";
import { MAX_ACTIVE_REFS } from "./constants.ts";

const StringMap = z.record(z.string(), z.string());

/** `spec.jobTemplate`: a batch/v1 JobTemplateSpec; the Job spec is kept as the user wrote it. */
const JobTemplateSchema = z
  .looseObject({
    metadata: z
      .looseObject({
        labels: StringMap.optional().describe("Labels copied to every Job."),
        annotations: StringMap.optional().describe("Annotations copied to every Job."),
      })
      .optional(),
    // Only what the API server would always reject is checked here, so an impossible template is
    // reported up front instead of moving lastScheduleTime past a Job that can never be created.
    spec: z
      .looseObject({
        template: z
          .looseObject({
            spec: z
              .looseObject({
                containers: z
                  .array(
                    z.looseObject({
                      name: z.string().min(1).describe("Container name."),
                      image: z.string().min(1).describe("Container image."),
                    }),
                  )
                  .min(1)
                  .describe("At least one container."),
                restartPolicy: z
                  .enum(["OnFailure", "Never"])
                  .describe("A Job's Pods must use OnFailure or Never (the Pod default Always is rejected)."),
              })
              .describe("The Pod spec of every Job."),
          })
          .describe("The Pod template of every Job."),
      })
      .describe("A batch/v1 JobSpec, copied to every Job unchanged."),
  })
  .describe("Template of the Jobs this CronJob creates (batch/v1 JobTemplateSpec).");

/** `spec` of a CronJob: the kubebuilder tutorial's fields plus batch/v1's `timeZone`. */
export const CronJobSpecSchema = z.object({
  schedule: z
    .string()
    .min(1)
    .describe("Cron schedule: 5 fields, names, ?, @hourly…@yearly, @every <duration>; day-of-week 0-6."),
  timeZone: z
    .string()
    .min(1)
    .optional()
    .describe("IANA time zone of the schedule, e.g. Europe/Berlin (never the hook's local zone)."),
  startingDeadlineSeconds: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("Seconds after a slot within which its Job may still start; later slots are skipped."),
  concurrencyPolicy: z
    .enum(["Allow", "Forbid", "Replace"])
    .optional()
    .describe("Allow, Forbid (skip while a Job runs) or Replace (delete running Jobs, then start)."),
  suspend: z.boolean().optional().describe("Stop creating Jobs; running Jobs are not touched."),
  jobTemplate: JobTemplateSchema,
  successfulJobsHistoryLimit: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("Succeeded Jobs to keep."),
  failedJobsHistoryLimit: z.number().int().min(0).optional().describe("Failed Jobs to keep."),
});

/** A CronJob spec as the user wrote it (fields optional where defaults apply). */
export type CronJobSpec = z.infer<typeof CronJobSpecSchema>;

/** A reference to a Job in `status.active`. */
const JobReferenceSchema = z.strictObject({
  apiVersion: z.string(),
  kind: z.string(),
  name: z.string(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
});

/** A reference to a Job in `status.active`. */
export type JobReference = z.infer<typeof JobReferenceSchema>;

/**
 * `status.schedule`: the schedule and zone in force and since when the hook has seen them.
 * Slots of a changed schedule before `since` are not run (docs/cronjob.md, "Schedule changes").
 */
export const ScheduleRecordSchema = z.strictObject({
  schedule: z.string(),
  timeZone: z.string(),
  since: z.iso.datetime({ offset: true }),
});

/** The schedule record in `status.schedule`. */
export type ScheduleRecord = z.infer<typeof ScheduleRecordSchema>;

/** `status` of a CronJob as the hook writes it. */
export const CronJobStatusSchema = z.object({
  active: z
    .array(JobReferenceSchema)
    .min(1)
    .max(MAX_ACTIVE_REFS)
    .optional()
    .describe("Running Jobs, oldest scheduled first (at most 10; omitted when none)."),
  lastScheduleTime: z.iso.datetime({ offset: true }).optional().describe("The latest slot a Job was created for."),
  lastSuccessfulTime: z.iso.datetime({ offset: true }).optional().describe("Completion time of the latest succeeded Job."),
  conditions: z.array(ConditionSchema).optional(),
  schedule: ScheduleRecordSchema.optional(),
  observedGeneration: z.number().int().optional(),
});

/** A CronJob status. */
export type CronJobStatus = z.infer<typeof CronJobStatusSchema>;

/** What the generated CRD says besides the schemas. */
export const CRONJOB_SCHEMA: KindSchema = {
  spec: CronJobSpecSchema,
  status: CronJobStatusSchema,
  celRules: cronJobCelRules,
  description: "CronJob runs batch/v1 Jobs on a cron schedule (kubebuilder tutorial CRD, served by metahooks).",
  printerColumns: [
    { name: "Schedule", type: "string", jsonPath: ".spec.schedule" },
    { name: "Suspend", type: "boolean", jsonPath: ".spec.suspend" },
    { name: "Active", type: "string", jsonPath: ".status.active[*].name", description: "running Jobs" },
    { name: "Last Schedule", type: "date", jsonPath: ".status.lastScheduleTime" },
    { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
  ],
};
