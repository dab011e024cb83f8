/**
 * The CronJob finalize hook: observe the request → render the deletion answer (there is nothing
 * to decide: every Job goes).
 *
 * @packageDocumentation
 */
import type { SyncRequest } from "../../metacontroller/contract.ts";
import type { HookResult } from "../types.ts";
import { observeCronJob } from "./observe.ts";
import { renderFinalize } from "./render.ts";

/**
 * The CronJob finalize hook: no children are desired, `finalized` once no Job is observed (see
 * {@link renderFinalize}).
 *
 * @param request - a Metacontroller finalize request for a CronJob parent
 * @param now - the current time
 */
export function finalizeCronJob(request: SyncRequest, now: Date): HookResult {
  return renderFinalize(observeCronJob(request, now), now);
}
