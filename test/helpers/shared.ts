/**
 * The shared folder beside the repository: `../shared` (resolved from the repository root, never
 * an absolute path), or the folder named by `METAHOOKS_SHARED`. It holds data other projects
 * publish (Metacontroller's CRDs in `upstream/`) and the seed operators' samples; the tests that
 * validate against them read it. In CI the repository is a fresh clone with `shared/` next to it.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join, resolve } from "node:path";

/** The repository root (two levels above this file). */
export const REPO_ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));

/** Where the shared folder is looked for. */
export const SHARED_DIR = process.env.METAHOOKS_SHARED ? resolve(process.env.METAHOOKS_SHARED) : join(REPO_ROOT, "..", "shared");

/**
 * A path inside the shared folder, e.g. `sharedPath("seed-samples", "cronjob", "batch_v1_cronjob.yaml")`.
 * @throws Error naming the missing path and how to provide it (a test that needs it fails with
 *   that message instead of a bare ENOENT)
 */
export function sharedPath(...parts: string[]): string {
  const path = join(SHARED_DIR, ...parts);
  if (!existsSync(path)) {
    throw new Error(
      `${path} is missing: these tests validate against data other projects publish (Metacontroller's CRDs) and the seed operators' samples, ` +
        `kept in a shared/ folder beside the clone (../shared). Put that folder there, or set METAHOOKS_SHARED to where it is.`,
    );
  }
  return path;
}
