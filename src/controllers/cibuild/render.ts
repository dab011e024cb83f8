/**
 * Step 3 of the CIBuild sync hook: write the plan down as the answer — the desired children
 * (probe Jobs, the build Job, the Deployment and Service, the retained Jobs) and the whole
 * status with its conditions. Nothing is decided here: the phase comes from the plan.
 *
 * @packageDocumentation
 */
import type { KubeObject } from "../../metacontroller/contract.ts";
import type { HookResult } from "../types.ts";
import { reemitObserved, sortChildren } from "../../kube/objects.ts";
import type { CIBuildOptions } from "./options.ts";
import type { CIBuildStatus } from "./schema.ts";
import { buildJob } from "./build-job.ts";
import { deploymentFor } from "./deployment.ts";
import { serviceFor } from "./service.ts";
import { buildCondition, deploymentStatusOf, finishConditions, orderStatus, replaceConditions } from "./status.ts";
import { BuildReason, ConditionType, DeployReason, REASON_VALID } from "./reasons.ts";
import { upToDateCondition } from "./triggers.ts";
import type { InvalidPlan, ValidPlan, CIBuildPlan } from "./plan.ts";
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

function renderValid(observed: ObservedCIBuild, plan: ValidPlan, now: Date, options: CIBuildOptions): HookResult {
  const { spec, record, phase, rollout, deployed, lastSuccessful, choice } = plan;
  const parentName = observed.parent.metadata.name;
  const generation = observed.parent.metadata.generation;

  const children: KubeObject[] = [...plan.probeChildren];
  if (plan.wantJob) children.push(buildJob({ parentName, buildHash: plan.hash, spec, options, ...(choice.commit ? { commit: choice.commit } : {}) }));
  if (rollout && deployed) {
    children.push(deploymentFor({ parentName, spec, build: deployed }));
    const service = serviceFor(parentName, spec);
    if (service) children.push(service);
  }
  for (const kept of plan.retention.keep) children.push(reemitObserved(kept.job));

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
    observed.previous.conditions,
    [
      { type: ConditionType.SpecValid, status: "True", reason: REASON_VALID, message: "the spec is valid" },
      build,
      deployedCondition,
      { type: ConditionType.Ready, ...ready },
      ...(spec.triggers ? [upToDateCondition({ spec, latest: plan.latest, choice, record, created: plan.createsJob, probe: plan.probe })] : []),
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
    buildHash: plan.hash,
    conditions,
    currentBuild: record,
  };
  if (generation !== undefined) status.observedGeneration = generation;
  if (lastSuccessful) status.lastSuccessfulBuild = lastSuccessful;
  if (plan.observedDeployment) status.deployment = deploymentStatusOf(plan.observedDeployment);
  if (plan.latest) status.latestCommit = plan.latest;
  const response: HookResult["response"] = { status: orderStatus(status), children: sortChildren(children) };
  if (plan.resyncAfterSeconds !== undefined) response.resyncAfterSeconds = plan.resyncAfterSeconds;
  return { response, decisions: plan.decisions };
}
