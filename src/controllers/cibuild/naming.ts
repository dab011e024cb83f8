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

/**
 * CIBuild annotation the push receiver writes: the verified pushed commit as JSON
 * (`{sha, ref, repository, defaultBranch, seenAt, provider, delivery}`). An annotation, not a
 * status field: Metacontroller replaces status whole with the sync hook's answer, so a field the
 * receiver wrote there between a hook call and Metacontroller's status write would be lost.
 */
export const ANNOTATION_PUSHED_COMMIT = "cicd.cicd.com/pushed-commit";
/** Label on poll probe Jobs and their Pods: the probe key (what was probed: URL, revision, credentials). */
export const LABEL_PROBE = "cicd.cicd.com/probe";
/** Label on poll probe Jobs: the start of their poll slot, in Unix seconds. */
export const LABEL_PROBE_SLOT = "cicd.cicd.com/probe-slot";
/** Build Job annotation (only with triggers): the commit it was asked to build. */
export const ANNOTATION_COMMIT = "cicd.cicd.com/commit";

/**
 * Top-level spec keys that never trigger a rebuild: they change how the built image is run
 * (`deploy`), how many old builds are kept (`retention`) or whether to build at all (`suspend`),
 * never what the image contains. `triggers` says *when* to build, not what: adding or tuning it
 * never rebuilds (its commits enter the hash instead).
 */
const NON_BUILD_KEYS = new Set(["deploy", "retention", "suspend", "triggers"]);

/**
 * The build hash: the first 10 lowercase hex characters of SHA-256 over the canonical JSON of
 * `parent.spec` as received, without the top-level keys `deploy`, `retention` and `suspend`.
 * No defaulting happens first, so a hook upgrade that changes defaults never rebuilds.
 *
 * With `commit` (a CIBuild following its branch builds that exact commit) the hash is taken over
 * `{"commit": <sha>, "spec": <the same spec input>}` instead, so a new commit means a new Job and
 * the same commit means the same Job.
 *
 * @param spec - `parent.spec` exactly as Metacontroller sent it (a non-object hashes as `{}`)
 * @param commit - the pinned commit SHA, if any
 * @returns e.g. `c50f2918c7` for the seed's go sample
 */
export function computeBuildHash(spec: unknown, commit?: string): string {
  const input: Record<string, unknown> = {};
  if (spec !== null && typeof spec === "object" && !Array.isArray(spec)) {
    for (const [key, value] of Object.entries(spec as Record<string, unknown>)) {
      if (!NON_BUILD_KEYS.has(key)) input[key] = value;
    }
  }
  if (commit !== undefined) return sha256Hex(canonicalJson({ commit, spec: input })).slice(0, 10);
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

/**
 * A poll probe Job's name: `boundedName(parent, 52) + "-p" + 9 hex` (at most 63 characters). The
 * `p` keeps it apart from build Jobs, whose suffix is 10 hex characters.
 */
export function probeJobName(parentName: string, probeKey: string, slotStart: number): string {
  return `${boundedName(parentName, 52)}-p${sha256Hex(`${probeKey}/${slotStart}`).slice(0, 9)}`;
}

/** The immutable per-build tag: `cibuild-<buildHash>`. */
export function immutableTag(buildHash: string): string {
  return `cibuild-${buildHash}`;
}
