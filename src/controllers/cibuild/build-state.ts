/**
 * What observed build Jobs and their Pods say: each Job's state judged by its conditions' type
 * *and* status (never `conditions[0]`: newer Kubernetes adds interim conditions first), and the
 * build Pods' termination messages — commit SHA from `prepare`, digest from `digest` (kaniko) or
 * `build` (BuildKit), failure text from whichever container failed.
 *
 * @packageDocumentation
 */
import type { KubeObject } from "../../metacontroller/contract.ts";
import { finishedCondition, isBeingDeleted } from "../../kube/jobs.ts";
import { parseTime } from "../../kube/time.ts";
import { BuildReason } from "./reasons.ts";
import { DIGEST_CONTAINER, EXIT_CONTEXT_DIR_NOT_FOUND, EXIT_DOCKERFILE_NOT_FOUND } from "./build-job.ts";
import { JOB_NAME_LABELS, LABEL_BUILD_HASH } from "./naming.ts";

/** A digest as kaniko's `--digest-file` and BuildKit's `containerimage.digest` give it. */
export const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;
/** A full git commit SHA (SHA-1 or SHA-256 repositories). */
export const COMMIT_SHA_PATTERN = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
/** Longest failure message copied into status (termination messages can reach 4 KiB). */
export const MAX_MESSAGE = 1024;

/** State of an observed build Job. */
export type JobState = "Pending" | "Running" | "Succeeded" | "Failed";

/** One observed build Job, classified. */
export interface ObservedBuildJob {
  job: KubeObject;
  name: string;
  /** The `cicd.cicd.com/build-hash` label, when present. */
  buildHash?: string;
  state: JobState;
  /** Reason of the `Failed=True` condition (BackoffLimitExceeded, DeadlineExceeded, PodFailurePolicy, …). */
  failedReason?: string;
  failedMessage?: string;
  beingDeleted: boolean;
  startTime?: string;
  /** `status.completionTime`, else the finishing condition's `lastTransitionTime` (failed Jobs have no completionTime). */
  finishTime?: string;
  creationTimestamp?: string;
}

interface JobStatusLike {
  active?: unknown;
  startTime?: unknown;
  completionTime?: unknown;
}

function timeText(value: unknown): string | undefined {
  return parseTime(value) ? (value as string) : undefined;
}

/** Classifies one observed Job. */
export function classifyJob(job: KubeObject): ObservedBuildJob {
  const status = (job.status ?? {}) as JobStatusLike;
  const finished = finishedCondition(job);
  const startTime = timeText(status.startTime);
  const state: JobState = finished
    ? finished.type === "Complete"
      ? "Succeeded"
      : "Failed"
    : (typeof status.active === "number" && status.active > 0) || startTime
      ? "Running"
      : "Pending";
  const observed: ObservedBuildJob = { job, name: job.metadata.name, state, beingDeleted: isBeingDeleted(job) };
  const hash = job.metadata.labels?.[LABEL_BUILD_HASH];
  if (hash) observed.buildHash = hash;
  if (startTime) observed.startTime = startTime;
  const finish = timeText(status.completionTime) ?? (finished ? timeText(finished.lastTransitionTime) : undefined);
  if (finished && finish) observed.finishTime = finish;
  if (finished?.type === "Failed") {
    if (typeof finished.reason === "string" && finished.reason) observed.failedReason = finished.reason;
    if (typeof finished.message === "string" && finished.message) observed.failedMessage = finished.message;
  }
  const created = timeText(job.metadata.creationTimestamp);
  if (created) observed.creationTimestamp = created;
  return observed;
}

/** What the Pods of one build Job told us. */
export interface PodFindings {
  commitSHA?: string;
  digest?: string;
  /** Why the latest failed Pod failed, by its first failed container. */
  failure?: { reason: string; message: string };
  /** Problems of containers that cannot start (ImagePullBackOff, CreateContainerConfigError, …). */
  waiting?: string;
}

interface ContainerStatusLike {
  name?: unknown;
  state?: {
    terminated?: { exitCode?: unknown; message?: unknown; reason?: unknown };
    waiting?: { reason?: unknown; message?: unknown };
  };
}

/** Waiting reasons that are just progress, not a problem worth reporting. */
const BENIGN_WAITING = new Set(["PodInitializing", "ContainerCreating"]);

/**
 * Shortens a termination message for status: git-sync logs JSON lines, so the last line with an
 * `error` (else the last line) is turned into `msg: error`; control characters are dropped and
 * the result is cut to {@link MAX_MESSAGE} characters.
 */
export function summarizeTerminationMessage(raw: string): string {
  const lines = raw
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "");
  let chosen: string | undefined;
  for (const line of lines) {
    if (!line.startsWith("{")) continue;
    try {
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (typeof entry.error === "string") chosen = typeof entry.msg === "string" ? `${entry.msg}: ${entry.error}` : entry.error;
    } catch {
      // not a JSON log line
    }
  }
  const text = (chosen ?? lines.slice(-3).join(" | ")).replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 1)}…` : text;
}

function statuses(pod: KubeObject, key: "initContainerStatuses" | "containerStatuses"): ContainerStatusLike[] {
  const status = pod.status as Record<string, unknown> | undefined;
  const list = status?.[key];
  return Array.isArray(list) ? (list as ContainerStatusLike[]) : [];
}

function containerStatus(pod: KubeObject, name: string): ContainerStatusLike | undefined {
  return [...statuses(pod, "initContainerStatuses"), ...statuses(pod, "containerStatuses")].find((c) => c?.name === name);
}

function terminated(pod: KubeObject, name: string): { exitCode: number; message: string } | undefined {
  const t = containerStatus(pod, name)?.state?.terminated;
  if (!t || typeof t.exitCode !== "number") return undefined;
  const message = typeof t.message === "string" ? t.message : typeof t.reason === "string" ? t.reason : "";
  return { exitCode: t.exitCode, message };
}

function prepareFailureReason(exitCode: number, message: string): string {
  for (const reason of [BuildReason.ContextDirNotFound, BuildReason.DockerfileNotFound, BuildReason.GitCloneFailed]) {
    if (message.startsWith(`${reason}:`)) return reason;
  }
  if (exitCode === EXIT_CONTEXT_DIR_NOT_FOUND) return BuildReason.ContextDirNotFound;
  if (exitCode === EXIT_DOCKERFILE_NOT_FOUND) return BuildReason.DockerfileNotFound;
  return BuildReason.BuildFailed;
}

function podFailure(pod: KubeObject): PodFindings["failure"] {
  // The kubelet evicts a build Pod that outgrows its emptyDir sizeLimit or ephemeral-storage limit
  // (pkg/kubelet/eviction, "Usage of EmptyDir volume … exceeds the limit …") with the reason in
  // the Pod's status, not in any container's termination message: say that, not the log tail of
  // the container it killed.
  const status = (pod as { status?: { reason?: unknown; message?: unknown } }).status;
  if (status?.reason === "Evicted") {
    const why = typeof status.message === "string" ? summarizeTerminationMessage(status.message) : "";
    return { reason: BuildReason.BuildFailed, message: `the build Pod was evicted${why ? `: ${why}` : ""}` };
  }
  const clone = terminated(pod, "git-sync");
  if (clone && clone.exitCode !== 0) {
    return { reason: BuildReason.GitCloneFailed, message: `git-sync: ${summarizeTerminationMessage(clone.message) || `exit code ${clone.exitCode}`}` };
  }
  const prepare = terminated(pod, "prepare");
  if (prepare && prepare.exitCode !== 0) {
    return { reason: prepareFailureReason(prepare.exitCode, prepare.message), message: `prepare: ${summarizeTerminationMessage(prepare.message) || `exit code ${prepare.exitCode}`}` };
  }
  for (const name of ["build", DIGEST_CONTAINER]) {
    const step = terminated(pod, name);
    if (step && step.exitCode !== 0) {
      return { reason: BuildReason.BuildFailed, message: `${name}: ${summarizeTerminationMessage(step.message) || `exit code ${step.exitCode}`}` };
    }
  }
  return undefined;
}

/**
 * The pushed digest a Pod reports: the `digest` container's message (kaniko), else the `build`
 * container's (BuildKit; and kaniko Jobs created before the `digest` container existed, whose
 * kaniko wrote the digest file straight to its termination log). Only from a container that
 * exited 0, and only a bare digest.
 */
function reportedDigest(pod: KubeObject): string | undefined {
  for (const name of [DIGEST_CONTAINER, "build"]) {
    const step = terminated(pod, name);
    const digest = step?.exitCode === 0 ? step.message.trim() : undefined;
    if (digest && DIGEST_PATTERN.test(digest)) return digest;
  }
  return undefined;
}

function podWaiting(pod: KubeObject): string | undefined {
  const problems: string[] = [];
  for (const c of [...statuses(pod, "initContainerStatuses"), ...statuses(pod, "containerStatuses")]) {
    const w = c?.state?.waiting;
    if (!w || typeof w.reason !== "string" || BENIGN_WAITING.has(w.reason)) continue;
    const detail = typeof w.message === "string" && w.message ? `: ${summarizeTerminationMessage(w.message)}` : "";
    problems.push(`${String(c.name)}: ${w.reason}${detail}`);
  }
  return problems.length ? problems.join("; ").slice(0, MAX_MESSAGE) : undefined;
}

/**
 * The observed Pods of one Job, oldest first: Pods with the Job's job-name label that the Job
 * controls (controller ownerReference with the Job's uid). The label alone is not enough: anyone
 * who can create Pods in the namespace could otherwise choose the digest the Deployment runs.
 */
export function podsOfJob(job: KubeObject, pods: KubeObject[]): KubeObject[] {
  const jobName = job.metadata.name;
  const uid = job.metadata.uid;
  if (!uid) return [];
  const ownedByJob = (p: KubeObject) =>
    (p.metadata.ownerReferences ?? []).some(
      (o) => o.controller === true && o.kind === "Job" && o.uid === uid && o.name === jobName,
    );
  return pods
    .filter((p) => JOB_NAME_LABELS.some((l) => p.metadata.labels?.[l] === jobName) && ownedByJob(p))
    .sort((a, b) => {
      const ta = a.metadata.creationTimestamp ?? "";
      const tb = b.metadata.creationTimestamp ?? "";
      return ta < tb ? -1 : ta > tb ? 1 : a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;
    });
}

/**
 * Reads what the Pods of one build Job report. Values are only taken when they match their
 * patterns ({@link COMMIT_SHA_PATTERN}, {@link DIGEST_PATTERN}); the newest Pod wins.
 */
export function readBuildPods(job: KubeObject, pods: KubeObject[]): PodFindings {
  const findings: PodFindings = {};
  for (const pod of podsOfJob(job, pods)) {
    const prepare = terminated(pod, "prepare");
    const sha = prepare?.exitCode === 0 ? prepare.message.trim() : undefined;
    if (sha && COMMIT_SHA_PATTERN.test(sha)) findings.commitSHA = sha;
    const digest = reportedDigest(pod);
    if (digest) findings.digest = digest;
    const failure = podFailure(pod);
    if (failure) findings.failure = failure;
    const waiting = podWaiting(pod);
    if (waiting) findings.waiting = waiting;
    else delete findings.waiting;
  }
  return findings;
}
