/**
 * The build Job (batch/v1) of one build hash: init container `git-sync` (v4, one-shot clone) →
 * init container `prepare` (checks and copies the context) → with kaniko, init container `build`
 * then container `digest` (reports the pushed digest); with rootless BuildKit (opt-in), container
 * `build`, whose wrapper reports the digest itself.
 *
 * User values reach containers only as whole argv elements (`--flag=value`) or env values. The two
 * shell scripts are fixed text and read user values from env (`prepare`) or from `"$@"`
 * (BuildKit wrapper), never by splicing.
 *
 * @packageDocumentation
 */
import type { KubeObject } from "../../metacontroller/contract.ts";
import type { CIBuildOptions } from "./options.ts";
import type { NormalizedSpec } from "./validate.ts";
import { ANNOTATION_COMMIT, LABEL_BUILD_HASH, LABEL_CIBUILD, MANAGED_BY, buildJobName, childNames, immutableTag } from "./naming.ts";

/** UID and GID of the git-sync image's user; also the Pod's fsGroup (git-sync docs/ssh.md). */
export const GIT_SYNC_UID = 65533;
/** Exit code of `prepare` when the context directory is missing. */
export const EXIT_CONTEXT_DIR_NOT_FOUND = 2;
/** Exit code of `prepare` when the Dockerfile is missing. */
export const EXIT_DOCKERFILE_NOT_FOUND = 3;
/** Exit code of `prepare` when git-sync left no link (the clone did not happen). */
export const EXIT_NO_CHECKOUT = 4;

const WORKSPACE = "/workspace";
const CONTEXT = `${WORKSPACE}/context`;
const GIT_ROOT = `${WORKSPACE}/src`;
const GIT_LINK = "repo";
const GIT_SECRET_DIR = "/etc/git-secret";
const TERMINATION_LOG = "/dev/termination-log";
/** Name of the container that reports a kaniko build's digest. */
export const DIGEST_CONTAINER = "digest";
/** Where kaniko writes `--digest-file` (the shared workspace, read by the `digest` container). */
export const KANIKO_DIGEST_FILE = `${WORKSPACE}/image-digest`;

/**
 * The `prepare` script. Fixed text: the user's context dir and Dockerfile arrive as env
 * `CONTEXT_DIR` and `DOCKERFILE`. It copies `<link>/<CONTEXT_DIR>/.` — dotfiles included, so
 * `.dockerignore` survives (`cp dir/*` would skip it) — into a plain directory, because kaniko
 * copies nothing from git-sync's symlink, and fails early with a reason when the context
 * directory or the Dockerfile is missing.
 *
 * Both paths are resolved with `realpath` (every symlink, including ones committed in the
 * repository) before they are checked: the context dir must stay inside the checkout and the
 * Dockerfile inside the context dir (only the context is copied to where the builder reads it),
 * else the step fails with the missing-path reason and says the path resolves outside. Without
 * this, a repository whose `contextDir` is a link to `/etc` or `../..` had the prepare container's
 * files (or git-sync's other worktrees) copied into the image. `case` patterns with quoted
 * prefixes match literally, so a path with glob characters cannot widen the check.
 *
 * On success the termination message is the commit SHA only: git-sync v4's link points at
 * `.worktrees/<sha>` (relative; kubernetes/git-sync main.go `worktreeFor`), so its basename is the
 * commit.
 */
export const PREPARE_SCRIPT = [
  "set -eu",
  `link=${GIT_ROOT}/${GIT_LINK}`,
  'if ! target="$(readlink "$link")"; then',
  `  printf 'GitCloneFailed: git-sync left no checkout at %s\\n' "$link" > ${TERMINATION_LOG}`,
  `  exit ${EXIT_NO_CHECKOUT}`,
  "fi",
  'sha="$(basename "$target")"',
  'root="$(realpath "$link")"',
  'inside() { case "$1/" in "$2/"*) return 0 ;; esac; return 1; }',
  'src="$(realpath "$link/$CONTEXT_DIR" 2>/dev/null)" || src=""',
  'if [ -n "$src" ] && ! inside "$src" "$root"; then',
  `  printf 'ContextDirNotFound: directory %s resolves outside the checkout at commit %s\\n' "$CONTEXT_DIR" "$sha" > ${TERMINATION_LOG}`,
  `  exit ${EXIT_CONTEXT_DIR_NOT_FOUND}`,
  "fi",
  'if [ -z "$src" ] || [ ! -d "$src" ]; then',
  `  printf 'ContextDirNotFound: directory %s does not exist at commit %s\\n' "$CONTEXT_DIR" "$sha" > ${TERMINATION_LOG}`,
  `  exit ${EXIT_CONTEXT_DIR_NOT_FOUND}`,
  "fi",
  'dockerfile="$(realpath "$src/$DOCKERFILE" 2>/dev/null)" || dockerfile=""',
  'if [ -n "$dockerfile" ] && ! inside "$dockerfile" "$src"; then',
  `  printf 'DockerfileNotFound: file %s in %s resolves outside the context directory at commit %s\\n' "$DOCKERFILE" "$CONTEXT_DIR" "$sha" > ${TERMINATION_LOG}`,
  `  exit ${EXIT_DOCKERFILE_NOT_FOUND}`,
  "fi",
  'if [ -z "$dockerfile" ] || [ ! -f "$dockerfile" ]; then',
  `  printf 'DockerfileNotFound: file %s does not exist in %s at commit %s\\n' "$DOCKERFILE" "$CONTEXT_DIR" "$sha" > ${TERMINATION_LOG}`,
  `  exit ${EXIT_DOCKERFILE_NOT_FOUND}`,
  "fi",
  `mkdir -p ${CONTEXT}`,
  `cp -R "$src/." ${CONTEXT}/`,
  `printf '%s' "$sha" > ${TERMINATION_LOG}`,
].join("\n");

/** Where the BuildKit wrapper asks `buildctl --metadata-file` to write (the `buildkitd` emptyDir). */
export const BUILDKIT_METADATA_FILE = "/home/user/.local/share/buildkit/cibuild-metadata.json";

/**
 * The BuildKit wrapper. Fixed text: every user value is one of `"$@"`. It runs one daemonless
 * build, then copies `containerimage.digest` (the pushed manifest or index) from the metadata
 * file (which can be far larger than a termination message) to the termination log.
 *
 * The file is read the way buildctl writes it (moby/buildkit cmd/buildctl/build.go
 * `writeMetadataFile`: the exporter response as a Go `map[string]any`, base64 JSON values decoded
 * to nested objects, `json.MarshalIndent(out, "", "  ")`). So keys are sorted, which puts
 * `containerimage.config.digest` (the image *config*, never pullable) before
 * `containerimage.digest` — the first `sha256:` in the file is the wrong one. Each top-level key
 * sits on its own line indented by exactly two spaces, while nested objects such as
 * `containerimage.descriptor` are indented deeper, so the anchored match below reads only the
 * top-level key (key names: exporter/containerimage/exptypes/types.go). No match (no image
 * exported) writes an empty message; the hook then falls back to the immutable tag.
 * `set -e` makes a failed build exit with buildctl's code and no message, so the kubelet shows the
 * log tail (`FallbackToLogsOnError`).
 */
export const BUILDKIT_WRAPPER_SCRIPT = [
  "set -eu",
  `buildctl-daemonless.sh "$@" --metadata-file ${BUILDKIT_METADATA_FILE}`,
  `digest="$(sed -n 's/^  "containerimage\\.digest": "\\(sha256:[0-9a-f]\\{64\\}\\)",\\{0,1\\}$/\\1/p' ${BUILDKIT_METADATA_FILE} | head -n 1)"`,
  `printf '%s' "$digest" > ${TERMINATION_LOG}`,
].join("\n");

/**
 * The `digest` container's script (kaniko builds). Fixed text.
 *
 * kaniko writes `--digest-file` from `DoPush`, and `DoPush` runs for every cache layer push
 * (`pushLayerToCache` and `pushCachePointer` copy the options, digest file included) and for the
 * final image *before* it pushes to any destination (osscontainertools/kaniko
 * pkg/executor/push.go). With the digest file at the termination log, a build that failed after a
 * cache push, or whose final push failed, showed a digest instead of its error: the kubelet only
 * falls back to the log tail (`FallbackToLogsOnError`) when the message is empty. The kaniko
 * executor image has no shell to wrap it, so the ordering comes from the Pod instead: kaniko runs
 * as the last init container writing {@link KANIKO_DIGEST_FILE}; this container starts only after
 * kaniko exited 0, so the file then holds the final image's digest. A failed kaniko leaves its
 * own termination log empty, and its log tail becomes the message.
 *
 * Only a bare `sha256:<64 hex>` is reported; anything else is reported as nothing (the hook then
 * falls back to the immutable tag), never as a wrong digest.
 */
export const DIGEST_REPORT_SCRIPT = [
  "set -eu",
  `digest="$(cat ${KANIKO_DIGEST_FILE} 2>/dev/null || true)"`,
  'if [ "${#digest}" -eq 71 ] && printf \'%s\\n\' "$digest" | grep -qx \'sha256:[0-9a-f]\\{64\\}\'; then',
  `  printf '%s' "$digest" > ${TERMINATION_LOG}`,
  "else",
  `  echo "kaniko wrote no image digest to ${KANIKO_DIGEST_FILE}" >&2`,
  "fi",
].join("\n");

/** What {@link buildJob} needs. */
export interface BuildJobInput {
  parentName: string;
  buildHash: string;
  spec: NormalizedSpec;
  options: CIBuildOptions;
  /** The exact commit to build (a CIBuild following its branch); else the revision's head. */
  commit?: string;
}

/** Labels of a build Job and its Pods. */
export function buildLabels(parentName: string, buildHash: string): Record<string, string> {
  return {
    "app.kubernetes.io/managed-by": MANAGED_BY,
    [LABEL_BUILD_HASH]: buildHash,
    [LABEL_CIBUILD]: childNames(parentName).parentLabel,
  };
}

/**
 * Every `--destination` of a build: the image, the immutable tag `cibuild-<hash>` (so a deploy
 * never depends on the Pod reporting the digest), the additional tags.
 */
export function destinations(spec: NormalizedSpec, buildHash: string): string[] {
  const out = [spec.output.image];
  if (spec.output.immutableTag) out.push(`${spec.output.repository}:${immutableTag(buildHash)}`);
  for (const tag of spec.output.additionalTags) out.push(`${spec.output.repository}:${tag}`);
  return [...new Set(out)];
}

const restricted = (uid: number) => ({
  runAsUser: uid,
  runAsGroup: uid,
  runAsNonRoot: true,
  allowPrivilegeEscalation: false,
  capabilities: { drop: ["ALL"] },
});

function gitSyncContainer(spec: NormalizedSpec, options: CIBuildOptions, commit?: string): Record<string, unknown> {
  const git = spec.git;
  // Only git-sync v4 flags, one argv element each: no GIT_SYNC_* env and no v3 flags (a v4 image
  // given v3 variables dies on GIT_SYNC_PERMISSIONS); each
  // is a pflag of kubernetes/git-sync main.go (v4.7), and GITSYNC_USERNAME is the env default of
  // --username there.
  const args = [
    `--repo=${git.url}`,
    `--ref=${commit ?? (git.revision || "HEAD")}`,
    `--root=${GIT_ROOT}`,
    `--link=${GIT_LINK}`,
    "--one-time",
    `--depth=${git.depth}`,
    `--submodules=${git.submodules}`,
    // git-sync gives each attempt (fetch, worktree, submodules) 120 s by default and, one-shot,
    // exits 1 on the first failure: a large clone would fail as GitCloneFailed on every retry.
    // The build's own timeout bounds it instead (the Job's activeDeadlineSeconds is the same).
    `--sync-timeout=${spec.build.timeoutSeconds}s`,
  ];
  const env: Array<Record<string, unknown>> = [];
  if (git.transport === "ssh") {
    if (git.cloneSecret) args.push(`--ssh-key-file=${GIT_SECRET_DIR}/${git.sshKeySecretKey}`);
    if (git.insecureIgnoreHostKey) args.push("--ssh-known-hosts=false");
    else args.push(`--ssh-known-hosts-file=${GIT_SECRET_DIR}/known_hosts`);
  } else if (git.cloneSecret) {
    env.push({ name: "GITSYNC_USERNAME", valueFrom: { secretKeyRef: { name: git.cloneSecret, key: "username" } } });
    args.push(`--password-file=${GIT_SECRET_DIR}/password`);
  }
  const container: Record<string, unknown> = {
    name: "git-sync",
    image: options.gitSyncImage,
    args,
    securityContext: restricted(GIT_SYNC_UID),
    terminationMessagePolicy: "FallbackToLogsOnError",
    volumeMounts: [
      { name: "workspace", mountPath: WORKSPACE },
      ...(git.cloneSecret ? [{ name: "git-secret", mountPath: GIT_SECRET_DIR, readOnly: true }] : []),
    ],
  };
  if (env.length) container.env = env;
  return container;
}

function prepareContainer(spec: NormalizedSpec, options: CIBuildOptions): Record<string, unknown> {
  return {
    name: "prepare",
    image: options.prepareImage,
    command: ["sh", "-c", PREPARE_SCRIPT],
    env: [
      { name: "CONTEXT_DIR", value: spec.contextDir || "." },
      { name: "DOCKERFILE", value: spec.build.dockerfile },
    ],
    securityContext: restricted(GIT_SYNC_UID),
    terminationMessagePolicy: "FallbackToLogsOnError",
    volumeMounts: [{ name: "workspace", mountPath: WORKSPACE }],
  };
}

function kanikoContainer(spec: NormalizedSpec, buildHash: string, options: CIBuildOptions): Record<string, unknown> {
  const args = [`--context=dir://${CONTEXT}`, `--dockerfile=${CONTEXT}/${spec.build.dockerfile}`];
  for (const d of destinations(spec, buildHash)) args.push(`--destination=${d}`);
  args.push(`--digest-file=${KANIKO_DIGEST_FILE}`);
  for (const a of spec.build.buildArgs) args.push(`--build-arg=${a.name}=${a.value}`);
  // kaniko's --target is a CSV list (pflag StringSlice); validation keeps commas and quotes out.
  if (spec.build.target !== undefined) args.push(`--target=${spec.build.target}`);
  if (spec.build.cache.enabled) {
    // kaniko's --insecure also covers the cache: lookups (pkg/cache/cache.go) and cache pushes
    // (pkg/executor/push.go pushLayerToCache copies the options).
    args.push("--cache=true");
    if (spec.build.cache.repo) args.push(`--cache-repo=${spec.build.cache.repo}`);
  }
  if (spec.build.reproducible) args.push("--reproducible");
  if (spec.output.insecure) args.push("--insecure");
  const container: Record<string, unknown> = {
    name: "build",
    image: options.kanikoImage,
    args,
    // kaniko must be root inside its container (it unpacks base images), but never privileged:
    // this fits Pod Security "baseline".
    securityContext: { runAsUser: 0, runAsGroup: 0, privileged: false },
    terminationMessagePolicy: "FallbackToLogsOnError",
    volumeMounts: [
      { name: "workspace", mountPath: WORKSPACE },
      ...(spec.output.pushSecret ? [{ name: "docker-config", mountPath: "/kaniko/.docker", readOnly: true }] : []),
    ],
  };
  if (spec.build.resources) container.resources = spec.build.resources;
  return container;
}

function digestContainer(options: CIBuildOptions): Record<string, unknown> {
  return {
    name: DIGEST_CONTAINER,
    image: options.prepareImage,
    command: ["sh", "-c", DIGEST_REPORT_SCRIPT],
    securityContext: restricted(GIT_SYNC_UID),
    terminationMessagePolicy: "FallbackToLogsOnError",
    volumeMounts: [{ name: "workspace", mountPath: WORKSPACE, readOnly: true }],
  };
}

function buildkitContainer(spec: NormalizedSpec, buildHash: string, options: CIBuildOptions): Record<string, unknown> {
  const dockerfile = spec.build.dockerfile;
  const slash = dockerfile.lastIndexOf("/");
  const dockerfileDir = slash >= 0 ? `${CONTEXT}/${dockerfile.slice(0, slash)}` : CONTEXT;
  const dockerfileName = slash >= 0 ? dockerfile.slice(slash + 1) : dockerfile;
  // Image references never contain commas or quotes (validated), so the CSV quoting is safe.
  const output = [`type=image`, `"name=${destinations(spec, buildHash).join(",")}"`, "push=true"];
  if (spec.output.insecure) output.push("registry.insecure=true");
  if (spec.build.reproducible) output.push("rewrite-timestamp=true");
  const args = [
    "build",
    "--frontend=dockerfile.v0",
    `--local=context=${CONTEXT}`,
    `--local=dockerfile=${dockerfileDir}`,
    `--opt=filename=${dockerfileName}`,
    `--output=${output.join(",")}`,
  ];
  if (spec.build.target !== undefined) args.push(`--opt=target=${spec.build.target}`);
  for (const a of spec.build.buildArgs) args.push(`--opt=build-arg:${a.name}=${a.value}`);
  if (spec.build.reproducible) args.push("--opt=build-arg:SOURCE_DATE_EPOCH=0");
  if (spec.build.cache.enabled) {
    const repo = spec.build.cache.repo ?? `${spec.output.repository}/cache`;
    // The registry cache exporter and importer read their own `registry.insecure` attribute
    // (moby/buildkit cache/remotecache/registry/registry.go attrInsecure); the image exporter's
    // one in --output does not reach them, so a plain-HTTP registry needs it on each cache ref.
    // buildctl splits these values as CSV (cmd/buildctl/build/importcache.go, exportcache.go);
    // image references hold no commas or quotes.
    const ref = `type=registry,ref=${repo}${spec.output.insecure ? ",registry.insecure=true" : ""}`;
    args.push(`--export-cache=${ref}`, `--import-cache=${ref}`);
  }
  const env: Array<Record<string, unknown>> = [{ name: "BUILDKITD_FLAGS", value: "--oci-worker-no-process-sandbox" }];
  if (spec.output.pushSecret) env.push({ name: "DOCKER_CONFIG", value: "/home/user/.docker" });
  const container: Record<string, unknown> = {
    name: "build",
    image: options.buildkitImage,
    command: ["sh", "-c", BUILDKIT_WRAPPER_SCRIPT, "buildkit-build"],
    args,
    env,
    // Rootless BuildKit (moby/buildkit examples/kubernetes/job.rootless.yaml): its rootlesskit
    // needs Unconfined seccomp and AppArmor, so the namespace must allow Pod Security "privileged".
    securityContext: {
      runAsUser: 1000,
      runAsGroup: 1000,
      seccompProfile: { type: "Unconfined" },
      appArmorProfile: { type: "Unconfined" },
    },
    terminationMessagePolicy: "FallbackToLogsOnError",
    volumeMounts: [
      { name: "workspace", mountPath: WORKSPACE },
      { name: "buildkitd", mountPath: "/home/user/.local/share/buildkit" },
      ...(spec.output.pushSecret ? [{ name: "docker-config", mountPath: "/home/user/.docker", readOnly: true }] : []),
    ],
  };
  if (spec.build.resources) container.resources = spec.build.resources;
  return container;
}

/**
 * The build Job for one build hash. Never updated after creation (a Job's Pod template is
 * immutable): new build inputs give a new hash, hence a new name. No `ttlSecondsAfterFinished`:
 * retention is the hook's job, and a finished build whose Job vanished is never rebuilt.
 */
export function buildJob(input: BuildJobInput): KubeObject {
  const { parentName, buildHash, spec, options, commit } = input;
  const labels = buildLabels(parentName, buildHash);
  // Without a limit a build (clone, context, layers) may fill the node's disk; with one the
  // kubelet evicts just this Pod. Off unless the service sets it, so existing Jobs keep their spec.
  const scratch = () => (options.workspaceSizeLimit ? { sizeLimit: options.workspaceSizeLimit } : {});
  const volumes: Array<Record<string, unknown>> = [{ name: "workspace", emptyDir: scratch() }];
  // defaultMode 0400 (256) + fsGroup 65533: SSH accepts the key and git-sync runs as its own
  // non-root user (the seed ran git-sync as root).
  if (spec.git.cloneSecret) volumes.push({ name: "git-secret", secret: { secretName: spec.git.cloneSecret, defaultMode: 256 } });
  if (spec.output.pushSecret) {
    volumes.push({
      name: "docker-config",
      secret: { secretName: spec.output.pushSecret, items: [{ key: spec.output.pushSecretKey, path: "config.json" }] },
    });
  }
  if (spec.build.strategy === "buildkit") volumes.push({ name: "buildkitd", emptyDir: scratch() });
  const steps = [gitSyncContainer(spec, options, commit), prepareContainer(spec, options)];
  // kaniko is an init container so that `digest` runs only after it exited 0 (see DIGEST_REPORT_SCRIPT);
  // the BuildKit wrapper has a shell and reports its own digest after a successful build.
  const [initContainers, containers] =
    spec.build.strategy === "buildkit"
      ? [steps, [buildkitContainer(spec, buildHash, options)]]
      : [[...steps, kanikoContainer(spec, buildHash, options)], [digestContainer(options)]];
  const podSpec: Record<string, unknown> = {
    restartPolicy: "Never",
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    securityContext: { fsGroup: GIT_SYNC_UID },
    initContainers,
    containers,
    volumes,
  };
  if (spec.build.serviceAccountName) podSpec.serviceAccountName = spec.build.serviceAccountName;
  if (spec.build.nodeSelector) podSpec.nodeSelector = spec.build.nodeSelector;
  if (spec.build.tolerations) podSpec.tolerations = spec.build.tolerations;
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: buildJobName(parentName, buildHash), labels, ...(commit ? { annotations: { [ANNOTATION_COMMIT]: commit } } : {}) },
    spec: {
      backoffLimit: spec.build.retries,
      activeDeadlineSeconds: spec.build.timeoutSeconds,
      // A missing context dir or Dockerfile will not appear on a retry. Disruptions (a node
      // drained, preemption: the DisruptionTarget condition) do not count against backoffLimit;
      // an eviction for outgrowing the workspace's sizeLimit has no such condition and does.
      podFailurePolicy: {
        rules: [
          {
            action: "FailJob",
            onExitCodes: { containerName: "prepare", operator: "In", values: [EXIT_CONTEXT_DIR_NOT_FOUND, EXIT_DOCKERFILE_NOT_FOUND] },
          },
          { action: "Ignore", onPodConditions: [{ type: "DisruptionTarget", status: "True" }] },
        ],
      },
      template: { metadata: { labels }, spec: podSpec },
    },
  };
}
