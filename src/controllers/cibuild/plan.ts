/**
 * Step 2 of the CIBuild sync hook: decide (docs/cibuild.md, "Sync, step by step"). Turns an
 * {@link ObservedCIBuild} into a {@link CIBuildPlan}: the spec problems, or one variant per
 * overall phase with exactly what that phase renders — the build Job's fate, the Deployment
 * wanted, the deployed build, retention. The variant (and so the phase) is chosen in
 * {@link decidePhase} and nowhere else; {@link renderSync} only writes it down.
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
import { buildJobName, childNames, computeBuildHash } from "./naming.ts";
import type { ObservedBuildJob } from "./build-state.ts";
import { imageRefFor, observedAppImage, type DeployedBuild } from "./deployment.ts";
import { retainJobs } from "./retention.ts";
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
  successfulBuildOf,
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

/** `deploy.enabled` is false: no Deployment or Service (an observed one is deleted). */
export interface DeploymentDisabled {
  kind: "Disabled";
}

/** `deploy.enabled`, but no build has succeeded and no Deployment is observed: nothing to run yet. */
export interface DeploymentNoImage {
  kind: "NoImage";
}

/** The Deployment (and the Service with `deploy.port`) is desired, running `build`. */
export interface DeploymentRollout {
  kind: "Rollout";
  /** The build the Deployment runs: the last success, else the observed Deployment's image. */
  build: DeployedBuild;
  /** The observed Deployment's progress towards `build.imageRef` (the `Deployed` condition). */
  rollout: RolloutState;
}

/** What is wanted of the app Deployment. */
export type DeploymentPlan = DeploymentDisabled | DeploymentNoImage | DeploymentRollout;

/** What the triggers saw; only with `spec.triggers`. */
export interface TriggerState {
  /** The latest commit seen on the tracked ref (`status.latestCommit`), if any. */
  latest: LatestCommit | undefined;
  /** The probe that answered last, if any. */
  probe: ObservedProbe | undefined;
}

/**
 * The current build's Job: built from the spec and `create`d (not observed) or `keep`t as
 * desired, or left out (`none`: Metacontroller deletes an observed one).
 */
export type BuildJobAction = "create" | "keep" | "none";

/** What every plan of a valid spec carries; each variant narrows `phase`, `job` and what it deploys. */
interface ValidPlanBase {
  /** `status.phase`. */
  phase: Phase;
  job: BuildJobAction;
  /** The spec with its defaults applied. */
  spec: NormalizedSpec;
  /** The current build hash: the build Job's name suffix and `status.buildHash`. */
  hash: string;
  /** The triggers' choice of build (the plain spec hash without triggers). */
  choice: BuildChoice;
  /** The current build's record, `status.currentBuild`. */
  record: BuildRecord;
  /** Poll probe Jobs to keep or create (none without `spec.triggers`). */
  probeChildren: KubeObject[];
  /** The other build Jobs retention keeps, re-emitted as observed. */
  keptJobs: ObservedBuildJob[];
  /** The observed Deployment, reported in `status.deployment`. */
  observedDeployment: KubeObject | undefined;
  /** Set iff `spec.triggers` is. */
  triggers: TriggerState | undefined;
  /** Seconds until the next poll slot or digest check (> 0); unset when no wake-up is needed. */
  resyncAfterSeconds: number | undefined;
  /** What this answer creates, updates, deletes or skips, in the order decided (logs, `explain`). */
  decisions: Decision[];
}

/** The current build has not succeeded: a Deployment, if any, runs an earlier build. */
interface UnbuiltPlanBase extends ValidPlanBase {
  /** `status.lastSuccessfulBuild` as the previous status had it. */
  lastSuccessful: SuccessfulBuild | undefined;
  /** Disabled, nothing to run yet, or an earlier build kept running. */
  deployment: DeploymentPlan;
}

/** `Pending` with no build Job: polling, and no commit is seen yet; the first poll tells what to build. */
export interface HeldPlan extends UnbuiltPlanBase {
  kind: "Held";
  phase: "Pending";
  job: "none";
}

/** `Pending`: the build Job is created by this answer, or observed but not started (or being deleted, to be created again). */
export interface PendingPlan extends UnbuiltPlanBase {
  kind: "Pending";
  phase: "Pending";
  job: "create" | "keep";
}

/**
 * `Building`: the build Job is observed running — or it succeeded and its Pod's digest is
 * awaited (the record's reason is `WaitingForDigest`), so nothing new is deployed yet.
 */
export interface BuildingPlan extends UnbuiltPlanBase {
  kind: "Building";
  phase: "Building";
  job: "keep";
}

/** `Suspended`: `spec.suspend` cancels the build; its Job is left out. */
export interface SuspendedPlan extends UnbuiltPlanBase {
  kind: "Suspended";
  phase: "Suspended";
  job: "none";
}

/** `Failed`: the build failed; its Job is kept while observed and never created again. */
export interface BuildFailedPlan extends UnbuiltPlanBase {
  kind: "BuildFailed";
  phase: "Failed";
  job: "keep" | "none";
}

/**
 * The current build succeeded: it is `status.lastSuccessfulBuild` and the build to deploy. Its
 * Job is kept while observed and never created again.
 */
interface BuiltPlanBase extends ValidPlanBase {
  /** The current build, as `status.lastSuccessfulBuild`. */
  lastSuccessful: SuccessfulBuild;
  job: "keep" | "none";
}

/** `Succeeded`: built, and nothing to run (`deploy.enabled` is false). */
export interface SucceededPlan extends BuiltPlanBase {
  kind: "Succeeded";
  phase: "Succeeded";
  deployment: DeploymentDisabled;
}

/** `Deploying`: the Deployment is rolling out the current build. */
export interface DeployingPlan extends BuiltPlanBase {
  kind: "Deploying";
  phase: "Deploying";
  deployment: DeploymentRollout;
}

/** `Ready`: the Deployment has rolled out the current build. */
export interface ReadyPlan extends BuiltPlanBase {
  kind: "Ready";
  phase: "Ready";
  deployment: DeploymentRollout;
}

/** `Failed`: the Deployment of the current build exceeded its progress deadline. */
export interface RolloutFailedPlan extends BuiltPlanBase {
  kind: "RolloutFailed";
  phase: "Failed";
  deployment: DeploymentRollout;
}

/** A valid spec: one variant per case the answer distinguishes, `phase` being `status.phase`. */
export type ValidPlan =
  | HeldPlan
  | PendingPlan
  | BuildingPlan
  | SuspendedPlan
  | BuildFailedPlan
  | SucceededPlan
  | DeployingPlan
  | ReadyPlan
  | RolloutFailedPlan;

/** What the sync hook does, decided. */
export type CIBuildPlan = InvalidPlan | ValidPlan;

function invalidPlan(problems: SpecProblem[]): InvalidPlan {
  const reason = problems[0]!.reason;
  return { kind: "Invalid", problems, invalidReason: reason, decisions: [{ action: "keep", reason }] };
}

/**
 * Decides one sync: the spec, the triggers' choice of build, the current build's record, the
 * phase (with the build Job's fate and the Deployment wanted), retention — in that order, each
 * step reading only what the steps before it decided.
 *
 * @param now - this call's clock: poll slots and the digest grace are measured with it
 * @param options - the build images
 */
export function planSync(observed: ObservedCIBuild, now: Date, options: CIBuildOptions): CIBuildPlan {
  const { parent, previous, buildJobs: jobs } = observed;
  // Measured before anything reads the spec: the build hash and normalisation recurse over the
  // spec, and past this bound nothing in it is looked at.
  const tooDeep = nestingProblem(parent);
  if (tooDeep) return invalidPlan([tooDeep]);
  const check = checkSpec(parent.spec);
  if (!check.valid) return invalidPlan(check.problems);
  const spec = check.spec;

  const names = childNames(parent.metadata.name);
  const polled = planTriggers(observed, spec, now, options);
  const { choice } = polled;
  const hash = choice.hash;
  const jobName = buildJobName(parent.metadata.name, hash);
  const currentJob = jobs.find((j) => j.name === jobName);
  const observedDeployment = observed.children.deployments.find((d) => d.metadata.name === names.deployment);
  const current = planCurrentBuild({ observed, spec, choice, jobName, currentJob, observedDeployment, now });
  const { record } = current;
  const outcome = decidePhase({ spec, choice, record, currentJob, previousSuccess: previous.lastSuccessfulBuild, observedDeployment });

  // Retention of the other Jobs; the deployed build's Job is always kept.
  const retention = retainJobs(
    jobs.filter((j) => j.name !== jobName),
    outcome.lastSuccessful?.name,
    spec.retention,
    spec.suspend,
  );
  const decisions: Decision[] = [...polled.decisions];
  const jobDecision = buildJobDecision(outcome, record, currentJob, jobName, choice);
  if (jobDecision) decisions.push(jobDecision);
  const deployDecision = deploymentDecision(outcome.deployment, observedDeployment, names.deployment);
  if (deployDecision) decisions.push(deployDecision);
  for (const dropped of retention.drop) {
    if (dropped.reason !== "Deleting") decisions.push({ action: "delete", object: dropped.job.name, reason: dropped.reason });
  }

  const resync =
    current.digestWakeSeconds === undefined
      ? polled.resyncAfterSeconds
      : Math.min(polled.resyncAfterSeconds ?? current.digestWakeSeconds, current.digestWakeSeconds);
  return {
    ...outcome,
    spec,
    hash,
    choice,
    record,
    probeChildren: polled.probeChildren,
    keptJobs: retention.keep,
    observedDeployment,
    triggers: polled.triggers,
    resyncAfterSeconds: resync !== undefined && resync > 0 ? resync : undefined,
    decisions,
  };
}

/** What {@link planTriggers} decides. */
interface TriggerStep {
  /** The build to work on (the plain spec hash without triggers). */
  choice: BuildChoice;
  /** Set iff `spec.triggers` is. */
  triggers: TriggerState | undefined;
  /** Poll probe Jobs to keep or create. */
  probeChildren: KubeObject[];
  /** Probe Jobs created and deleted. */
  decisions: Decision[];
  /** Seconds until just inside the next poll slot, while polling. */
  resyncAfterSeconds: number | undefined;
}

/**
 * Triggers: the poll probes (kept, created, or all deleted once polling is off), and the latest
 * seen commit, which chooses the build (its commit enters the build hash).
 */
function planTriggers(observed: ObservedCIBuild, spec: NormalizedSpec, now: Date, options: CIBuildOptions): TriggerStep {
  const { parent, previous, pods, buildJobs: jobs, probeJobs } = observed;
  const parentName = parent.metadata.name;
  const step: TriggerStep = { choice: { hash: computeBuildHash(parent.spec) }, triggers: undefined, probeChildren: [], decisions: [], resyncAfterSeconds: undefined };
  if (!spec.triggers && probeJobs.length === 0) return step;
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
  step.probeChildren.push(...(spec.triggers ? probes.children : []));
  if (probes.created) step.decisions.push({ action: "create", object: probes.created, reason: "Poll" });
  for (const name of spec.triggers ? probes.dropped : probeJobs.filter((j) => !isBeingDeleted(j)).map((j) => j.metadata.name)) {
    step.decisions.push({ action: "delete", object: name, reason: spec.triggers ? "ProbeSuperseded" : "PollDisabled" });
  }
  if (probes.nextInSeconds !== undefined) step.resyncAfterSeconds = Math.round((probes.nextInSeconds + RESYNC_PAD_SECONDS) * 1000) / 1000;
  if (spec.triggers) {
    const probe = probes.latest;
    const latest = latestCommit({ spec, carried: previous.latestCommit, push: readPushAnnotation(parent), probe });
    step.triggers = { latest, probe };
    step.choice = chooseBuild({
      rawSpec: parent.spec,
      spec,
      latest,
      current: previous.currentBuild,
      lastSuccessful: previous.lastSuccessfulBuild,
      observedHashes: new Set(jobs.flatMap((j) => (j.buildHash && !j.beingDeleted ? [j.buildHash] : []))),
    });
  }
  return step;
}

/**
 * The current build: carried, recovered or fresh, folded with its observed Job and Pods; a
 * succeeded build still waiting for its digest reads as running.
 *
 * @returns the record, and while waiting for the digest the seconds until the next check
 */
function planCurrentBuild(input: {
  observed: ObservedCIBuild;
  spec: NormalizedSpec;
  choice: BuildChoice;
  jobName: string;
  currentJob: ObservedBuildJob | undefined;
  observedDeployment: KubeObject | undefined;
  now: Date;
}): { record: BuildRecord; digestWakeSeconds: number | undefined } {
  const { observed, spec, choice, jobName, currentJob, observedDeployment } = input;
  const { previous, pods } = observed;
  const hash = choice.hash;
  const carried =
    previous.currentBuild?.buildHash === hash && previous.currentBuild.name === jobName
      ? previous.currentBuild
      : (recoverRecordFromDeployment(observedDeployment, jobName, hash, spec) ??
        (choice.fromLastSuccessful ? recordFromLastSuccessful(previous.lastSuccessfulBuild!, spec) : undefined));
  const fresh = newRecord(jobName, hash, observed.parent.metadata.generation, spec);
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
  const digestWait = record.phase === "Succeeded" && !record.digest && currentJob ? digestWaitSeconds(currentJob, pods, input.now) : undefined;
  if (digestWait === undefined) return { record, digestWakeSeconds: undefined };
  const { completionTime: _unsure, ...rest } = record;
  return {
    record: {
      ...rest,
      phase: "Running",
      reason: BuildReason.WaitingForDigest,
      message: `build Job ${jobName} succeeded; waiting for its Pod to report the pushed digest (up to ${DIGEST_GRACE_SECONDS}s after completion, then the tag is deployed)`,
    },
    digestWakeSeconds: Math.round(Math.min(DIGEST_WAIT_RESYNC_SECONDS, digestWait + RESYNC_PAD_SECONDS) * 1000) / 1000,
  };
}

/** `Pick` applied to each member of a union (a plain `Pick` would merge the members). */
type PickEach<U, K extends keyof U> = U extends unknown ? Pick<U, K> : never;

/** The part of a {@link ValidPlan} that {@link decidePhase} chooses. */
type PhaseOutcome = PickEach<ValidPlan, "kind" | "phase" | "job" | "lastSuccessful" | "deployment">;

/**
 * The overall phase, and with it what becomes of the build Job and the Deployment: the build's
 * state first (a cancelled build means `spec.suspend`), then the rollout of the current build's
 * image.
 *
 * @param input.previousSuccess - `status.lastSuccessfulBuild` of the previous answer
 */
function decidePhase(input: {
  spec: NormalizedSpec;
  choice: BuildChoice;
  record: BuildRecord;
  currentJob: ObservedBuildJob | undefined;
  previousSuccess: SuccessfulBuild | undefined;
  observedDeployment: KubeObject | undefined;
}): PhaseOutcome {
  const { spec, record, currentJob, observedDeployment } = input;
  // A finished build's Job is kept while observed; once gone it is never created again.
  const finishedJob = currentJob !== undefined && !currentJob.beingDeleted ? "keep" : "none";
  if (record.phase === "Succeeded") {
    // A success becomes the deployed build, so the rollout judged here is always the current
    // build's own.
    const success = successfulBuildOf(record, spec);
    const deployment = deploymentOf(spec, success, observedDeployment);
    const built = { job: finishedJob, lastSuccessful: success } as const;
    if (deployment.kind === "Disabled") return { kind: "Succeeded", phase: "Succeeded", ...built, deployment };
    if (deployment.rollout.reason === DeployReason.ProgressDeadlineExceeded) return { kind: "RolloutFailed", phase: "Failed", ...built, deployment };
    if (deployment.rollout.status === "True") return { kind: "Ready", phase: "Ready", ...built, deployment };
    return { kind: "Deploying", phase: "Deploying", ...built, deployment };
  }
  // Never drop a Deployment only because status was lost: its own image is deployed again.
  const deployed = input.previousSuccess ?? deployedFromObserved(observedDeployment);
  const unbuilt = { lastSuccessful: input.previousSuccess, deployment: deploymentOf(spec, deployed, observedDeployment) };
  switch (record.phase) {
    case "Cancelled":
      return { kind: "Suspended", phase: "Suspended", job: "none", ...unbuilt };
    case "Failed":
      return { kind: "BuildFailed", phase: "Failed", job: finishedJob, ...unbuilt };
    case "Pending":
      if (input.choice.hold && !currentJob) return { kind: "Held", phase: "Pending", job: "none", ...unbuilt };
      return { kind: "Pending", phase: "Pending", job: currentJob ? "keep" : "create", ...unbuilt };
    case "Running":
      // A running record always has its Job observed: running, or succeeded and awaiting the digest.
      return { kind: "Building", phase: "Building", job: "keep", ...unbuilt };
  }
}

/**
 * The Deployment wanted while `deploy.enabled`: running `deployed` when some build is known.
 * Given a build, never {@link DeploymentNoImage}.
 */
function deploymentOf(spec: NormalizedSpec, deployed: DeployedBuild, observed: KubeObject | undefined): DeploymentDisabled | DeploymentRollout;
function deploymentOf(spec: NormalizedSpec, deployed: DeployedBuild | undefined, observed: KubeObject | undefined): DeploymentPlan;
function deploymentOf(spec: NormalizedSpec, deployed: DeployedBuild | undefined, observed: KubeObject | undefined): DeploymentPlan {
  if (!spec.deploy.enabled) return { kind: "Disabled" };
  if (!deployed) return { kind: "NoImage" };
  return { kind: "Rollout", build: deployed, rollout: rolloutState(observed, deployed.imageRef, spec.deploy.replicas) };
}

/** The decision about the current build's Job, if any. */
function buildJobDecision(
  outcome: PhaseOutcome,
  record: BuildRecord,
  currentJob: ObservedBuildJob | undefined,
  jobName: string,
  choice: BuildChoice,
): Decision | undefined {
  if (outcome.job === "create") return { action: "create", object: jobName, reason: choice.commit ? "NewCommit" : "NewBuild" };
  if (outcome.kind === "Suspended" && currentJob && !currentJob.beingDeleted) return { action: "delete", object: jobName, reason: "Suspended" };
  // A finished build whose Job is gone (TTL, retention, a human) is final; it is never built
  // again, or deleting an old Job would silently redeploy a fresh build of a moving branch.
  if (!currentJob && TERMINAL.has(record.phase)) return { action: "skip", object: jobName, reason: "BuildFinished" };
  return undefined;
}

/** The decision about the Deployment, if the answer changes it. */
function deploymentDecision(deployment: DeploymentPlan, observed: KubeObject | undefined, name: string): Decision | undefined {
  switch (deployment.kind) {
    case "Rollout": {
      const observedImage = observed ? observedAppImage(observed) : undefined;
      return observedImage === deployment.build.imageRef ? undefined : { action: observed ? "update" : "create", object: name, reason: "Deploy" };
    }
    case "Disabled":
      return observed ? { action: "delete", object: name, reason: "DeployDisabled" } : undefined;
    case "NoImage":
      return undefined;
  }
}
