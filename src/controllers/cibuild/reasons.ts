/**
 * Condition types and CamelCase reasons of CIBuild status, as constants.
 *
 * @packageDocumentation
 */

/** Condition types written in every status. */
export const ConditionType = {
  SpecValid: "SpecValid",
  BuildSucceeded: "BuildSucceeded",
  Deployed: "Deployed",
  Ready: "Ready",
  /** Only with `spec.triggers`: whether the latest seen commit is built, and why not. */
  UpToDate: "UpToDate",
} as const;

/**
 * `SpecValid=False` reasons, in check order: the first failing one is the condition's reason
 * (docs/cibuild.md, "Validation order"). `InvalidField` covers a type or range error on a field
 * no other reason covers
 * (e.g. `deploy.replicas: -1`, a malformed Secret name).
 */
export const SpecReason = {
  ConflictingFields: "ConflictingFields",
  MissingRepoURL: "MissingRepoURL",
  InvalidGitURL: "InvalidGitURL",
  CredentialsInURL: "CredentialsInURL",
  MissingCloneSecret: "MissingCloneSecret",
  InvalidRevision: "InvalidRevision",
  MissingImageDestination: "MissingImageDestination",
  InvalidImageReference: "InvalidImageReference",
  InvalidContextDir: "InvalidContextDir",
  InvalidDockerfilePath: "InvalidDockerfilePath",
  InvalidBuildArg: "InvalidBuildArg",
  InvalidTimeout: "InvalidTimeout",
  UnsupportedStrategy: "UnsupportedStrategy",
  InvalidTrigger: "InvalidTrigger",
  InvalidField: "InvalidField",
} as const;

/** Check order of {@link SpecReason} (InvalidGitURL and CredentialsInURL share a rank). */
export const SPEC_REASON_ORDER: Record<string, number> = {
  ConflictingFields: 0,
  MissingRepoURL: 1,
  InvalidGitURL: 2,
  CredentialsInURL: 2,
  MissingCloneSecret: 3,
  InvalidRevision: 4,
  MissingImageDestination: 5,
  InvalidImageReference: 6,
  InvalidContextDir: 7,
  InvalidDockerfilePath: 8,
  InvalidBuildArg: 9,
  InvalidTimeout: 10,
  UnsupportedStrategy: 11,
  InvalidTrigger: 12,
  InvalidField: 13,
};

/** `SpecValid=True` reason. */
export const REASON_VALID = "Valid";

/** Build reasons (`BuildSucceeded` condition and `currentBuild.reason`). */
export const BuildReason = {
  Pending: "Pending",
  Running: "Running",
  /** The build Job succeeded; its Pod's digest is not observed yet (Running, `BuildSucceeded=Unknown`). */
  WaitingForDigest: "WaitingForDigest",
  Cancelled: "Cancelled",
  Succeeded: "Succeeded",
  GitCloneFailed: "GitCloneFailed",
  ContextDirNotFound: "ContextDirNotFound",
  DockerfileNotFound: "DockerfileNotFound",
  BuildFailed: "BuildFailed",
  DeadlineExceeded: "DeadlineExceeded",
  BackoffLimitExceeded: "BackoffLimitExceeded",
} as const;

/**
 * Deploy reasons (`Deployed` condition). `Disabled` (deploy.enabled=false) and `WaitingForBuild`
 * (no image built yet) are ours; the spec's three are Progressing, Available and
 * ProgressDeadlineExceeded.
 */
export const DeployReason = {
  Progressing: "Progressing",
  Available: "Available",
  ProgressDeadlineExceeded: "ProgressDeadlineExceeded",
  Disabled: "Disabled",
  WaitingForBuild: "WaitingForBuild",
} as const;

/** Reason of `Ready` and the other conditions while the parent is being deleted. */
export const REASON_TERMINATING = "Terminating";
/**
 * `UpToDate` reasons (only with `spec.triggers`): True `LatestCommitBuilt`; False while a newer
 * commit waits (`NewCommit`, `BuildRunning`, `WaitingForRunningBuild`, `Suspended`) or failed to
 * build (`BuildFailed`); Unknown before any commit is known (`WaitingForCommit`) or when the
 * latest poll failed (`PollFailed`).
 */
export const TriggerReason = {
  LatestCommitBuilt: "LatestCommitBuilt",
  NewCommit: "NewCommit",
  BuildRunning: "BuildRunning",
  WaitingForRunningBuild: "WaitingForRunningBuild",
  Suspended: "Suspended",
  BuildFailed: "BuildFailed",
  WaitingForCommit: "WaitingForCommit",
  PollFailed: "PollFailed",
} as const;
