/**
 * CIBuild status: reading what the previous answer wrote (Metacontroller replaces status whole,
 * so what we learned must be carried forward), the Deployment's rollout state, and the phase and
 * conditions.
 *
 * @packageDocumentation
 */
import type { KubeObject } from "../../metacontroller/contract.ts";
import { withTransitionTimes, type Condition, type ConditionInput } from "../../kube/conditions.ts";
import {
  BuildRecordSchema,
  DeploymentStatusSchema,
  SuccessfulBuildSchema,
  CIBuildStatusSchema,
  LatestCommitSchema,
  type BuildRecord,
  type CIBuildStatus,
  type DeploymentStatus,
} from "./schema.ts";
import { BuildReason, ConditionType, DeployReason } from "./reasons.ts";
import { observedAppImage } from "./deployment.ts";

/** Condition types in the order they are written. */
const CONDITION_ORDER: string[] = [ConditionType.SpecValid, ConditionType.BuildSucceeded, ConditionType.Deployed, ConditionType.Ready, ConditionType.UpToDate];

/**
 * The previous status, field by field: a malformed field is dropped, never trusted and never
 * fatal (status is user-writable through the /status subresource).
 */
export function readPreviousStatus(raw: unknown): CIBuildStatus {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return {};
  const out: Record<string, unknown> = {};
  const shape = CIBuildStatusSchema.shape;
  for (const key of Object.keys(shape) as Array<keyof typeof shape>) {
    const value = (raw as Record<string, unknown>)[key];
    if (value === undefined) continue;
    const parsed = shape[key].safeParse(value);
    if (parsed.success && parsed.data !== undefined) out[key] = parsed.data;
  }
  return out as CIBuildStatus;
}

/** The rollout state of the Deployment, as the `Deployed` condition reports it. */
export interface RolloutState {
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
}

interface DeploymentStatusLike {
  observedGeneration?: unknown;
  replicas?: unknown;
  updatedReplicas?: unknown;
  readyReplicas?: unknown;
  availableReplicas?: unknown;
  conditions?: unknown;
}

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** `status.deployment` from an observed Deployment. */
export function deploymentStatusOf(deployment: KubeObject): DeploymentStatus {
  const s = (deployment.status ?? {}) as DeploymentStatusLike;
  const out: DeploymentStatus = { name: deployment.metadata.name };
  const image = observedAppImage(deployment);
  if (image) out.image = image;
  out.replicas = num(s.replicas);
  out.updatedReplicas = num(s.updatedReplicas);
  out.readyReplicas = num(s.readyReplicas);
  out.availableReplicas = num(s.availableReplicas);
  return DeploymentStatusSchema.parse(out);
}

/**
 * Judges a rollout the way `kubectl rollout status` does: the controller saw the latest
 * generation, every replica is updated, no old replica is left, all updated replicas are
 * available — and the observed template runs `wantedImage`. `Progressing=False` with reason
 * `ProgressDeadlineExceeded` is a failure.
 *
 * @param observed - the observed Deployment, if any
 * @param wantedImage - the image the desired Deployment runs
 * @param wantedReplicas - `deploy.replicas`
 */
export function rolloutState(observed: KubeObject | undefined, wantedImage: string, wantedReplicas: number): RolloutState {
  if (!observed) return { status: "Unknown", reason: DeployReason.Progressing, message: "creating the Deployment" };
  const s = (observed.status ?? {}) as DeploymentStatusLike;
  const conditions = Array.isArray(s.conditions) ? (s.conditions as Array<Record<string, unknown>>) : [];
  const progressing = conditions.find((c) => c?.type === "Progressing");
  const name = observed.metadata.name;
  const image = observedAppImage(observed);
  const generation = observed.metadata.generation;
  const seenLatest = generation === undefined || num(s.observedGeneration) >= generation;
  if (image === wantedImage && seenLatest && progressing?.status === "False" && progressing.reason === DeployReason.ProgressDeadlineExceeded) {
    return {
      status: "False",
      reason: DeployReason.ProgressDeadlineExceeded,
      message: `Deployment ${name} exceeded its progress deadline${typeof progressing.message === "string" ? `: ${progressing.message}` : ""}`,
    };
  }
  const updated = num(s.updatedReplicas);
  const done =
    image === wantedImage &&
    seenLatest &&
    updated >= wantedReplicas &&
    num(s.replicas) <= updated &&
    num(s.availableReplicas) >= updated;
  if (done) return { status: "True", reason: DeployReason.Available, message: `Deployment ${name} runs ${wantedImage} on ${num(s.availableReplicas)} available replica(s)` };
  const detail = image !== wantedImage ? `rolling out ${wantedImage}` : `${num(s.availableReplicas)} of ${wantedReplicas} replica(s) available`;
  return { status: "Unknown", reason: DeployReason.Progressing, message: `Deployment ${name}: ${detail}` };
}

/** The `BuildSucceeded` condition of a build record. */
export function buildCondition(record: BuildRecord): Omit<ConditionInput, "observedGeneration"> {
  const message = record.message ?? "";
  switch (record.phase) {
    case "Succeeded":
      return { type: ConditionType.BuildSucceeded, status: "True", reason: BuildReason.Succeeded, message };
    case "Failed":
      return { type: ConditionType.BuildSucceeded, status: "False", reason: record.reason ?? BuildReason.BuildFailed, message };
    default:
      return { type: ConditionType.BuildSucceeded, status: "Unknown", reason: record.reason ?? record.phase, message };
  }
}

/**
 * Gives conditions their transition times and generation, in the fixed type order.
 * @param previous - the previous status' conditions (transition times are kept when unchanged)
 */
export function finishConditions(
  previous: unknown,
  next: Array<Omit<ConditionInput, "observedGeneration">>,
  generation: number | undefined,
  now: Date,
): Condition[] {
  const withGen = next
    .slice()
    .sort((a, b) => CONDITION_ORDER.indexOf(a.type) - CONDITION_ORDER.indexOf(b.type))
    .map((c) => (generation === undefined ? c : { ...c, observedGeneration: generation }));
  return withTransitionTimes(previous, withGen, now);
}

/**
 * Replaces some conditions of a previous status and keeps the others (invalid spec, deletion).
 */
export function replaceConditions(
  previous: Condition[] | undefined,
  replaced: Array<Omit<ConditionInput, "observedGeneration">>,
  generation: number | undefined,
  now: Date,
): Condition[] {
  const kept = (previous ?? []).filter((c) => CONDITION_ORDER.includes(c.type) && !replaced.some((r) => r.type === c.type));
  const fresh = finishConditions(previous, replaced, generation, now);
  return [...kept, ...fresh].sort((a, b) => CONDITION_ORDER.indexOf(a.type) - CONDITION_ORDER.indexOf(b.type));
}

function orderKeys<T extends object>(value: T, keys: string[]): T {
  const out: Record<string, unknown> = {};
  for (const key of keys) if ((value as Record<string, unknown>)[key] !== undefined) out[key] = (value as Record<string, unknown>)[key];
  return out as T;
}

/** A status object in a fixed key order, nested records included (byte-stable output). */
export function orderStatus(status: CIBuildStatus): Record<string, unknown> {
  status = { ...status };
  if (status.currentBuild) status.currentBuild = orderKeys(status.currentBuild, Object.keys(BuildRecordSchema.shape));
  if (status.lastSuccessfulBuild) status.lastSuccessfulBuild = orderKeys(status.lastSuccessfulBuild, Object.keys(SuccessfulBuildSchema.shape));
  if (status.latestCommit) status.latestCommit = orderKeys(status.latestCommit, Object.keys(LatestCommitSchema.shape));
  const order: Array<keyof CIBuildStatus> = [
    "observedGeneration",
    "phase",
    "message",
    "buildHash",
    "conditions",
    "currentBuild",
    "lastSuccessfulBuild",
    "deployment",
    "latestCommit",
  ];
  const out: Record<string, unknown> = {};
  for (const key of order) if (status[key] !== undefined) out[key] = status[key];
  return out;
}
