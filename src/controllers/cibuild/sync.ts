/**
 * The CIBuild sync hook (docs/cibuild.md, "Sync, step by step"): stateless and deterministic.
 * From the parent, its
 * observed Jobs / Deployment / Service and the related build Pods, it returns the complete desired
 * children and the whole status.
 *
 * Path through one call: validate the spec → triggers (poll probes, the latest seen commit, the
 * build it needs) → hash → classify Jobs → fold the current build → choose the deployed image →
 * retention → status.
 *
 * @packageDocumentation
 */
import { listChildren, type KubeObject, type SyncRequest } from "../../metacontroller/contract.ts";
import type { Decision, HookResult } from "../types.ts";
import { reemitObserved, sortChildren } from "../../kube/objects.ts";
import { nestingProblem } from "../../kube/nesting.ts";
import { checkSpec, type NormalizedSpec } from "./validate.ts";
import type { CIBuildOptions } from "./options.ts";
import type { BuildRecord, CIBuildStatus, SuccessfulBuild } from "./schema.ts";
import { ANNOTATION_BUILD_HASH, ANNOTATION_BUILD_JOB, buildJobName, childNames, computeBuildHash } from "./naming.ts";
import { buildJob } from "./build-job.ts";
import { DIGEST_PATTERN, classifyJob, readBuildPods, type ObservedBuildJob } from "./build-state.ts";
import { deploymentFor, imageRefFor, observedAppImage } from "./deployment.ts";
import { serviceFor } from "./service.ts";
import { retainJobs } from "./retention.ts";
import {
  buildCondition,
  deploymentStatusOf,
  finishConditions,
  orderStatus,
  phaseOf,
  readPreviousStatus,
  replaceConditions,
  rolloutState,
  type RolloutState,
} from "./status.ts";
import { BuildReason, ConditionType, DeployReason, REASON_VALID } from "./reasons.ts";
import { isBeingDeleted } from "../../kube/jobs.ts";
import type { LatestCommit } from "./schema.ts";
import { isProbeJob, planProbes, probeKey, readProbe, type ObservedProbe } from "./probe-job.ts";
import { chooseBuild, latestCommit, readPushAnnotation, upToDateCondition, type BuildChoice } from "./triggers.ts";
import { trackedRevision } from "./git-url.ts";
import { DIGEST_GRACE_SECONDS, DIGEST_WAIT_RESYNC_SECONDS, digestWaitSeconds } from "./digest-wait.ts";

/** Seconds added to `resyncAfterSeconds` so the wake-up lands just inside the next poll slot. */
const RESYNC_PAD_SECONDS = 0.1;

import { DEPLOYMENT_GROUP, JOB_GROUP, POD_GROUP, SERVICE_GROUP } from "./resources.ts";

/** The observed children of one request, by kind. */
export interface ObservedChildren {
  jobs: KubeObject[];
  deployments: KubeObject[];
  services: KubeObject[];
}

/** Reads the observed children (any hook version's keys). */
export function observedChildren(request: SyncRequest): ObservedChildren {
  return {
    jobs: listChildren(request.children, JOB_GROUP),
    deployments: listChildren(request.children, DEPLOYMENT_GROUP),
    services: listChildren(request.children, SERVICE_GROUP),
  };
}

/**
 * Answer for an invalid spec: every observed child re-emitted unchanged (never destroy on doubt) — nothing is
 * created, updated or deleted — and the previous status carried forward with `phase: Invalid`,
 * `SpecValid=False` and `Ready=False` with the first problem's reason.
 */
function invalidAnswer(request: SyncRequest, problems: Array<{ reason: string; message: string }>, now: Date): HookResult {
  const previous = readPreviousStatus(request.parent.status);
  const generation = request.parent.metadata.generation;
  const first = problems[0]!;
  const message = problems.length > 1 ? `${first.message} (and ${problems.length - 1} more problem(s): ${problems.slice(1, 4).map((p) => p.reason).join(", ")})` : first.message;
  const observed = observedChildren(request);
  const children = [...observed.jobs, ...observed.deployments, ...observed.services].map(reemitObserved);
  const status: CIBuildStatus = {
    ...previous,
    phase: "Invalid",
    message,
    conditions: replaceConditions(
      previous.conditions,
      [
        { type: ConditionType.SpecValid, status: "False", reason: first.reason, message },
        { type: ConditionType.Ready, status: "False", reason: first.reason, message: "the spec is invalid; see SpecValid" },
      ],
      generation,
      now,
    ),
  };
  if (generation !== undefined) status.observedGeneration = generation;
  return {
    response: { status: orderStatus(status), children: sortChildren(children) },
    decisions: [{ action: "keep", reason: first.reason }],
    invalidReason: first.reason,
  };
}

function newRecord(jobName: string, hash: string, generation: number | undefined, spec: NormalizedSpec): BuildRecord {
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

const TERMINAL = new Set(["Succeeded", "Failed"]);

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
function deployedFromObserved(deployment: KubeObject | undefined): Pick<SuccessfulBuild, "name" | "buildHash" | "imageRef"> | undefined {
  if (!deployment) return undefined;
  const image = observedAppImage(deployment);
  if (!image) return undefined;
  const annotations = deployment.metadata.annotations ?? {};
  return { name: annotations[ANNOTATION_BUILD_JOB] ?? "", buildHash: annotations[ANNOTATION_BUILD_HASH] ?? "", imageRef: image };
}

/**
 * The digest of build `hash` as the observed Deployment runs it (`<repository>@sha256:…` with our
 * build-hash annotation): recovers what a lost status knew, so no needless rollout to the tag.
 */
function digestFromDeployment(deployment: KubeObject | undefined, hash: string, spec: NormalizedSpec): string | undefined {
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
function recoverRecordFromDeployment(
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

/**
 * The sync hook.
 *
 * @param request - a parsed sync request (finalizing is handled by the finalize hook)
 * @param now - this call's clock; it only appears in status as a condition's transition time
 * @param options - the build images
 */
export function syncCIBuild(request: SyncRequest, now: Date, options: CIBuildOptions): HookResult {
  const parent = request.parent;
  const parentName = parent.metadata.name;
  const generation = parent.metadata.generation;
  // Measured before anything reads the parent: the build hash and normalisation recurse over the
  // spec, and past this bound nothing in it is looked at.
  const tooDeep = nestingProblem(parent);
  if (tooDeep) return invalidAnswer(request, [tooDeep], now);
  const check = checkSpec(parent.spec);
  if (!check.valid) return invalidAnswer(request, check.problems, now);
  const spec = check.spec;

  const previous = readPreviousStatus(parent.status);
  const observed = observedChildren(request);
  const pods = listChildren(request.related, POD_GROUP);
  const names = childNames(parentName);
  const decisions: Decision[] = [];
  const children: KubeObject[] = [];

  // Poll probe Jobs live beside the build Jobs but are never builds.
  const probeJobs = observed.jobs.filter(isProbeJob);
  const jobs = observed.jobs.filter((j) => !isProbeJob(j)).map(classifyJob);

  // Triggers: the latest seen commit chooses the build (its commit enters the build hash).
  let choice: BuildChoice = { hash: computeBuildHash(parent.spec) };
  let latest: LatestCommit | undefined;
  let probe: ObservedProbe | undefined;
  let resyncAfterSeconds: number | undefined;
  if (spec.triggers || probeJobs.length > 0) {
    const plan = planProbes({
      probes: probeJobs.map((j) => readProbe(j, pods)),
      key: probeKey(spec),
      active: spec.triggers?.pollIntervalSeconds !== undefined && !spec.suspend,
      now,
      seed: parent.metadata.uid ?? parentName,
      parentName,
      spec,
      options,
    });
    children.push(...(spec.triggers ? plan.children : []));
    if (plan.created) decisions.push({ action: "create", object: plan.created, reason: "Poll" });
    for (const name of spec.triggers ? plan.dropped : probeJobs.filter((j) => !isBeingDeleted(j)).map((j) => j.metadata.name)) {
      decisions.push({ action: "delete", object: name, reason: spec.triggers ? "ProbeSuperseded" : "PollDisabled" });
    }
    if (plan.nextInSeconds !== undefined) resyncAfterSeconds = Math.round((plan.nextInSeconds + RESYNC_PAD_SECONDS) * 1000) / 1000;
    if (spec.triggers) {
      probe = plan.latest;
      latest = latestCommit({ spec, carried: previous.latestCommit, push: readPushAnnotation(parent), probe });
      choice = chooseBuild({
        rawSpec: parent.spec,
        spec,
        latest,
        current: previous.currentBuild,
        lastSuccessful: previous.lastSuccessfulBuild,
        observedHashes: new Set(jobs.flatMap((j) => (j.buildHash && !j.beingDeleted ? [j.buildHash] : []))),
      });
    }
  }
  const hash = choice.hash;
  const jobName = buildJobName(parentName, hash);

  // Steps 4-5: classify Jobs and fold the current one into the build record.
  const currentJob = jobs.find((j) => j.name === jobName);
  const observedDeployment = observed.deployments.find((d) => d.metadata.name === names.deployment);
  const carried =
    previous.currentBuild?.buildHash === hash && previous.currentBuild.name === jobName
      ? previous.currentBuild
      : (recoverRecordFromDeployment(observedDeployment, jobName, hash, spec) ??
        (choice.fromLastSuccessful ? recordFromLastSuccessful(previous.lastSuccessfulBuild!, spec) : undefined));
  const fresh = newRecord(jobName, hash, generation, spec);
  if (choice.commit) fresh.commitSHA = choice.commit;
  let record = foldCurrentBuild(carried ?? fresh, currentJob, pods, spec);
  if (choice.hold && !currentJob && record.phase === "Pending") {
    record = { ...record, message: `waiting for the first poll of ${trackedRevision(spec.git.revision)} before building` };
  }
  if (record.phase === "Succeeded" && !record.digest) {
    const digest = digestFromDeployment(observedDeployment, hash, spec);
    if (digest) record.digest = digest;
  }
  // A succeeded Job whose finished Pod is not observed yet: deploy nothing new until the digest
  // arrives (or the grace ends), so the Deployment rolls out once, straight to the digest.
  const digestWait = record.phase === "Succeeded" && !record.digest && currentJob ? digestWaitSeconds(currentJob, pods, now) : undefined;
  if (digestWait !== undefined) {
    const { completionTime: _unsure, ...rest } = record;
    record = {
      ...rest,
      phase: "Running",
      reason: BuildReason.WaitingForDigest,
      message: `build Job ${jobName} succeeded; waiting for its Pod to report the pushed digest (up to ${DIGEST_GRACE_SECONDS}s after completion, then the tag is deployed)`,
    };
    const wake = Math.round(Math.min(DIGEST_WAIT_RESYNC_SECONDS, digestWait + RESYNC_PAD_SECONDS) * 1000) / 1000;
    resyncAfterSeconds = resyncAfterSeconds === undefined ? wake : Math.min(resyncAfterSeconds, wake);
  }

  const wantJob =
    record.phase === "Pending" || record.phase === "Running"
      ? !(choice.hold && !currentJob)
      : TERMINAL.has(record.phase) && currentJob !== undefined && !currentJob.beingDeleted;
  if (wantJob) {
    children.push(buildJob({ parentName, buildHash: hash, spec, options, ...(choice.commit ? { commit: choice.commit } : {}) }));
    if (!currentJob) decisions.push({ action: "create", object: jobName, reason: choice.commit ? "NewCommit" : "NewBuild" });
  } else if (currentJob && !currentJob.beingDeleted && record.phase === "Cancelled") {
    decisions.push({ action: "delete", object: jobName, reason: "Suspended" });
  } else if (!currentJob && TERMINAL.has(record.phase)) {
    // A finished build whose Job is gone (TTL, retention, a human) is final; it is never built
    // again, or deleting an old Job would silently redeploy a fresh build of a moving branch.
    decisions.push({ action: "skip", object: jobName, reason: "BuildFinished" });
  }

  // Step 7: a success becomes the deployed build.
  let lastSuccessful = previous.lastSuccessfulBuild;
  if (record.phase === "Succeeded") {
    lastSuccessful = { name: record.name, buildHash: hash, imageRef: imageRefFor(spec, hash, record.digest) };
    if (record.commitSHA) lastSuccessful.commitSHA = record.commitSHA;
    if (record.digest) lastSuccessful.digest = record.digest;
    if (record.completionTime) lastSuccessful.completionTime = record.completionTime;
  }

  // Step 8: the Deployment and Service. Never drop a Deployment only because status was lost.
  const deployed = lastSuccessful ?? deployedFromObserved(observedDeployment);
  let rollout: RolloutState | undefined;
  if (spec.deploy.enabled && deployed) {
    const deployment = deploymentFor({ parentName, spec, build: deployed });
    children.push(deployment);
    const observedImage = observedDeployment ? observedAppImage(observedDeployment) : undefined;
    if (observedImage !== deployed.imageRef) {
      decisions.push({ action: observedDeployment ? "update" : "create", object: names.deployment, reason: "Deploy" });
    }
    const service = serviceFor(parentName, spec);
    if (service) children.push(service);
    rollout = rolloutState(observedDeployment, deployed.imageRef, spec.deploy.replicas);
  } else if (!spec.deploy.enabled && observedDeployment) {
    decisions.push({ action: "delete", object: names.deployment, reason: "DeployDisabled" });
  }

  // Step 9: retention of the other Jobs.
  const retention = retainJobs(
    jobs.filter((j) => j.name !== jobName),
    lastSuccessful?.name,
    spec.retention,
    spec.suspend,
  );
  for (const kept of retention.keep) children.push(reemitObserved(kept.job));
  for (const dropped of retention.drop) {
    if (dropped.reason !== "Deleting") decisions.push({ action: "delete", object: dropped.job.name, reason: dropped.reason });
  }

  // Step 10: status.
  const deployedIsCurrent = record.phase === "Succeeded" && deployed?.imageRef === lastSuccessful?.imageRef && lastSuccessful?.buildHash === hash;
  const phase = phaseOf({ build: record, deployEnabled: spec.deploy.enabled, rollout, deployedIsCurrent });
  const deployedCondition = !spec.deploy.enabled
    ? { type: ConditionType.Deployed, status: "False" as const, reason: DeployReason.Disabled, message: "spec.deploy.enabled is false: the image is built, not run" }
    : rollout
      ? { type: ConditionType.Deployed, ...rollout }
      : { type: ConditionType.Deployed, status: "Unknown" as const, reason: DeployReason.WaitingForBuild, message: "no image has been built yet" };
  const build = buildCondition(record);
  const ready =
    phase === "Ready"
      ? { status: "True" as const, reason: DeployReason.Available, message: `running ${deployed?.imageRef ?? ""}` }
      : phase === "Succeeded"
        ? { status: "True" as const, reason: BuildReason.Succeeded, message: `built ${lastSuccessful?.imageRef ?? ""}` }
        : build.status !== "True"
          ? { status: "False" as const, reason: build.reason, message: build.message }
          : { status: "False" as const, reason: deployedCondition.reason, message: deployedCondition.message };
  const conditions = finishConditions(
    previous.conditions,
    [
      { type: ConditionType.SpecValid, status: "True", reason: REASON_VALID, message: "the spec is valid" },
      build,
      deployedCondition,
      { type: ConditionType.Ready, ...ready },
      ...(spec.triggers ? [upToDateCondition({ spec, latest, choice, record, created: wantJob && !currentJob, probe })] : []),
    ],
    generation,
    now,
  );
  const status: CIBuildStatus = {
    phase,
    message:
      phase === "Ready" || phase === "Succeeded"
        ? ready.message
        : record.phase === "Succeeded" // Deploying, or Failed by the rollout
          ? deployedCondition.message
          : (record.message ?? ""),
    buildHash: hash,
    conditions,
    currentBuild: record,
  };
  if (generation !== undefined) status.observedGeneration = generation;
  if (lastSuccessful) status.lastSuccessfulBuild = lastSuccessful;
  if (observedDeployment) status.deployment = deploymentStatusOf(observedDeployment);
  if (latest) status.latestCommit = latest;
  const response: HookResult["response"] = { status: orderStatus(status), children: sortChildren(children) };
  if (resyncAfterSeconds !== undefined && resyncAfterSeconds > 0) response.resyncAfterSeconds = resyncAfterSeconds;
  return { response, decisions };
}

/** A succeeded build record rebuilt from `lastSuccessfulBuild` (the latest commit is the deployed one). */
function recordFromLastSuccessful(last: SuccessfulBuild, spec: NormalizedSpec): BuildRecord {
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
