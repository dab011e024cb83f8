/**
 * Step 2 of the CIBuild sync hook: decide (docs/cibuild.md, "Sync, step by step"). Turns an
 * {@link ObservedCIBuild} into a {@link CIBuildPlan}: the spec problems, or the triggers' choice
 * of build, the build record, the Job wanted, the build to deploy, retention and the phase. The
 * phase is decided here and nowhere else; {@link renderSync} only writes it down.
 *
 * @packageDocumentation
 */
import type { KubeObject } from "../../metacontroller/contract.ts";
import type { Decision, SpecProblem } from "../types.ts";
import { nestingProblem } from "../../kube/nesting.ts";
import { isBeingDeleted } from "../../kube/jobs.ts";
import { checkSpec, type NormalizedSpec } from "./validate.ts";
import type { CIBuildOptions } from "./options.ts";
import type { BuildRecord, LatestCommit, Phase, SuccessfulBuild } from "./schema.ts";
import { buildJobName, childNames, computeBuildHash, type ChildNames } from "./naming.ts";
import type { ObservedBuildJob } from "./build-state.ts";
import { imageRefFor, observedAppImage } from "./deployment.ts";
import { retainJobs, type RetentionResult } from "./retention.ts";
import { rolloutState, type RolloutState } from "./status.ts";
import { BuildReason, DeployReason } from "./reasons.ts";
import { planProbes, probeKey, readProbe, type ObservedProbe } from "./probe-job.ts";
import { chooseBuild, latestCommit, readPushAnnotation, type BuildChoice } from "./triggers.ts";
import { trackedRevision } from "./git-url.ts";
import { DIGEST_GRACE_SECONDS, DIGEST_WAIT_RESYNC_SECONDS, digestWaitSeconds } from "./digest-wait.ts";
import {
  TERMINAL,
  deployedFromObserved,
  digestFromDeployment,
  foldCurrentBuild,
  newRecord,
  recordFromLastSuccessful,
  recoverRecordFromDeployment,
} from "./build-record.ts";
import type { ObservedCIBuild } from "./observe.ts";

/** Seconds added to `resyncAfterSeconds` so the wake-up lands just inside the next poll slot. */
const RESYNC_PAD_SECONDS = 0.1;

/**
 * The spec is invalid (or nested too deep to read): every observed child is kept unchanged and
 * the first problem's reason is reported — and counted by `metahooks_parents_invalid_total`.
 */
export interface InvalidPlan {
  kind: "Invalid";
  problems: SpecProblem[];
  invalidReason: string;
  decisions: Decision[];
}

/** A valid spec: what to build, what to deploy, what to keep, and the phase that results. */
export interface ValidPlan {
  kind: "Valid";
  /** The overall phase, decided once here. */
  phase: Phase;
  spec: NormalizedSpec;
  names: ChildNames;
  /** The current build hash and its Job's name. */
  hash: string;
  jobName: string;
  /** The triggers' choice of build (the plain spec hash without triggers). */
  choice: BuildChoice;
  /** The current build's record, `status.currentBuild`. */
  record: BuildRecord;
  /** The current build Job is desired (created when not observed). */
  wantJob: boolean;
  /** The build Job was not observed and is created by this answer. */
  createsJob: boolean;
  /** Poll probe Jobs to keep or create (only with `spec.triggers`). */
  probeChildren: KubeObject[];
  /** The latest commit seen (only with `spec.triggers`) and the probe that last answered. */
  latest?: LatestCommit;
  probe?: ObservedProbe;
  lastSuccessful?: SuccessfulBuild;
  /** The build the Deployment runs: the last success, else the observed Deployment's image. */
  deployed?: Pick<SuccessfulBuild, "name" | "buildHash" | "imageRef">;
  /** Set iff the Deployment is desired. */
  rollout?: RolloutState;
  observedDeployment?: KubeObject;
  retention: RetentionResult;
  resyncAfterSeconds?: number;
  decisions: Decision[];
}

/** What the sync hook does, decided. */
export type CIBuildPlan = InvalidPlan | ValidPlan;

function invalidPlan(problems: SpecProblem[]): InvalidPlan {
  const reason = problems[0]!.reason;
  return { kind: "Invalid", problems, invalidReason: reason, decisions: [{ action: "keep", reason }] };
}

/**
 * Decides one sync.
 *
 * @param now - this call's clock: poll slots and the digest grace are measured with it
 * @param options - the build images
 */
export function planSync(observed: ObservedCIBuild, now: Date, options: CIBuildOptions): CIBuildPlan {
  const { parent, previous, pods, buildJobs: jobs, probeJobs } = observed;
  const parentName = parent.metadata.name;
  const generation = parent.metadata.generation;
  // Measured before anything reads the spec: the build hash and normalisation recurse over the
  // spec, and past this bound nothing in it is looked at.
  const tooDeep = nestingProblem(parent);
  if (tooDeep) return invalidPlan([tooDeep]);
  const check = checkSpec(parent.spec);
  if (!check.valid) return invalidPlan(check.problems);
  const spec = check.spec;

  const names = childNames(parentName);
  const decisions: Decision[] = [];
  const probeChildren: KubeObject[] = [];

  // Triggers: the latest seen commit chooses the build (its commit enters the build hash).
  let choice: BuildChoice = { hash: computeBuildHash(parent.spec) };
  let latest: LatestCommit | undefined;
  let probe: ObservedProbe | undefined;
  let resyncAfterSeconds: number | undefined;
  if (spec.triggers || probeJobs.length > 0) {
    const probes = planProbes({
      probes: probeJobs.map((j) => readProbe(j, pods)),
      key: probeKey(spec),
      active: spec.triggers?.pollIntervalSeconds !== undefined && !spec.suspend,
      now,
      seed: parent.metadata.uid ?? parentName,
      parentName,
      spec,
      options,
    });
    probeChildren.push(...(spec.triggers ? probes.children : []));
    if (probes.created) decisions.push({ action: "create", object: probes.created, reason: "Poll" });
    for (const name of spec.triggers ? probes.dropped : probeJobs.filter((j) => !isBeingDeleted(j)).map((j) => j.metadata.name)) {
      decisions.push({ action: "delete", object: name, reason: spec.triggers ? "ProbeSuperseded" : "PollDisabled" });
    }
    if (probes.nextInSeconds !== undefined) resyncAfterSeconds = Math.round((probes.nextInSeconds + RESYNC_PAD_SECONDS) * 1000) / 1000;
    if (spec.triggers) {
      probe = probes.latest;
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

  // The current build: carried, recovered or fresh, folded with its observed Job and Pods.
  const currentJob: ObservedBuildJob | undefined = jobs.find((j) => j.name === jobName);
  const observedDeployment = observed.children.deployments.find((d) => d.metadata.name === names.deployment);
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
  const createsJob = wantJob && !currentJob;
  if (createsJob) {
    decisions.push({ action: "create", object: jobName, reason: choice.commit ? "NewCommit" : "NewBuild" });
  } else if (!wantJob && currentJob && !currentJob.beingDeleted && record.phase === "Cancelled") {
    decisions.push({ action: "delete", object: jobName, reason: "Suspended" });
  } else if (!wantJob && !currentJob && TERMINAL.has(record.phase)) {
    // A finished build whose Job is gone (TTL, retention, a human) is final; it is never built
    // again, or deleting an old Job would silently redeploy a fresh build of a moving branch.
    decisions.push({ action: "skip", object: jobName, reason: "BuildFinished" });
  }

  // A success becomes the deployed build.
  let lastSuccessful = previous.lastSuccessfulBuild;
  if (record.phase === "Succeeded") {
    lastSuccessful = { name: record.name, buildHash: hash, imageRef: imageRefFor(spec, hash, record.digest) };
    if (record.commitSHA) lastSuccessful.commitSHA = record.commitSHA;
    if (record.digest) lastSuccessful.digest = record.digest;
    if (record.completionTime) lastSuccessful.completionTime = record.completionTime;
  }

  // The Deployment and Service. Never drop a Deployment only because status was lost.
  const deployed = lastSuccessful ?? deployedFromObserved(observedDeployment);
  let rollout: RolloutState | undefined;
  if (spec.deploy.enabled && deployed) {
    const observedImage = observedDeployment ? observedAppImage(observedDeployment) : undefined;
    if (observedImage !== deployed.imageRef) {
      decisions.push({ action: observedDeployment ? "update" : "create", object: names.deployment, reason: "Deploy" });
    }
    rollout = rolloutState(observedDeployment, deployed.imageRef, spec.deploy.replicas);
  } else if (!spec.deploy.enabled && observedDeployment) {
    decisions.push({ action: "delete", object: names.deployment, reason: "DeployDisabled" });
  }

  // Retention of the other Jobs.
  const retention = retainJobs(
    jobs.filter((j) => j.name !== jobName),
    lastSuccessful?.name,
    spec.retention,
    spec.suspend,
  );
  for (const dropped of retention.drop) {
    if (dropped.reason !== "Deleting") decisions.push({ action: "delete", object: dropped.job.name, reason: dropped.reason });
  }

  const deployedIsCurrent = record.phase === "Succeeded" && deployed?.imageRef === lastSuccessful?.imageRef && lastSuccessful?.buildHash === hash;
  const plan: ValidPlan = {
    kind: "Valid",
    phase: phaseOf({ build: record, deployEnabled: spec.deploy.enabled, rollout, deployedIsCurrent }),
    spec,
    names,
    hash,
    jobName,
    choice,
    record,
    wantJob,
    createsJob,
    probeChildren,
    retention,
    decisions,
  };
  if (latest) plan.latest = latest;
  if (probe) plan.probe = probe;
  if (lastSuccessful) plan.lastSuccessful = lastSuccessful;
  if (deployed) plan.deployed = deployed;
  if (rollout) plan.rollout = rollout;
  if (observedDeployment) plan.observedDeployment = observedDeployment;
  if (resyncAfterSeconds !== undefined && resyncAfterSeconds > 0) plan.resyncAfterSeconds = resyncAfterSeconds;
  return plan;
}

/**
 * The overall phase: the build's state first (a cancelled build means `spec.suspend`), then the
 * rollout of the current build's image.
 * @param input.deployedIsCurrent - the Deployment is meant to run the current build's image
 */
export function phaseOf(input: { build: BuildRecord; deployEnabled: boolean; rollout: RolloutState | undefined; deployedIsCurrent: boolean }): Phase {
  const { build, rollout } = input;
  if (build.phase === "Cancelled") return "Suspended";
  if (build.phase === "Failed") return "Failed";
  if (build.phase === "Pending") return "Pending";
  if (build.phase === "Running") return "Building";
  if (!input.deployEnabled) return "Succeeded";
  if (rollout?.reason === DeployReason.ProgressDeadlineExceeded && input.deployedIsCurrent) return "Failed";
  if (rollout?.status === "True" && input.deployedIsCurrent) return "Ready";
  return "Deploying";
}
