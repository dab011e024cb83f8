/**
 * The controller kinds metahooks serves. Adding a kind = one entry here.
 *
 * @packageDocumentation
 */
import type { Env } from "../config.ts";
import type { ControllerDefinition } from "./types.ts";
import { cronJobController } from "./cronjob/index.ts";
import { ciBuildController } from "./cibuild/index.ts";

/** Every controller kind, by route name. */
export const controllers: ReadonlyArray<ControllerDefinition<any>> = [cronJobController, ciBuildController];

/** Looks a controller kind up by its route name (`cronjob`, `cibuild`). */
export function findController(name: string): ControllerDefinition<any> | undefined {
  return controllers.find((c) => c.name === name);
}

/** A controller with its options resolved from the environment. */
export interface ConfiguredController {
  def: ControllerDefinition<any>;
  options: unknown;
}

/**
 * Resolves each kind's options from the environment (e.g. build images for CIBuild).
 * @throws Error when a kind's options do not validate
 */
export function configureControllers(env: Env): ConfiguredController[] {
  return controllers.map((def) => ({ def, options: def.loadOptions ? def.loadOptions(env) : undefined }));
}
