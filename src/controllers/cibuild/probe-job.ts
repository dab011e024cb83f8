/**
 * Polling without I/O in the hook: once per poll interval the sync hook asks for a small probe
 * Job that runs `git ls-remote` of the tracked ref in the git-sync image (which ships bash, git
 * and ssh) and writes the commit SHA as its termination message; the customize hook asks for the
 * probe Pods, so a later sync reads the answer like it reads the build Pods'.
 *
 * The probe uses the build's clone credentials (same Secret, same mount, same key file mode),
 * the git step's hardened security context, no ServiceAccount token and no service links.
 *
 * @packageDocumentation
 */
import type { KubeObject } from "../../metacontroller/contract.ts";
import { canonicalJson, sha256Hex } from "../../kube/names.ts";
import type { CIBuildOptions } from "./options.ts";
import type { NormalizedSpec } from "./validate.ts";
import { GIT_SYNC_UID } from "./build-job.ts";
import { LABEL_BUILD_HASH, LABEL_CIBUILD, LABEL_PROBE, LABEL_PROBE_SLOT, MANAGED_BY, childNames, probeJobName } from "./naming.ts";
import { COMMIT_SHA_PATTERN, classifyJob, podsOfJob, summarizeTerminationMessage, type ObservedBuildJob } from "./build-state.ts";
import { parseTime } from "../../kube/time.ts";
import { reemitObserved } from "../../kube/objects.ts";

/** Name of the probe container (its termination message is the answer). */
export const PROBE_CONTAINER = "ls-remote";
/** Longest run of one probe, in seconds (also capped by the interval). */
export const PROBE_DEADLINE_SECONDS = 120;
/** Exit code of the probe when the ref does not exist. */
export const EXIT_REF_NOT_FOUND = 3;
const GIT_SECRET_DIR = "/etc/git-secret";
const TERMINATION_LOG = "/dev/termination-log";

/**
 * The probe script. Fixed text: the URL and ref arrive as env `GIT_URL` and `GIT_REF`. For a
 * branch name it asks for `refs/heads/<ref>` and `refs/tags/<ref>` and takes the branch first,
 * then the peeled tag (`^{}`: the commit an annotated tag points at; git lists it only when asked
 * for by name), then the tag; `HEAD` is the default branch. HTTPS credentials come from a credential helper reading the mounted password
 * file, so they never appear on a command line or in the URL.
 */
export const PROBE_SCRIPT = [
  "set -u",
  'case "$GIT_REF" in',
  '  HEAD) set -- HEAD; want="HEAD" ;;',
  '  refs/*) set -- "$GIT_REF" "$GIT_REF^{}"; want="$GIT_REF^{} $GIT_REF" ;;',
  '  *) set -- "refs/heads/$GIT_REF" "refs/tags/$GIT_REF" "refs/tags/$GIT_REF^{}"; want="refs/heads/$GIT_REF refs/tags/$GIT_REF^{} refs/tags/$GIT_REF" ;;',
  "esac",
  `helper='!f() { test "$1" = get || exit 0; echo "username=$GITSYNC_USERNAME"; printf "password=%s\\n" "$(cat ${GIT_SECRET_DIR}/password)"; }; f'`,
  'if [ -n "${GITSYNC_USERNAME:-}" ]; then set -- -c "credential.helper=$helper" ls-remote "$GIT_URL" "$@"; else set -- ls-remote "$GIT_URL" "$@"; fi',
  'if ! git "$@" > /tmp/refs 2> /tmp/err; then',
  `  { printf 'PollFailed: '; tail -c 900 /tmp/err; } > ${TERMINATION_LOG}`,
  "  exit 1",
  "fi",
  "for w in $want; do",
  '  while read -r sha ref; do',
  `    if [ "$ref" = "$w" ]; then printf '%s' "$sha" > ${TERMINATION_LOG}; exit 0; fi`,
  "  done < /tmp/refs",
  "done",
  `printf 'RefNotFound: the remote has no ref %s\\n' "$GIT_REF" > ${TERMINATION_LOG}`,
  `exit ${EXIT_REF_NOT_FOUND}`,
].join("\n");

/**
 * What a probe depends on: a change of URL, revision or credentials starts a fresh series of
 * probes, and older answers are ignored. 10 hex characters (a label value).
 */
export function probeKey(spec: NormalizedSpec): string {
  const g = spec.git;
  return sha256Hex(
    canonicalJson({ url: g.url, revision: g.revision, cloneSecret: g.cloneSecret ?? "", sshKey: g.sshKeySecretKey, insecure: g.insecureIgnoreHostKey }),
  ).slice(0, 10);
}

/**
 * The start of the poll slot that contains `now`, in Unix seconds. Slots are `interval` long and
 * shifted by a per-CIBuild offset taken from its uid, so many CIBuilds with one interval do not
 * all poll at the same second.
 */
export function pollSlotStart(nowSeconds: number, intervalSeconds: number, seed: string): number {
  const offset = parseInt(sha256Hex(seed).slice(0, 8), 16) % intervalSeconds;
  return Math.floor((nowSeconds - offset) / intervalSeconds) * intervalSeconds + offset;
}

/** What {@link probeJob} needs. */
export interface ProbeJobInput {
  parentName: string;
  key: string;
  slotStart: number;
  spec: NormalizedSpec;
  options: CIBuildOptions;
}

/** The probe Job of one poll slot. */
export function probeJob(input: ProbeJobInput): KubeObject {
  const { parentName, key, slotStart, spec, options } = input;
  const git = spec.git;
  const labels = {
    "app.kubernetes.io/managed-by": MANAGED_BY,
    [LABEL_CIBUILD]: childNames(parentName).parentLabel,
    [LABEL_PROBE]: key,
    [LABEL_PROBE_SLOT]: String(slotStart),
  };
  const env: Array<Record<string, unknown>> = [
    { name: "GIT_URL", value: git.url },
    { name: "GIT_REF", value: git.revision || "HEAD" },
  ];
  if (git.transport === "ssh") {
    // Key names are validated ([-._a-zA-Z0-9]+), so this fixed command line is safe for git's shell.
    const hostKeys = git.insecureIgnoreHostKey
      ? "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null"
      : `-o StrictHostKeyChecking=yes -o UserKnownHostsFile=${GIT_SECRET_DIR}/known_hosts`;
    const identity = git.cloneSecret ? `-i ${GIT_SECRET_DIR}/${git.sshKeySecretKey} -o IdentitiesOnly=yes ` : "";
    env.push({ name: "GIT_SSH_COMMAND", value: `ssh ${identity}${hostKeys}` });
  } else if (git.cloneSecret) {
    env.push({ name: "GITSYNC_USERNAME", valueFrom: { secretKeyRef: { name: git.cloneSecret, key: "username" } } });
  }
  env.push({ name: "HOME", value: "/tmp" });
  const container: Record<string, unknown> = {
    name: PROBE_CONTAINER,
    image: options.gitSyncImage,
    command: ["sh", "-c", PROBE_SCRIPT],
    env,
    securityContext: {
      runAsUser: GIT_SYNC_UID,
      runAsGroup: GIT_SYNC_UID,
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
      // Beyond the git step: the probe also fits Pod Security "restricted".
      seccompProfile: { type: "RuntimeDefault" },
    },
    resources: { requests: { cpu: "10m", memory: "32Mi" }, limits: { memory: "128Mi" } },
    terminationMessagePolicy: "FallbackToLogsOnError",
    volumeMounts: git.cloneSecret ? [{ name: "git-secret", mountPath: GIT_SECRET_DIR, readOnly: true }] : [],
  };
  const podSpec: Record<string, unknown> = {
    restartPolicy: "Never",
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    securityContext: { fsGroup: GIT_SYNC_UID },
    containers: [container],
    volumes: git.cloneSecret ? [{ name: "git-secret", secret: { secretName: git.cloneSecret, defaultMode: 256 } }] : [],
  };
  if (spec.build.serviceAccountName) podSpec.serviceAccountName = spec.build.serviceAccountName;
  if (spec.build.nodeSelector) podSpec.nodeSelector = spec.build.nodeSelector;
  if (spec.build.tolerations) podSpec.tolerations = spec.build.tolerations;
  const interval = spec.triggers?.pollIntervalSeconds ?? PROBE_DEADLINE_SECONDS;
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: probeJobName(parentName, key, slotStart), labels },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: Math.min(PROBE_DEADLINE_SECONDS, interval),
      // The Pods also carry the build-hash label (value `probe`): the customize hook's one rule
      // (build-hash Exists) then hands them to sync without a second rule for the same resource.
      template: { metadata: { labels: { ...labels, [LABEL_BUILD_HASH]: "probe" } }, spec: podSpec },
    },
  };
}

/** One observed probe Job and what it answered. */
export interface ObservedProbe {
  observed: ObservedBuildJob;
  key: string;
  slotStart: number;
  /** The commit the ref pointed at, once the probe succeeded. */
  sha?: string;
  /** When the probe ran (its container's start: the ls-remote happened after it). */
  seenAt?: string;
  /** Why the probe failed, once it did. */
  failure?: string;
}

/** Whether an observed Job is a probe Job (has the probe label). */
export function isProbeJob(job: KubeObject): boolean {
  return job.metadata.labels?.[LABEL_PROBE] !== undefined;
}

interface TerminatedLike {
  exitCode?: unknown;
  message?: unknown;
  startedAt?: unknown;
  finishedAt?: unknown;
}

/** Reads one probe Job and its Pods (only Pods the Job controls count). */
export function readProbe(job: KubeObject, pods: KubeObject[]): ObservedProbe {
  const observed = classifyJob(job);
  const slot = Number(job.metadata.labels?.[LABEL_PROBE_SLOT]);
  const probe: ObservedProbe = { observed, key: job.metadata.labels?.[LABEL_PROBE] ?? "", slotStart: Number.isSafeInteger(slot) ? slot : 0 };
  for (const pod of podsOfJob(job, pods)) {
    const statuses = (pod.status as { containerStatuses?: unknown } | undefined)?.containerStatuses;
    const status = Array.isArray(statuses) ? (statuses as Array<{ name?: unknown; state?: { terminated?: TerminatedLike } }>).find((c) => c?.name === PROBE_CONTAINER) : undefined;
    const t = status?.state?.terminated;
    if (!t || typeof t.exitCode !== "number") continue;
    const message = typeof t.message === "string" ? t.message.trim() : "";
    const startedAt = parseTime(t.startedAt) ? (t.startedAt as string) : parseTime(t.finishedAt) ? (t.finishedAt as string) : undefined;
    if (t.exitCode === 0 && COMMIT_SHA_PATTERN.test(message)) {
      probe.sha = message;
      if (startedAt) probe.seenAt = startedAt;
      delete probe.failure;
    } else {
      probe.failure = summarizeTerminationMessage(message) || `exit code ${t.exitCode}`;
      delete probe.sha;
    }
  }
  if (!probe.sha && !probe.failure && observed.state === "Failed") {
    probe.failure = `probe Job ${observed.name} failed${observed.failedReason ? ` (${observed.failedReason})` : ""}`;
  }
  if (probe.sha && !probe.seenAt) {
    const at = observed.startTime ?? observed.creationTimestamp;
    if (at) probe.seenAt = at;
  }
  return probe;
}

/** The decision about probe Jobs for one sync. */
export interface ProbePlan {
  /** Probe Jobs to keep (observed) or create (desired). */
  children: KubeObject[];
  /** Observed probe Jobs left out (deleted by Metacontroller). */
  dropped: string[];
  /** Name of a probe Job created by this answer. */
  created?: string;
  /** Newest probe that answered (success or failure), of the current key. */
  latest?: ObservedProbe;
  /** Seconds until the next poll slot starts (for resyncAfterSeconds). */
  nextInSeconds?: number;
}

const newestFirst = (a: ObservedProbe, b: ObservedProbe) => b.slotStart - a.slotStart || (a.observed.name < b.observed.name ? -1 : a.observed.name > b.observed.name ? 1 : 0);

/**
 * Which probe Jobs to keep and whether to start one: at most the newest answered probe and one
 * running probe are kept; a new probe starts when the current slot has none and none runs.
 *
 * @param active - poll now (false while suspended or without `triggers.poll`: no new probe; while
 *   suspended only the newest answered probe is kept so its answer stays readable, without
 *   `triggers.poll` none)
 */
export function planProbes(input: {
  probes: ObservedProbe[];
  key: string;
  active: boolean;
  now: Date;
  seed: string;
  parentName: string;
  spec: NormalizedSpec;
  options: CIBuildOptions;
}): ProbePlan {
  const { key, now } = input;
  const current = input.probes.filter((p) => p.key === key && !p.observed.beingDeleted).sort(newestFirst);
  const answered = current.filter((p) => p.observed.state === "Succeeded" || p.observed.state === "Failed" || p.sha !== undefined || p.failure !== undefined);
  const latest = answered[0];
  const running = current.find((p) => !answered.includes(p));
  const keep = new Set<ObservedProbe>();
  // Without `triggers.poll` no probe is kept: status.latestCommit already remembers the answer.
  if (latest && input.spec.triggers?.pollIntervalSeconds !== undefined) keep.add(latest);
  if (running && input.active) keep.add(running);
  const plan: ProbePlan = { children: [], dropped: [] };
  if (latest) plan.latest = latest;
  const interval = input.spec.triggers?.pollIntervalSeconds;
  if (input.active && interval) {
    const nowSeconds = Math.floor(now.getTime() / 1000);
    const slot = pollSlotStart(nowSeconds, interval, input.seed);
    const hasSlot = current.some((p) => p.slotStart >= slot);
    if (!hasSlot && !running) {
      const job = probeJob({ parentName: input.parentName, key, slotStart: slot, spec: input.spec, options: input.options });
      plan.children.push(job);
      plan.created = job.metadata.name;
    }
    plan.nextInSeconds = slot + interval - now.getTime() / 1000;
  }
  for (const p of input.probes) {
    if (keep.has(p)) plan.children.push(reemitObserved(p.observed.job));
    else if (!p.observed.beingDeleted) plan.dropped.push(p.observed.name);
  }
  return plan;
}
