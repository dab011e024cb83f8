/**
 * Service configuration of the CIBuild hooks: the images of the build Pod's containers and the
 * size limit of its scratch volumes.
 * Images are configuration, not code: read once from the environment at start-up and passed to
 * the pure hooks.
 *
 * @packageDocumentation
 */
import type { KindOptions } from "../types.ts";

/** Images used in build Jobs. */
export interface CIBuildOptions {
  /** Init container `git-sync` (git-sync v4). Env `GIT_SYNC_IMAGE`. */
  gitSyncImage: string;
  /** Init container `prepare` and, after kaniko, container `digest` (any image with a POSIX `sh`, `readlink`, `realpath`, `basename`, `cp`, `cat`, `grep`). Env `PREPARE_IMAGE`. */
  prepareImage: string;
  /** Container `build` for `build.strategy: kaniko` (the executor image). Env `KANIKO_IMAGE`. */
  kanikoImage: string;
  /** Container `build` for `build.strategy: buildkit` (a `-rootless` image). Env `BUILDKIT_IMAGE`. */
  buildkitImage: string;
  /**
   * `sizeLimit` of the build Pod's emptyDir volumes (`workspace`, and `buildkitd` for BuildKit),
   * a Kubernetes quantity such as `10Gi`. Unset (the default): no limit, so a build may fill the
   * node's disk; the kubelet evicts a Pod whose emptyDir grows past its limit. Env
   * `BUILD_WORKSPACE_SIZE_LIMIT`.
   */
  workspaceSizeLimit?: string;
}

/**
 * Pinned default images. Tags, not digests, so `--help` and Pod specs show versions; to pin
 * digests, set the variables to the digests of the images you mirrored.
 */
export const DEFAULT_CIBUILD_OPTIONS: Readonly<CIBuildOptions> = Object.freeze({
  gitSyncImage: "registry.k8s.io/git-sync/git-sync:v4.7.1",
  prepareImage: "docker.io/library/busybox:1.37.0",
  // The maintained community fork of the archived GoogleContainerTools/kaniko (same executor flags).
  kanikoImage: "ghcr.io/osscontainertools/kaniko:v1.28.3",
  buildkitImage: "docker.io/moby/buildkit:v0.32.2-rootless",
});

/** Environment variable and help text of each option. */
const VARIABLES: ReadonlyArray<{ key: Exclude<keyof CIBuildOptions, "workspaceSizeLimit">; name: string; help: string }> = [
  { key: "gitSyncImage", name: "GIT_SYNC_IMAGE", help: "init container git-sync (git-sync v4, one-shot clone)" },
  { key: "prepareImage", name: "PREPARE_IMAGE", help: "init container prepare and the digest container (needs sh, readlink, realpath, basename, cp, cat, grep)" },
  { key: "kanikoImage", name: "KANIKO_IMAGE", help: "build container for build.strategy kaniko (the executor)" },
  { key: "buildkitImage", name: "BUILDKIT_IMAGE", help: "build container for build.strategy buildkit (a -rootless image)" },
];

const SIZE_LIMIT_VARIABLE = "BUILD_WORKSPACE_SIZE_LIMIT";
/** A positive quantity in bytes: digits with an optional fraction and a binary or decimal suffix. */
const SIZE_QUANTITY = /^(?:\d+(?:\.\d+)?|\.\d+)(?:[kMGTPE]|Ki|Mi|Gi|Ti|Pi|Ei)?$/;

/** The CIBuild kind's service configuration, as the kind contract declares it. */
export const CIBUILD_OPTIONS: KindOptions<CIBuildOptions> = {
  title: "cibuild build images; serve and the hook commands; pinned tag or digest required",
  variables: [
    ...VARIABLES.map(({ key, name, help }) => ({ name, help, default: DEFAULT_CIBUILD_OPTIONS[key] })),
    { name: SIZE_LIMIT_VARIABLE, help: "sizeLimit of the build Pod's emptyDir volumes, a quantity such as 10Gi (unset: no limit)", default: "" },
  ],
  load: (env) => loadCIBuildOptions(env),
};

// An image reference as a container spec accepts it: no whitespace, no control characters,
// registry/path[:tag][@digest]. A floating `:latest` (or no tag) is refused: builds must be pinned.
const IMAGE = /^[a-z0-9]([a-zA-Z0-9._:/-]*[a-zA-Z0-9])?(:[\w][\w.-]{0,127})?(@sha256:[0-9a-f]{64})?$/;

/**
 * Reads the build images from the environment; unset or empty variables take the pinned defaults.
 *
 * @param env - e.g. `process.env`
 * @throws Error naming the variable when a value is not an image reference, or is unpinned
 *   (no tag and no digest, or the tag `latest`), or when `BUILD_WORKSPACE_SIZE_LIMIT` is not a
 *   positive quantity
 */
export function loadCIBuildOptions(env: Record<string, string | undefined>): CIBuildOptions {
  const options = { ...DEFAULT_CIBUILD_OPTIONS };
  for (const { key, name } of VARIABLES) {
    const value = env[name];
    if (value === undefined || value === "") continue;
    const lastSegment = value.split("@")[0]!.split("/").pop() ?? "";
    const pinned = value.includes("@sha256:") || (lastSegment.includes(":") && !lastSegment.endsWith(":latest"));
    if (!IMAGE.test(value)) throw new Error(`${name} must be an image reference such as ${DEFAULT_CIBUILD_OPTIONS[key]}, got ${JSON.stringify(value)}`);
    if (!pinned) throw new Error(`${name} must be pinned by a tag other than latest or by a digest, got ${JSON.stringify(value)}`);
    options[key] = value;
  }
  const sizeLimit = env[SIZE_LIMIT_VARIABLE];
  if (sizeLimit !== undefined && sizeLimit !== "") {
    if (!SIZE_QUANTITY.test(sizeLimit) || !/[1-9]/.test(sizeLimit)) {
      throw new Error(`${SIZE_LIMIT_VARIABLE} must be a positive quantity such as 10Gi, got ${JSON.stringify(sizeLimit)}`);
    }
    return { ...options, workspaceSizeLimit: sizeLimit };
  }
  return options;
}
