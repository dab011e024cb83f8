/**
 * The CIBuild spec rules: the zod schema's type and range checks mapped to the CIBuild reasons,
 * then the rules zod cannot say (legacy/structured conflicts, git URLs and revisions, image
 * references, paths, build args, the timeout, names the API would refuse), sorted in the check
 * order (docs/cibuild.md, "Validation order"). Messages name the field and the rule and never
 * echo a value.
 *
 * @packageDocumentation
 */
import type { z } from "zod";
import type { SpecProblem } from "../types.ts";
import { isDns1123Subdomain } from "../../kube/names.ts";
import { parseGoDuration, wholeSeconds } from "../../kube/duration.ts";
import { CIBuildSpecSchema } from "./schema.ts";
import { SPEC_REASON_ORDER, SpecReason } from "./reasons.ts";
import { isValidTag, parseImageReference } from "./image-ref.ts";
import { classifyGitUrl, revisionProblem, WHITESPACE_OR_CONTROL, type GitTransport } from "./git-source.ts";

/** Shortest accepted `triggers.poll.interval`: 1 minute, in seconds (each poll is a Pod). */
export const MIN_POLL_INTERVAL_SECONDS = 60;
/** Longest accepted `triggers.poll.interval`: 24 hours, in seconds. */
export const MAX_POLL_INTERVAL_SECONDS = 86400;

/** Largest accepted `build.timeout`: 7 days, in seconds. */
export const MAX_TIMEOUT_SECONDS = 7 * 24 * 3600;
const MAX_PATH = 1024;
const CONTROL = /[\u0000-\u001f\u007f]/;
/**
 * Characters a build target must not hold: kaniko's `--target` is a pflag StringSlice
 * (cmd/executor/cmd/root.go), read as one CSV record, so `,` splits it into several stages and
 * quotes are CSV quoting. No Dockerfile stage name holds them (BuildKit
 * frontend/dockerfile/instructions/parse.go validStageName `^[a-z][a-z0-9-_.]*$`).
 */
const TARGET_FORBIDDEN = /[,"']/;
const BUILD_ARG_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SECRET_KEY = /^[-._a-zA-Z0-9]+$/;
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
const QUANTITY = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+|[numkMGTPE]|Ki|Mi|Gi|Ti|Pi|Ei)?$/;

/** Legacy seed fields and their structured twins (both may be set only to the same value). */
export const LEGACY_TWINS: ReadonlyArray<readonly [legacy: string, structured: readonly string[]]> = [
  ["SCMRepoURL", ["source", "git", "url"]],
  ["SCMBranch", ["source", "git", "revision"]],
  ["SCMSecret", ["source", "git", "cloneSecret"]],
  ["subContext", ["source", "contextDir"]],
  ["imageDestination", ["output", "image"]],
];

export function at(value: unknown, path: readonly string[]): unknown {
  let cur = value;
  for (const key of path) {
    if (cur === null || typeof cur !== "object" || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** A string field, or undefined when absent, empty or not a string (zod reports wrong types). */
export function text(value: unknown, path: readonly string[]): string | undefined {
  const v = at(value, path);
  return typeof v === "string" && v !== "" ? v : undefined;
}

/**
 * Parses a duration such as `30m`, `1h30m`, `1.5h` (Go `time.ParseDuration`) into whole seconds
 * (a Job's `activeDeadlineSeconds` has no finer unit).
 * @returns seconds, or undefined when the text is not a non-negative Go duration
 */
export function parseDurationSeconds(value: string): number | undefined {
  const parsed = parseGoDuration(value);
  return parsed.ok && parsed.nanoseconds >= 0n ? wholeSeconds(parsed.nanoseconds) : undefined;
}
/** Problems of a relative path inside the repository (context dir, Dockerfile). */
function relativePathProblem(path: string): string | undefined {
  if (path.length > MAX_PATH) return `is longer than ${MAX_PATH} characters`;
  if (CONTROL.test(path)) return "contains control characters (NUL, newline, …)";
  if (path.startsWith("/")) return "must be relative (no leading /)";
  if (path.split("/").includes("..")) return "must not contain a .. segment";
  return undefined;
}

const ZOD_FIELD_REASONS: Array<[prefix: string, reason: string]> = [
  ["SCMRepoURL", SpecReason.InvalidGitURL],
  ["source.git.url", SpecReason.InvalidGitURL],
  ["SCMBranch", SpecReason.InvalidRevision],
  ["source.git.revision", SpecReason.InvalidRevision],
  ["imageDestination", SpecReason.InvalidImageReference],
  ["output.image", SpecReason.InvalidImageReference],
  ["output.additionalTags", SpecReason.InvalidImageReference],
  ["build.cache.repo", SpecReason.InvalidImageReference],
  ["subContext", SpecReason.InvalidContextDir],
  ["source.contextDir", SpecReason.InvalidContextDir],
  ["build.dockerfile", SpecReason.InvalidDockerfilePath],
  ["build.buildArgs", SpecReason.InvalidBuildArg],
  ["build.timeout", SpecReason.InvalidTimeout],
  ["build.strategy", SpecReason.UnsupportedStrategy],
  ["triggers", SpecReason.InvalidTrigger],
];

function problemFromZodIssue(issue: z.core.$ZodIssue): SpecProblem {
  const path = issue.path.map(String).join(".");
  const field = path ? `spec.${path}` : "spec";
  const match = ZOD_FIELD_REASONS.find(([prefix]) => path === prefix || path.startsWith(`${prefix}.`));
  // zod's message can quote the received value (enums); name the rule, not the value.
  const rule =
    issue.code === "invalid_value" && "values" in issue
      ? `must be one of ${(issue.values as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`
      : issue.code === "invalid_type"
        ? `must be of type ${issue.expected}`
        : issue.code === "too_small" || issue.code === "too_big"
          ? issue.message.replace(/^Too (small|big): expected [a-z]+ to (be |have )?/, "must be ")
          : "is invalid";
  return { reason: match?.[1] ?? SpecReason.InvalidField, field, message: `${field} ${rule}` };
}

function semanticProblems(raw: unknown): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const add = (reason: string, field: string, message: string) => problems.push({ reason, field: `spec.${field}`, message });

  for (const [legacy, structured] of LEGACY_TWINS) {
    const a = text(raw, [legacy]);
    const b = text(raw, structured);
    if (a !== undefined && b !== undefined && a !== b) {
      add(SpecReason.ConflictingFields, structured.join("."), `spec.${legacy} and spec.${structured.join(".")} are both set and differ; keep one of them`);
    }
  }

  // Both spellings are checked when both are set: a credential must be refused wherever it is.
  let transport: GitTransport | undefined;
  const urlFields: Array<[string, string[]]> = [
    ["source.git.url", ["source", "git", "url"]],
    ["SCMRepoURL", ["SCMRepoURL"]],
  ];
  const urls = urlFields.filter(([, path]) => text(raw, path) !== undefined);
  if (urls.length === 0) {
    add(SpecReason.MissingRepoURL, "source.git.url", "a git repository URL is required (spec.source.git.url or spec.SCMRepoURL)");
  }
  urls.forEach(([field, path], i) => {
    const c = classifyGitUrl(text(raw, path)!);
    if ("reason" in c) add(c.reason, field, c.message);
    else if (i === 0) transport = c.transport;
  });

  const secret = text(raw, ["source", "git", "cloneSecret"]) ?? text(raw, ["SCMSecret"]);
  if (transport === "ssh" && secret === undefined) {
    add(SpecReason.MissingCloneSecret, "source.git.cloneSecret", "an SSH git URL needs a Secret with the deploy key (spec.source.git.cloneSecret or spec.SCMSecret)");
  }

  const revision = text(raw, ["source", "git", "revision"]) ?? text(raw, ["SCMBranch"]);
  if (revision !== undefined) {
    const why = revisionProblem(revision);
    if (why) add(SpecReason.InvalidRevision, "source.git.revision", `the revision ${why}`);
  }

  const image = text(raw, ["output", "image"]) ?? text(raw, ["imageDestination"]);
  if (image === undefined) {
    add(SpecReason.MissingImageDestination, "output.image", "an image destination is required (spec.output.image or spec.imageDestination)");
  } else {
    const ref = parseImageReference(image);
    if ("problem" in ref) add(SpecReason.InvalidImageReference, "output.image", `the image destination ${ref.problem}`);
  }
  const tags = at(raw, ["output", "additionalTags"]);
  if (Array.isArray(tags)) {
    tags.forEach((t, i) => {
      if (typeof t === "string" && !isValidTag(t)) add(SpecReason.InvalidImageReference, `output.additionalTags.${i}`, "an additional tag is not a valid tag ([A-Za-z0-9_][A-Za-z0-9_.-]{0,127})");
    });
  }
  const cacheRepo = text(raw, ["build", "cache", "repo"]);
  if (cacheRepo !== undefined) {
    const ref = parseImageReference(cacheRepo);
    if ("problem" in ref) add(SpecReason.InvalidImageReference, "build.cache.repo", `the cache repository ${ref.problem}`);
    // kaniko tags cache layers `<repo>:<cache key>` (pkg/cache/cache.go Destination): with a tag
    // in the repo that is no reference at all, and every cache lookup and push fails quietly, the
    // build still succeeding. BuildKit takes a tagged ref as the tag of its one cache manifest.
    // Only while the cache is on: a repo kept beside `enabled: false` blocks nothing.
    else if (ref.tag !== undefined && at(raw, ["build", "cache", "enabled"]) === true && (text(raw, ["build", "strategy"]) ?? "kaniko") === "kaniko") {
      add(SpecReason.InvalidImageReference, "build.cache.repo", `with the kaniko strategy the cache repository must have no tag (got ${JSON.stringify(ref.tag)}): kaniko tags each cache layer with its own key`);
    }
  }

  const contextDir = text(raw, ["source", "contextDir"]) ?? text(raw, ["subContext"]);
  if (contextDir !== undefined) {
    const why = relativePathProblem(contextDir);
    if (why) add(SpecReason.InvalidContextDir, "source.contextDir", `the context directory ${why}`);
  }
  const dockerfile = text(raw, ["build", "dockerfile"]);
  if (dockerfile !== undefined) {
    const why = relativePathProblem(dockerfile) ?? (dockerfile.endsWith("/") ? "must name a file, not a directory" : undefined);
    if (why) add(SpecReason.InvalidDockerfilePath, "build.dockerfile", `the Dockerfile path ${why}`);
  }

  const args = at(raw, ["build", "buildArgs"]);
  if (Array.isArray(args)) {
    const seen = new Set<string>();
    args.forEach((arg, i) => {
      const name = at(arg, ["name"]);
      const value = at(arg, ["value"]);
      if (typeof name === "string" && !BUILD_ARG_NAME.test(name)) {
        add(SpecReason.InvalidBuildArg, `build.buildArgs.${i}.name`, "a build argument name must match [A-Za-z_][A-Za-z0-9_]*");
      } else if (typeof name === "string" && seen.has(name)) {
        add(SpecReason.InvalidBuildArg, `build.buildArgs.${i}.name`, "build argument names must be unique");
      }
      if (typeof name === "string") seen.add(name);
      if (typeof value === "string" && value.includes("\u0000")) add(SpecReason.InvalidBuildArg, `build.buildArgs.${i}.value`, "a build argument value must not contain NUL");
    });
  }

  const timeout = at(raw, ["build", "timeout"]);
  if (typeof timeout === "string") {
    const seconds = parseDurationSeconds(timeout);
    if (seconds === undefined || seconds < 1 || seconds > MAX_TIMEOUT_SECONDS) {
      add(SpecReason.InvalidTimeout, "build.timeout", `the build timeout must be a duration such as 30m or 1h30m, from 1s to ${MAX_TIMEOUT_SECONDS / 3600}h`);
    }
  }

  const interval = at(raw, ["triggers", "poll", "interval"]);
  if (typeof interval === "string") {
    const seconds = parseDurationSeconds(interval);
    if (seconds === undefined || seconds < MIN_POLL_INTERVAL_SECONDS || seconds > MAX_POLL_INTERVAL_SECONDS) {
      add(SpecReason.InvalidTrigger, "triggers.poll.interval", "the poll interval must be a duration such as 5m or 1h, from 1m to 24h");
    }
  }
  const pushSecret = at(raw, ["triggers", "push", "secretRef", "name"]);
  if (typeof pushSecret === "string" && !isDns1123Subdomain(pushSecret)) {
    add(SpecReason.InvalidTrigger, "triggers.push.secretRef.name", "spec.triggers.push.secretRef.name is not a valid Secret name (DNS-1123 subdomain)");
  }
  const followed = at(raw, ["triggers", "push"]) !== undefined || at(raw, ["triggers", "poll"]) !== undefined;
  if (followed && revision !== undefined && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(revision)) {
    add(SpecReason.InvalidTrigger, "triggers", "triggers follow a branch or tag, but spec.source.git.revision is a commit SHA, which never moves");
  }

  // Values the apiserver would reject inside a child: caught here so a bad spec is a condition,
  // not an endless create error in Metacontroller's logs.
  const names: Array<[string[], string]> = [
    [["source", "git", "cloneSecret"], "Secret name"],
    [["SCMSecret"], "Secret name"],
    [["output", "pushSecret"], "Secret name"],
    [["build", "serviceAccountName"], "ServiceAccount name"],
  ];
  for (const [path, what] of names) {
    const v = text(raw, path);
    if (v !== undefined && !isDns1123Subdomain(v)) add(SpecReason.InvalidField, path.join("."), `spec.${path.join(".")} is not a valid ${what} (DNS-1123 subdomain)`);
  }
  for (const path of [["source", "git", "sshKeySecretKey"], ["output", "pushSecretKey"]]) {
    const v = at(raw, path);
    if (typeof v === "string" && (!SECRET_KEY.test(v) || v === "." || v === ".." || v.length > 253)) {
      add(SpecReason.InvalidField, path.join("."), `spec.${path.join(".")} is not a valid Secret key ([-._a-zA-Z0-9]+)`);
    }
  }
  const target = at(raw, ["build", "target"]);
  if (typeof target === "string" && (target === "" || target.length > 128 || WHITESPACE_OR_CONTROL.test(target) || TARGET_FORBIDDEN.test(target))) {
    add(SpecReason.InvalidField, "build.target", "spec.build.target must be one stage name (1-128 characters, no whitespace, commas or quotes)");
  }
  const pullSecrets = at(raw, ["deploy", "imagePullSecrets"]);
  if (Array.isArray(pullSecrets)) {
    pullSecrets.forEach((s, i) => {
      const n = at(s, ["name"]);
      if (typeof n === "string" && !isDns1123Subdomain(n)) add(SpecReason.InvalidField, `deploy.imagePullSecrets.${i}.name`, "an image pull Secret name is not a valid DNS-1123 subdomain");
    });
  }
  const env = at(raw, ["deploy", "env"]);
  if (Array.isArray(env)) {
    env.forEach((e, i) => {
      const n = at(e, ["name"]);
      if (typeof n === "string" && !ENV_NAME.test(n)) add(SpecReason.InvalidField, `deploy.env.${i}.name`, "an environment variable name must match [-._a-zA-Z][-._a-zA-Z0-9]*");
    });
  }
  for (const owner of ["build", "deploy"]) {
    for (const kind of ["limits", "requests"]) {
      const map = at(raw, [owner, "resources", kind]);
      if (map && typeof map === "object" && !Array.isArray(map)) {
        for (const [k, v] of Object.entries(map as Record<string, unknown>)) {
          if (typeof v === "string" && !QUANTITY.test(v)) add(SpecReason.InvalidField, `${owner}.resources.${kind}.${k}`, `spec.${owner}.resources.${kind} has a value that is not a quantity (e.g. 500m, 1Gi)`);
        }
      }
    }
  }
  return problems;
}

/**
 * Every problem of a spec, in the check order (the first is the `SpecValid=False` reason).
 * @param raw - `parent.spec` as received (anything)
 * @returns an empty list for a valid spec
 */
export function validateSpec(raw: unknown): SpecProblem[] {
  const parsed = CIBuildSpecSchema.safeParse(raw ?? {});
  const problems = [...(parsed.success ? [] : parsed.error.issues.map(problemFromZodIssue)), ...semanticProblems(raw)];
  // Stable sort by rank keeps the field order inside one reason.
  return problems
    .map((p, i) => ({ p, i }))
    .sort((a, b) => (SPEC_REASON_ORDER[a.p.reason] ?? 99) - (SPEC_REASON_ORDER[b.p.reason] ?? 99) || a.i - b.i)
    .map(({ p }) => p);
}
/**
 * Problems of an update: the create rules, with a hint when the update moves a value from a
 * legacy field to its structured twin (or back) but keeps both, different.
 * @param raw - the new spec
 * @param oldRaw - the stored spec
 */
export function validateSpecUpdate(raw: unknown, oldRaw: unknown): SpecProblem[] {
  return validateSpec(raw).map((p) => {
    if (p.reason !== SpecReason.ConflictingFields) return p;
    const twin = LEGACY_TWINS.find(([, s]) => `spec.${s.join(".")}` === p.field);
    if (!twin) return p;
    const [legacy, structured] = twin;
    const hadLegacy = text(oldRaw, [legacy]) !== undefined;
    const hadStructured = text(oldRaw, structured) !== undefined;
    if (hadLegacy === hadStructured) return p;
    const [from, to] = hadLegacy ? [legacy, structured.join(".")] : [structured.join("."), legacy];
    return { ...p, message: `${p.message}: this update switches from spec.${from} to spec.${to}, so remove spec.${from} in the same update` };
  });
}
