/**
 * metahooks' public API: the hooks as pure functions over JSON, for platform teams that want to
 * unit-test their CronJob and CIBuild objects in their own test runner.
 *
 * @example
 * ```ts
 * import { runHook, findController } from "metahooks";
 * const cronjob = findController("cronjob")!;
 * const { response } = runHook(cronjob, "sync", requestJson, new Date("2026-01-05T12:00:30Z"), undefined);
 * assert.equal(response.children.length, 1);
 * ```
 *
 * @packageDocumentation
 */
export { runHook, formatDecisions, type HookName, type RunResult } from "./metacontroller/run-hook.ts";
export { controllers, findController, configureControllers } from "./controllers/registry.ts";
export type {
  Kind,
  KindDeclaration,
  ConfiguredKind,
  ChildResource,
  ParentResource,
  KindOptions,
  KindSchema,
  ExplainInput,
  Decision,
  HookResult,
  SyncHook,
  CustomizeHook,
} from "./controllers/types.ts";
export { defineKind, groupKey } from "./controllers/define-kind.ts";
export { writeDefaults, type SpecDefaults } from "./controllers/defaults.ts";
export {
  SyncRequestSchema,
  SyncResponseSchema,
  CustomizeRequestSchema,
  CustomizeResponseSchema,
  listChildren,
  type SyncRequest,
  type SyncResponse,
  type KubeObject,
  type CustomizeRequest,
  type CustomizeResponse,
} from "./metacontroller/contract.ts";
export { HookError, type ErrorBody } from "./errors.ts";
export { createApp, type AppOptions } from "./http/app.ts";

/**
 * The CronJob controller's pure functions and types, for testing CronJob objects directly.
 *
 * @example
 * ```ts
 * import { syncCronJob, SyncRequestSchema } from "metahooks";
 * const { response, decisions } = syncCronJob(SyncRequestSchema.parse(body), new Date("2026-01-05T12:00:30Z"));
 * ```
 */
export {
  syncCronJob,
  finalizeCronJob,
  validateCronJob,
  defaultCronJobSpec,
  parseSchedule,
  checkScheduleSyntax,
  checkTimeZone,
  cronJobController,
  ConditionType as CronJobConditionType,
  Reason as CronJobReason,
  CronJobSpecSchema,
  CronJobStatusSchema,
  type CronJobSpec,
  type CronJobStatus,
  type JobReference,
  type ScheduleRecord,
  type Schedule,
} from "./controllers/cronjob/index.ts";
export type { SpecProblem, AdmissionSupport } from "./controllers/types.ts";

/**
 * The CIBuild controller's pure functions and types, for testing CIBuild objects directly.
 *
 * @example
 * ```ts
 * import { syncCIBuild, SyncRequestSchema, DEFAULT_CIBUILD_OPTIONS } from "metahooks";
 * const { response } = syncCIBuild(SyncRequestSchema.parse(body), new Date("2026-03-02T10:00:05Z"), DEFAULT_CIBUILD_OPTIONS);
 * ```
 */
export {
  ciBuildController,
  ciBuildAdmission,
  syncCIBuild,
  finalizeCIBuild,
  customizeCIBuild,
  checkSpec as checkCIBuildSpec,
  validateSpec as validateCIBuildSpec,
  defaultSpec as defaultCIBuildSpec,
  computeBuildHash,
  buildJobName,
  loadCIBuildOptions,
  DEFAULT_CIBUILD_OPTIONS,
  CIBuildConditionType,
  CIBuildSpecReason,
  CIBuildBuildReason,
  CIBuildDeployReason,
  CIBuildSpecSchema,
  CIBuildStatusSchema,
  type CIBuildOptions,
  type CIBuildSpec,
  type CIBuildStatus,
  type BuildRecord,
  type SuccessfulBuild,
  type NormalizedSpec as NormalizedCIBuildSpec,
} from "./controllers/cibuild/index.ts";

/**
 * What a CronJob will do over a time window (the engine of `metahooks simulate`), and the slots of
 * a schedule with their daylight-saving marks (`metahooks next`).
 *
 * @example
 * ```ts
 * import { simulateCronJob } from "metahooks";
 * const { summary, events } = await simulateCronJob({ cronJob, from: new Date("2026-03-28T00:00:00Z"), to: new Date("2026-04-01T00:00:00Z") });
 * ```
 */
export {
  simulateCronJob,
  type SimulateOptions,
  type SimulationResult,
  type SimulationSummary,
  type TimelineEvent,
  type Outage,
} from "./simulate/cronjob.ts";
export { listSlots, zonedSchedule, markSlot, type ListedSlot, type DstMark, type ZonedSchedule } from "./simulate/slots.ts";
