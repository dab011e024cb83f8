/**
 * A CIBuild that follows its branch (`spec.triggers`): which commit is the latest seen (from the
 * push receiver's annotation, the newest poll probe, or what status remembered), which build
 * that commit needs, and the `UpToDate` condition explaining why nothing happens.
 *
 * Pure: the annotation and the probe Pods arrive in the request like everything else.
 *
 * @packageDocumentation
 */
import { z } from "zod";
import type { KubeObject } from "../../metacontroller/contract.ts";
import { parseTime } from "../../kube/time.ts";
import type { BuildRecord, LatestCommit, SuccessfulBuild } from "./schema.ts";
import type { NormalizedSpec } from "./validate.ts";
import { ANNOTATION_PUSHED_COMMIT, computeBuildHash } from "./naming.ts";
import { COMMIT_SHA_PATTERN } from "./build-state.ts";
import { normalizeRepoUrl, refMatchesRevision, trackedRevision } from "./git-url.ts";
import type { ObservedProbe } from "./probe-job.ts";
import { ConditionType, TriggerReason } from "./reasons.ts";

/** Longest push annotation read (the receiver writes a few hundred bytes). */
export const MAX_PUSH_ANNOTATION = 2048;

/** The push receiver's annotation value, as it writes it. */
export const PushRecordSchema = z.object({
  sha: z.string().regex(COMMIT_SHA_PATTERN),
  ref: z.string().regex(/^refs\/(heads|tags)\/\S{1,240}$/),
  repository: z.string().min(1).max(2048),
  defaultBranch: z.boolean().optional(),
  seenAt: z.string(),
  provider: z.string().max(32).optional(),
  delivery: z.string().max(128).optional(),
});
/** A verified push as recorded on the CIBuild. */
export type PushRecord = z.infer<typeof PushRecordSchema>;

/**
 * Reads the push annotation; anything malformed (too long, not JSON, wrong shape, bad time) is
 * ignored, never fatal: annotations are writable by whoever may edit the CIBuild.
 */
export function readPushAnnotation(parent: KubeObject): PushRecord | undefined {
  const raw = parent.metadata.annotations?.[ANNOTATION_PUSHED_COMMIT];
  if (typeof raw !== "string" || raw.length > MAX_PUSH_ANNOTATION) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const parsed = PushRecordSchema.safeParse(value);
  if (!parsed.success || !parseTime(parsed.data.seenAt)) return undefined;
  return parsed.data;
}

const VIA_RANK = { push: 2, poll: 1 } as const;

/**
 * The newest commit seen on the tracked ref: of the push annotation, the newest successful
 * probe and the carried `status.latestCommit`, the one with the latest `seenAt` (a push wins a
 * tie). Each counts only for the spec's current repository and revision, so changing either
 * starts over.
 */
export function latestCommit(input: {
  spec: NormalizedSpec;
  carried: LatestCommit | undefined;
  push: PushRecord | undefined;
  probe: ObservedProbe | undefined;
}): LatestCommit | undefined {
  const { spec } = input;
  const repository = normalizeRepoUrl(spec.git.url);
  if (!repository) return undefined;
  const ref = trackedRevision(spec.git.revision);
  const candidates: LatestCommit[] = [];
  const push = input.push;
  if (spec.triggers?.pushSecret && push && (push.repository === repository || normalizeRepoUrl(push.repository) === repository) && refMatchesRevision(spec.git.revision, push.ref, push.defaultBranch === true)) {
    candidates.push({ sha: push.sha, ref, repository, seenAt: push.seenAt, via: "push" });
  }
  const probe = input.probe;
  if (probe?.sha && probe.seenAt) candidates.push({ sha: probe.sha, ref, repository, seenAt: probe.seenAt, via: "poll" });
  const carried = input.carried;
  if (carried && carried.repository === repository && carried.ref === ref && parseTime(carried.seenAt)) candidates.push(carried);
  let best: LatestCommit | undefined;
  let bestAt = -Infinity;
  for (const c of candidates) {
    const at = parseTime(c.seenAt)!.getTime();
    if (at > bestAt || (at === bestAt && best && VIA_RANK[c.via] > VIA_RANK[best.via])) {
      best = { sha: c.sha, ref: c.ref, repository: c.repository, seenAt: c.seenAt, via: c.via };
      bestAt = at;
    }
  }
  return best;
}

/** Which build the tracked commit needs. */
export interface BuildChoice {
  /** The build hash (Job name suffix) to work on. */
  hash: string;
  /** The commit the Job pins (`--ref=<sha>`), for pinned builds. */
  commit?: string;
  /** Start no Job yet: no commit is known and a poll will tell (the first probe runs at once). */
  hold?: boolean;
  /** The running build of an older commit finishes first (`cancelInProgress: false`). */
  waiting?: boolean;
  /** The latest commit is the last successful build's (status lost the current build, or a revert). */
  fromLastSuccessful?: boolean;
}

const UNFINISHED = new Set(["Pending", "Running"]);

/**
 * Chooses the build for a CIBuild with triggers.
 *
 * - No commit seen yet: the build of the branch head as today (push only), or nothing until the
 *   first poll answers (polling), unless such a build already exists.
 * - A commit seen: the build that already covers it with the current spec (the current build,
 *   pinned or unpinned once its Pod reported that commit; or the last successful one), else a
 *   new build pinned to it; with `cancelInProgress: false` a running build of the same spec
 *   finishes first.
 *
 * @param rawSpec - `parent.spec` as received (the hash input)
 * @param input.observedHashes - build hashes of the observed build Jobs
 */
export function chooseBuild(input: {
  rawSpec: unknown;
  spec: NormalizedSpec;
  latest: LatestCommit | undefined;
  current: BuildRecord | undefined;
  lastSuccessful: SuccessfulBuild | undefined;
  observedHashes: Set<string>;
}): BuildChoice {
  const { rawSpec, spec, latest, current, lastSuccessful } = input;
  const specHash = computeBuildHash(rawSpec);
  const pinnedCommit = (hash: string, ...shas: Array<string | undefined>) => shas.find((s) => s !== undefined && computeBuildHash(rawSpec, s) === hash);
  const sameSpec = (rec: { buildHash: string; commitSHA?: string | undefined } | undefined) =>
    rec !== undefined && (rec.buildHash === specHash || (rec.commitSHA !== undefined && pinnedCommit(rec.buildHash, rec.commitSHA) !== undefined));
  if (!latest) {
    if (current && sameSpec(current) && current.buildHash !== specHash) {
      const commit = pinnedCommit(current.buildHash, current.commitSHA);
      return { hash: current.buildHash, ...(commit ? { commit } : {}) };
    }
    const started = input.observedHashes.has(specHash) || (current?.buildHash === specHash && (current.phase === "Succeeded" || current.phase === "Failed"));
    if (spec.triggers?.pollIntervalSeconds && !started) return { hash: specHash, hold: true };
    return { hash: specHash };
  }
  const target = latest.sha;
  const pinned = computeBuildHash(rawSpec, target);
  if (current && sameSpec(current) && (current.buildHash === pinned || current.commitSHA === target)) {
    return current.buildHash === pinned ? { hash: pinned, commit: target } : { hash: current.buildHash };
  }
  if (lastSuccessful && (lastSuccessful.buildHash === pinned || (lastSuccessful.buildHash === specHash && lastSuccessful.commitSHA === target))) {
    return { hash: lastSuccessful.buildHash, ...(lastSuccessful.buildHash === pinned ? { commit: target } : {}), fromLastSuccessful: true };
  }
  if (!spec.triggers?.cancelInProgress && current && sameSpec(current) && UNFINISHED.has(current.phase) && input.observedHashes.has(current.buildHash) && !spec.suspend) {
    // Also when its Job has just finished: this answer records the result (a success is
    // deployed), and the next sync starts the newest commit.
    const commit = pinnedCommit(current.buildHash, current.commitSHA);
    return { hash: current.buildHash, ...(commit ? { commit } : {}), waiting: true };
  }
  return { hash: pinned, commit: target };
}

/** The `UpToDate` condition (without transition time). */
export interface UpToDateCondition {
  type: typeof ConditionType.UpToDate;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
}

const short = (sha: string) => sha.slice(0, 12);

/**
 * Why the latest seen commit is, or is not, built: the condition users read when "nothing happens".
 */
export function upToDateCondition(input: {
  spec: NormalizedSpec;
  latest: LatestCommit | undefined;
  choice: BuildChoice;
  record: BuildRecord;
  created: boolean;
  probe: ObservedProbe | undefined;
}): UpToDateCondition {
  const { spec, latest, choice, record, probe } = input;
  const ref = trackedRevision(spec.git.revision);
  const make = (status: UpToDateCondition["status"], reason: string, message: string): UpToDateCondition => ({ type: ConditionType.UpToDate, status, reason, message });
  const pollFailed = probe?.failure !== undefined && probe.sha === undefined ? probe.failure : undefined;
  if (!latest) {
    if (pollFailed) return make("Unknown", TriggerReason.PollFailed, `polling ${ref} failed: ${pollFailed}`);
    const how = spec.triggers?.pollIntervalSeconds ? "waiting for the first poll" : "no push received yet";
    const built = record.commitSHA ? `; the current build is of commit ${short(record.commitSHA)}` : "";
    return make("Unknown", TriggerReason.WaitingForCommit, `no commit seen on ${ref} yet (${how})${built}`);
  }
  const seen = `commit ${short(latest.sha)} (seen via ${latest.via} at ${latest.seenAt})`;
  if (spec.suspend && record.phase !== "Succeeded") return make("False", TriggerReason.Suspended, `spec.suspend is true: ${seen} is not built`);
  if (choice.waiting) {
    return make("False", TriggerReason.WaitingForRunningBuild, `${seen} waits for the running build ${record.name} to finish (spec.triggers.cancelInProgress is false)`);
  }
  switch (record.phase) {
    case "Succeeded":
      if (pollFailed) return make("Unknown", TriggerReason.PollFailed, `${seen} is built, but the latest poll failed: ${pollFailed}`);
      return make("True", TriggerReason.LatestCommitBuilt, `${seen} is built; nothing new to build`);
    case "Failed":
      return make("False", TriggerReason.BuildFailed, `${seen} failed to build; the previous Deployment keeps serving until a newer commit (or a new spec.rebuildToken) builds`);
    case "Cancelled":
      return make("False", TriggerReason.Suspended, `spec.suspend is true: ${seen} is not built`);
    default:
      if (input.created) return make("False", TriggerReason.NewCommit, `building ${seen} in Job ${record.name}`);
      return make("False", TriggerReason.BuildRunning, `${seen} is being built by Job ${record.name}; another push of it changes nothing`);
  }
}
