/**
 * The shared folder beside the repository (`../shared`, resolved from the repository root, never
 * an absolute path): in CI the repository is a fresh clone with `shared/` next to it.
 */
import { fileURLToPath } from "node:url";
import { join, resolve } from "node:path";

/** The repository root (two levels above this file). */
export const REPO_ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));

/** A path inside `../shared`, e.g. `sharedPath("seed-samples", "cronjob", "batch_v1_cronjob.yaml")`. */
export function sharedPath(...parts: string[]): string {
  return join(REPO_ROOT, "..", "shared", ...parts);
}
