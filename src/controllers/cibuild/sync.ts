/**
 * The CIBuild sync hook (docs/cibuild.md, "Sync, step by step"), in three steps: observe the
 * request → plan (validate the spec; triggers choose the build; fold the current build; choose
 * the deployed image; retention; the phase) → render the children and the whole status.
 * Stateless and deterministic.
 *
 * @packageDocumentation
 */
import type { SyncRequest } from "../../metacontroller/contract.ts";
import type { HookResult } from "../types.ts";
import type { CIBuildOptions } from "./options.ts";
import { observeCIBuild } from "./observe.ts";
import { planSync } from "./plan.ts";
import { renderSync } from "./render.ts";

/**
 * The sync hook.
 *
 * @param request - a parsed sync request (finalizing is handled by the finalize hook)
 * @param now - this call's clock: condition transition times, poll slots and the digest grace
 * @param options - the build images
 * @returns the complete desired children (every observed child kept on an invalid spec), the
 *   whole status, and `resyncAfterSeconds` while polling or waiting for a digest
 */
export function syncCIBuild(request: SyncRequest, now: Date, options: CIBuildOptions): HookResult {
  const observed = observeCIBuild(request);
  return renderSync(observed, planSync(observed, now, options), now, options);
}
