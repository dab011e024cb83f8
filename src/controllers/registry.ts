/**
 * The parent kinds metahooks serves. Adding a kind = one folder under src/controllers with a
 * {@link defineKind} declaration, and one entry here.
 *
 * @packageDocumentation
 */
import type { Env } from "../config.ts";
import type { ConfiguredKind, Kind } from "./types.ts";
import { cronJobController } from "./cronjob/index.ts";
import { ciBuildController } from "./cibuild/index.ts";

/** Every kind, by route name. */
export const controllers: ReadonlyArray<Kind> = [cronJobController, ciBuildController];

/** Looks a kind up by its route name (`cronjob`, `cibuild`). */
export function findController(name: string, kinds: ReadonlyArray<Kind> = controllers): Kind | undefined {
  return kinds.find((c) => c.name === name);
}

/** A kind with its options resolved from the environment. */
export type ConfiguredController = ConfiguredKind;

/**
 * Resolves each kind's options from the environment (e.g. build images for CIBuild).
 * @param kinds - the kinds to serve (tests add fixture kinds)
 * @throws Error when a kind's options do not validate
 */
export function configureControllers(env: Env, kinds: ReadonlyArray<Kind> = controllers): ConfiguredController[] {
  return kinds.map((def) => ({ def, options: def.loadOptions(env) }));
}
