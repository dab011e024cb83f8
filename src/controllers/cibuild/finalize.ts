/**
 * The CIBuild finalize hook: no children are desired, so Metacontroller deletes the Jobs (with
 * their Pods: Background propagation), the Deployment and the Service, as the seed operator did
 * when its object was deleted;
 * `finalized` turns true once none of them is observed any more.
 *
 * @packageDocumentation
 */
import type { SyncRequest } from "../../metacontroller/contract.ts";
import type { HookResult } from "../types.ts";
import type { CIBuildOptions } from "./options.ts";
import type { CIBuildStatus } from "./schema.ts";
import { ConditionType, REASON_TERMINATING } from "./reasons.ts";
import { observedChildren } from "./observe.ts";
import { orderStatus, readPreviousStatus, replaceConditions } from "./status.ts";

/**
 * The finalize hook.
 * @param request - a finalize request (`finalizing: true`)
 * @param now - this call's clock
 * @param _options - unused (the signature is shared with sync)
 */
export function finalizeCIBuild(request: SyncRequest, now: Date, _options?: CIBuildOptions): HookResult {
  const observed = observedChildren(request);
  const remaining = [...observed.jobs, ...observed.deployments, ...observed.services];
  const finalized = remaining.length === 0;
  const previous = readPreviousStatus(request.parent.status);
  const generation = request.parent.metadata.generation;
  const message = finalized ? "all children are deleted" : `waiting for ${remaining.length} child object(s) to be deleted`;
  const status: CIBuildStatus = {
    ...previous,
    phase: "Terminating",
    message,
    conditions: replaceConditions(previous.conditions, [{ type: ConditionType.Ready, status: "False", reason: REASON_TERMINATING, message }], generation, now),
  };
  if (generation !== undefined) status.observedGeneration = generation;
  return {
    response: { status: orderStatus(status), children: [], finalized },
    decisions: remaining.map((c) => ({ action: "delete", object: c.metadata.name, reason: REASON_TERMINATING })),
  };
}
