/**
 * Names, labels and the build hash of a CIBuild's children (docs/cibuild.md, "Build hash and
 * names"). Changing any of them renames every child, so existing Jobs would be rebuilt.
 *
 * @packageDocumentation
 */
import { boundedName, canonicalJson, sha256Hex } from "../../kube/names.ts";

/** Label on every child and on build Pods: the (bounded) CIBuild name. The customize hook selects Pods by it. */
export const LABEL_CIBUILD = "cicd.cicd.com/cibuild";
/** Label on build Jobs and their Pods: the build hash. */
export const LABEL_BUILD_HASH = "cicd.cicd.com/build-hash";
/** `app.kubernetes.io/managed-by` value on every child. */
export const MANAGED_BY = "cibuild-hook";
/** Deployment annotation: the Job of the deployed build. */
export const ANNOTATION_BUILD_JOB = "cicd.cicd.com/build-job";
/** Deployment (and, for mutable tags, pod-template) annotation: the hash of the deployed build. */
export const ANNOTATION_BUILD_HASH = "cicd.cicd.com/build-hash";
/** Label the Job controller puts on a Job's Pods (Kubernetes ≥ 1.27), and its legacy spelling. */
export const JOB_NAME_LABELS = ["batch.kubernetes.io/job-name", "job-name"] as const;

/** Top-level spec keys that never trigger a rebuild: they only shape the Deployment, retention or suspension. */
const NON_BUILD_KEYS = new Set(["deploy", "retention", "suspend"]);

/**
 * The build hash: the first 10 lowercase hex characters of SHA-256 over the canonical JSON of
 * `parent.spec` as received, without the top-level keys `deploy`, `retention` and `suspend`.
 * No defaulting happens first, so a hook upgrade that changes defaults never rebuilds.
 *
 * @param spec - `parent.spec` exactly as Metacontroller sent it (a non-object hashes as `{}`)
 * @returns e.g. `c50f2918c7` for the seed's go sample
 */
export function computeBuildHash(spec: unknown): string {
  const input: Record<string, unknown> = {};
  if (spec !== null && typeof spec === "object" && !Array.isArray(spec)) {
    for (const [key, value] of Object.entries(spec as Record<string, unknown>)) {
      if (!NON_BUILD_KEYS.has(key)) input[key] = value;
    }
  }
  return sha256Hex(canonicalJson(input)).slice(0, 10);
}

/** Every derived name of one CIBuild. */
export interface ChildNames {
  /** Value of the `cicd.cicd.com/cibuild` label: `boundedName(parent)`. */
  parentLabel: string;
  /** Selector label value `app`: `boundedName("app-" + parent)` (seed-compatible). */
  appLabel: string;
  /** `boundedName("deploy-" + parent)` (seed-compatible `deploy-<name>`). */
  deployment: string;
  /** `boundedName("svc-" + parent)`: starts with a letter, so a valid DNS-1035 Service name. */
  service: string;
}

/** The names that do not depend on the build hash. */
export function childNames(parentName: string): ChildNames {
  return {
    parentLabel: boundedName(parentName),
    appLabel: boundedName(`app-${parentName}`),
    deployment: boundedName(`deploy-${parentName}`),
    service: boundedName(`svc-${parentName}`),
  };
}

/** The build Job's name: `boundedName(parent, 52) + "-" + buildHash` (at most 63 characters). */
export function buildJobName(parentName: string, buildHash: string): string {
  return `${boundedName(parentName, 52)}-${buildHash}`;
}

/** The immutable per-build tag: `cibuild-<buildHash>`. */
export function immutableTag(buildHash: string): string {
  return `cibuild-${buildHash}`;
}
