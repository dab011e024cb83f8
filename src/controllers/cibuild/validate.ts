/**
 * The one entry to CIBuild spec checking, for the sync hook: the rules (rules.ts) and, when there
 * are no problems, the normalised spec (normalize.ts). Git URLs and revisions are in
 * git-source.ts.
 *
 * @packageDocumentation
 */
import type { SpecProblem } from "../types.ts";
import { CIBuildSpecSchema } from "./schema.ts";
import { validateSpec } from "./rules.ts";
import { normalizeSpec, type NormalizedSpec } from "./normalize.ts";

export { classifyGitUrl, type GitTransport } from "./git-source.ts";
export { LEGACY_TWINS, MAX_TIMEOUT_SECONDS, parseDurationSeconds, validateSpec, validateSpecUpdate } from "./rules.ts";
export { DEFAULT_TIMEOUT_SECONDS, defaultSpec, normalizeSpec, type NormalizedSpec } from "./normalize.ts";

/** Result of {@link checkSpec}. */
export type SpecCheck = { valid: true; spec: NormalizedSpec } | { valid: false; problems: SpecProblem[] };

/**
 * Validates and normalizes a spec in one go (what the sync hook calls).
 * @param raw - `parent.spec` as received
 */
export function checkSpec(raw: unknown): SpecCheck {
  const problems = validateSpec(raw);
  if (problems.length > 0) return { valid: false, problems };
  return { valid: true, spec: normalizeSpec(CIBuildSpecSchema.parse(raw ?? {})) };
}
