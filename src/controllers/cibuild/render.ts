/**
 * Step 3 of the CIBuild sync hook: write the plan down as the answer — the desired children
 * (probe Jobs, the build Job, the Deployment and Service, the retained Jobs) and the whole
 * status with its conditions. Nothing is decided here: the phase, the build Job's fate and the
 * Deployment wanted come from the plan's variant.
 *
 * @packageDocumentation
 */
import type { KubeObject } from "../../metacontroller/contract.ts";
import type { HookResult } from "../types.ts";
import type { ConditionInput } from "../../kube/conditions.ts";
import { reemitObserved, sortChildren } from "../../kube/objects.ts";
import type { CIBuildOptions } from "./options.ts";
import type { CIBuildStatus } from "./schema.ts";
import { buildJob } from "./build-job.ts";
import { deploymentFor } from "./deployment.ts";
import { serviceFor } from "./service.ts";
import { buildCondition, deploymentStatusOf, finishConditions, orderStatus, replaceConditions } from "./status.ts";
import { BuildReason, ConditionType, DeployReason, REASON_VALID } from "./reasons.ts";
import { upToDateCondition } from "./triggers.ts";
import type { CIBuildPlan, DeploymentPlan, InvalidPlan, ValidPlan } from "./plan.ts";
import type { ObservedCIBuild } from "./observe.ts";

/** Renders the answer of a plan. */
export function renderSync(observed: ObservedCIBuild, plan: CIBuildPlan, now: Date, options: CIBuildOptions): HookResult {
  return plan.kind === "Invalid" ? renderInvalid(observed, plan, now) : renderValid(observed, plan, now, options);
}

/**
 * Answer for an invalid spec: every observed child re-emitted unchanged (never destroy on doubt) — nothing is
 * created, updated or deleted — and the previous status carried forward with `phase: Invalid`,
 * `SpecValid=False` and `Ready=False` with the first problem's reason.
 */
function renderInvalid(observed: ObservedCIBuild, plan: InvalidPlan, now: Date): HookResult {
  const { previous, children: kids } = observed;
  const generation = observed.parent.metadata.generation;
  const problems = plan.problems;
  const first = problems[0]!;
  const message = problems.length > 1 ? `${first.message} (and ${problems.length - 1} more problem(s): ${problems.slice(1, 4).map((p) => p.reason).join(", ")})` : first.message;
  const children = [...kids.jobs, ...kids.deployments, ...kids.services].map(reemitObserved);
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
    decisions: plan.decisions,
    invalidReason: plan.invalidReason,
  };
}

/**
 * Answer for a valid spec. The children: the poll probes, the build Job unless the plan leaves it
 * out, the Deployment and Service when a rollout is wanted, the Jobs retention keeps. The status:
 * the plan's phase, `SpecValid`, `BuildSucceeded` from the record, `Deployed` from the
 * Deployment plan, `Ready` as the variant says, and `UpToDate` with triggers.
 */
function renderValid(observed: ObservedCIBuild, plan: ValidPlan, now: Date, options: CIBuildOptions): HookResult {
  const { spec, record, deployment, choice } = plan;
  const parentName = observed.parent.metadata.name;
  const generation = observed.parent.metadata.generation;

  const children: KubeObject[] = [...plan.probeChildren];
  if (plan.job !== "none") children.push(buildJob({ parentName, buildHash: plan.hash, spec, options, ...(choice.commit ? { commit: choice.commit } : {}) }));
  if (deployment.kind === "Rollout") {
    children.push(deploymentFor({ parentName, spec, build: deployment.build }));
    const service = serviceFor(parentName, spec);
    if (service) children.push(service);
  }
  for (const kept of plan.keptJobs) children.push(reemitObserved(kept.job));

  const deployed = deployedCondition(deployment);
  const build = buildCondition(record);
  const { ready, message } = readyOf(plan, build, deployed);
  const conditions = finishConditions(
    observed.previous.conditions,
    [
      { type: ConditionType.SpecValid, status: "True", reason: REASON_VALID, message: "the spec is valid" },
      build,
      deployed,
      { type: ConditionType.Ready, ...ready },
      ...(plan.triggers ? [upToDateCondition({ spec, latest: plan.triggers.latest, choice, record, created: plan.job === "create", probe: plan.triggers.probe })] : []),
    ],
    generation,
    now,
  );
  const status: CIBuildStatus = { phase: plan.phase, message, buildHash: plan.hash, conditions, currentBuild: record };
  if (generation !== undefined) status.observedGeneration = generation;
  if (plan.lastSuccessful) status.lastSuccessfulBuild = plan.lastSuccessful;
  if (plan.observedDeployment) status.deployment = deploymentStatusOf(plan.observedDeployment);
  if (plan.triggers?.latest) status.latestCommit = plan.triggers.latest;
  const response: HookResult["response"] = { status: orderStatus(status), children: sortChildren(children) };
  if (plan.resyncAfterSeconds !== undefined) response.resyncAfterSeconds = plan.resyncAfterSeconds;
  return { response, decisions: plan.decisions };
}

/** A condition's status, reason and message (type and times are added around it). */
type ConditionBody = Pick<ConditionInput, "status" | "reason" | "message">;

/** The `Deployed` condition of a Deployment plan. */
function deployedCondition(deployment: DeploymentPlan): { type: typeof ConditionType.Deployed } & ConditionBody {
  switch (deployment.kind) {
    case "Disabled":
      return { type: ConditionType.Deployed, status: "False", reason: DeployReason.Disabled, message: "spec.deploy.enabled is false: the image is built, not run" };
    case "NoImage":
      return { type: ConditionType.Deployed, status: "Unknown", reason: DeployReason.WaitingForBuild, message: "no image has been built yet" };
    case "Rollout":
      return { type: ConditionType.Deployed, ...deployment.rollout };
  }
}

/**
 * `Ready` and `status.message` of each variant: what runs (or was built) when done; else what
 * holds it up — the build while it is not a success, the rollout once it is.
 */
function readyOf(plan: ValidPlan, build: ConditionBody, deployed: ConditionBody): { ready: ConditionBody; message: string } {
  switch (plan.kind) {
    case "Ready": {
      const message = `running ${plan.deployment.build.imageRef}`;
      return { ready: { status: "True", reason: DeployReason.Available, message }, message };
    }
    case "Succeeded": {
      const message = `built ${plan.lastSuccessful.imageRef}`;
      return { ready: { status: "True", reason: BuildReason.Succeeded, message }, message };
    }
    case "Deploying":
    case "RolloutFailed":
      return { ready: { status: "False", reason: deployed.reason, message: deployed.message }, message: deployed.message };
    case "Held":
    case "Pending":
    case "Building":
    case "Suspended":
    case "BuildFailed":
      return { ready: { status: "False", reason: build.reason, message: build.message }, message: plan.record.message ?? "" };
  }
}
