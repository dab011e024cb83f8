/**
 * The build record of the current build hash (`status.currentBuild`): created, carried forward
 * from the previous status, recovered from an observed Deployment when status was lost, and
 * folded with what the observed Job and its Pods report.
 *
 * @packageDocumentation
 */
import type { KubeObject } from "../../metacontroller/contract.ts";
import type { NormalizedSpec } from "./validate.ts";
import type { BuildRecord, SuccessfulBuild } from "./schema.ts";
import { ANNOTATION_BUILD_HASH, ANNOTATION_BUILD_JOB } from "./naming.ts";
import { DIGEST_PATTERN, readBuildPods, type ObservedBuildJob } from "./build-state.ts";
import { imageRefFor, observedAppImage, type DeployedBuild } from "./deployment.ts";
import { BuildReason } from "./reasons.ts";

/** Build phases after which a build record no longer changes. */
export const TERMINAL = new Set(["Succeeded", "Failed"]);

/** A fresh record for a build Job about to be created. */
export function newRecord(jobName: string, hash: string, generation: number | undefined, spec: NormalizedSpec): BuildRecord {
  return {
    name: jobName,
    buildHash: hash,
    ...(generation !== undefined ? { generation } : {}),
    revision: spec.git.revision || "HEAD",
    image: spec.output.image,
    phase: "Pending",
    reason: BuildReason.Pending,
    message: `build Job ${jobName} is being created`,
  };
}

/**
 * Folds the observed Job of the current build hash and its Pods into the build record. Values learned earlier (SHA, digest, a specific failure reason) are kept when the Pods
 * are gone.
 */
export function foldCurrentBuild(
  previous: BuildRecord,
  observed: ObservedBuildJob | undefined,
  pods: KubeObject[],
  spec: NormalizedSpec,
): BuildRecord {
  const record: BuildRecord = { ...previous };
  if (!observed) {
    if (TERMINAL.has(record.phase)) return record;
    if (spec.suspend) {
      return { ...record, phase: "Cancelled", reason: BuildReason.Cancelled, message: "spec.suspend is true: the build is cancelled and no new build starts" };
    }
    return { ...record, phase: "Pending", reason: BuildReason.Pending, message: `build Job ${record.name} is being created` };
  }
  const findings = readBuildPods(observed.job, pods);
  if (findings.commitSHA) record.commitSHA = findings.commitSHA;
  if (findings.digest) record.digest = findings.digest;
  if (observed.startTime) record.startTime = observed.startTime;
  switch (observed.state) {
    case "Succeeded": {
      record.phase = "Succeeded";
      record.reason = BuildReason.Succeeded;
      if (observed.finishTime) record.completionTime = observed.finishTime;
      const at = record.commitSHA ? ` at commit ${record.commitSHA}` : "";
      record.message = `built and pushed ${spec.output.image}${at}${record.digest ? ` (${record.digest})` : ""}`;
      return record;
    }
    case "Failed": {
      const hadSpecificFailure = previous.phase === "Failed" && previous.reason !== undefined && previous.reason !== BuildReason.BuildFailed;
      let reason: string;
      let message: string;
      if (observed.failedReason === "DeadlineExceeded") {
        reason = BuildReason.DeadlineExceeded;
        const why = findings.failure?.message ?? findings.waiting;
        message = `the build did not finish within spec.build.timeout (${spec.build.timeoutSeconds}s)${why ? `; ${why}` : ""}`;
      } else if (findings.failure) {
        reason = findings.failure.reason;
        message = findings.failure.message;
      } else if (hadSpecificFailure) {
        reason = previous.reason!;
        message = previous.message ?? "";
      } else if (observed.failedReason === "BackoffLimitExceeded") {
        reason = BuildReason.BackoffLimitExceeded;
        message = `the build failed ${spec.build.retries + 1} time(s)${findings.waiting ? `; ${findings.waiting}` : ""}`;
      } else {
        reason = BuildReason.BuildFailed;
        message = `build Job ${observed.name} failed${observed.failedReason ? ` (${observed.failedReason})` : ""}${findings.waiting ? `; ${findings.waiting}` : ""}`;
      }
      record.phase = "Failed";
      record.reason = reason;
      record.message = message;
      if (observed.finishTime) record.completionTime = observed.finishTime;
      return record;
    }
    default: {
      if (spec.suspend) {
        return { ...record, phase: "Cancelled", reason: BuildReason.Cancelled, message: "spec.suspend is true: the running build is cancelled" };
      }
      if (observed.beingDeleted) {
        return { ...record, phase: "Pending", reason: BuildReason.Pending, message: `build Job ${observed.name} is being deleted; it is created again once gone` };
      }
      const phase = observed.state === "Running" ? "Running" : "Pending";
      record.phase = phase;
      record.reason = phase === "Running" ? BuildReason.Running : BuildReason.Pending;
      record.message = findings.waiting ?? `build Job ${observed.name} is ${phase === "Running" ? "running" : "starting"}`;
      return record;
    }
  }
}

/** The deployed build recovered from an observed Deployment when status was lost (a lost status never removes a running app). */
export function deployedFromObserved(deployment: KubeObject | undefined): DeployedBuild | undefined {
  if (!deployment) return undefined;
  const image = observedAppImage(deployment);
  if (!image) return undefined;
  const annotations = deployment.metadata.annotations ?? {};
  return { name: annotations[ANNOTATION_BUILD_JOB] ?? "", buildHash: annotations[ANNOTATION_BUILD_HASH] ?? "", imageRef: image };
}

/** `status.lastSuccessfulBuild` for a succeeded build record: the build to deploy. */
export function successfulBuildOf(record: BuildRecord, spec: NormalizedSpec): SuccessfulBuild {
  const success: SuccessfulBuild = { name: record.name, buildHash: record.buildHash, imageRef: imageRefFor(spec, record.buildHash, record.digest) };
  if (record.commitSHA) success.commitSHA = record.commitSHA;
  if (record.digest) success.digest = record.digest;
  if (record.completionTime) success.completionTime = record.completionTime;
  return success;
}

/**
 * The digest of build `hash` as the observed Deployment runs it (`<repository>@sha256:…` with our
 * build-hash annotation): recovers what a lost status knew, so no needless rollout to the tag.
 */
export function digestFromDeployment(deployment: KubeObject | undefined, hash: string, spec: NormalizedSpec): string | undefined {
  if (!deployment || deployment.metadata.annotations?.[ANNOTATION_BUILD_HASH] !== hash) return undefined;
  const image = observedAppImage(deployment);
  const prefix = `${spec.output.repository}@`;
  if (!image?.startsWith(prefix)) return undefined;
  const digest = image.slice(prefix.length);
  return DIGEST_PATTERN.test(digest) ? digest : undefined;
}

/**
 * When status was lost and the current build's Job is gone, an observed Deployment annotated with
 * the current build hash proves that build succeeded: it is not built again.
 */
export function recoverRecordFromDeployment(
  deployment: KubeObject | undefined,
  jobName: string,
  hash: string,
  spec: NormalizedSpec,
): BuildRecord | undefined {
  if (!deployment || deployment.metadata.annotations?.[ANNOTATION_BUILD_HASH] !== hash) return undefined;
  const record: BuildRecord = {
    name: jobName,
    buildHash: hash,
    revision: spec.git.revision || "HEAD",
    image: spec.output.image,
    phase: "Succeeded",
    reason: BuildReason.Succeeded,
    message: `recovered from Deployment ${deployment.metadata.name}: this build already succeeded`,
  };
  const digest = digestFromDeployment(deployment, hash, spec);
  if (digest) record.digest = digest;
  return record;
}


/** A succeeded build record rebuilt from `lastSuccessfulBuild` (the latest commit is the deployed one). */
export function recordFromLastSuccessful(last: SuccessfulBuild, spec: NormalizedSpec): BuildRecord {
  const record: BuildRecord = {
    name: last.name,
    buildHash: last.buildHash,
    revision: spec.git.revision || "HEAD",
    image: spec.output.image,
    phase: "Succeeded",
    reason: BuildReason.Succeeded,
    message: `the latest commit is the one last built successfully (${last.imageRef})`,
  };
  if (last.commitSHA) record.commitSHA = last.commitSHA;
  if (last.digest) record.digest = last.digest;
  if (last.completionTime) record.completionTime = last.completionTime;
  return record;
}
