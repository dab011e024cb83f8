/**
 * The CronJob sync hook, in three steps: observe the request → plan (docs/cronjob.md) → render
 * the answer.
 *
 * @packageDocumentation
 */
import type { SyncRequest } from "../../metacontroller/contract.ts";
import type { HookResult } from "../types.ts";
import { observeCronJob } from "./observe.ts";
import { planSync } from "./plan.ts";
import { renderSync } from "./render.ts";

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
  const observed = observeCronJob(request, now);
  return renderSync(observed, planSync(observed, now), now);
}
