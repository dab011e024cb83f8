/**
 * Validation and normalization of a CIBuild spec (cibuild-api.md §7.2, §7.7).
 *
 * One path for the sync hook and the admission webhook: {@link checkSpec} runs the zod schema
 * (types, enums, ranges) and the semantic rules, sorts the problems in the §7.7 order and, when
 * there are none, returns the spec with every default applied and the legacy seed fields folded
 * into the structured ones.
 *
 * Messages never echo a git URL (it may carry a credential) and never echo other user values
 * either: they name the field and the rule.
 *
 * @packageDocumentation
 */
import type { z } from "zod";
import type { SpecProblem } from "../types.ts";
import { isDns1123Subdomain } from "../../kube/names.ts";
import { CIBuildSpecSchema, type CIBuildSpec } from "./schema.ts";
import { SPEC_REASON_ORDER, SpecReason } from "./reasons.ts";
import { isValidTag, parseImageReference } from "./image-ref.ts";

/** How git-sync reaches the repository. */
export type GitTransport = "ssh" | "https";

/** A valid spec with every §7.2 default applied and legacy fields folded in. */
export interface NormalizedSpec {
  /** `spec.output` absent and `spec.imageDestination` set: only changes the `insecure` default (D1). */
  legacyMode: boolean;
  git: {
    url: string;
    transport: GitTransport;
    /** Requested revision; `""` means the remote's default branch (`--ref=HEAD`). */
    revision: string;
    cloneSecret?: string;
    sshKeySecretKey: string;
    insecureIgnoreHostKey: boolean;
    depth: number;
    submodules: "off" | "shallow" | "recursive";
  };
  /** Build context relative to the repository root; `""` is the root. */
  contextDir: string;
  build: {
    strategy: "kaniko" | "buildkit";
    dockerfile: string;
    target?: string;
    buildArgs: Array<{ name: string; value: string }>;
    cache: { enabled: boolean; repo?: string };
    reproducible: boolean;
    /** `build.timeout` in **seconds**. @default 1800 */
    timeoutSeconds: number;
    retries: number;
    resources?: NonNullable<NonNullable<CIBuildSpec["build"]>["resources"]>;
    nodeSelector?: Record<string, string>;
    tolerations?: NonNullable<NonNullable<CIBuildSpec["build"]>["tolerations"]>;
    serviceAccountName?: string;
  };
  output: {
    image: string;
    repository: string;
    pushSecret?: string;
    pushSecretKey: string;
    insecure: boolean;
    immutableTag: boolean;
    additionalTags: string[];
  };
  deploy: {
    enabled: boolean;
    replicas: number;
    port?: number;
    servicePort?: number;
    serviceType: "ClusterIP" | "NodePort" | "LoadBalancer";
    env?: NonNullable<NonNullable<CIBuildSpec["deploy"]>["env"]>;
    resources?: NonNullable<NonNullable<CIBuildSpec["deploy"]>["resources"]>;
    imagePullSecrets?: Array<{ name: string }>;
  };
  retention: { succeededLimit: number; failedLimit: number };
  suspend: boolean;
  rebuildToken: string;
}

/** Result of {@link checkSpec}. */
export type SpecCheck = { valid: true; spec: NormalizedSpec } | { valid: false; problems: SpecProblem[] };

/** Default `build.timeout` (§7.2): 30 minutes, in seconds. */
export const DEFAULT_TIMEOUT_SECONDS = 1800;
/** Largest accepted `build.timeout`: 7 days, in seconds. */
export const MAX_TIMEOUT_SECONDS = 7 * 24 * 3600;
const MAX_URL = 2048;
const MAX_PATH = 1024;
const CONTROL = /[\u0000-\u001f\u007f]/;
const WHITESPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f]/;
/** git's URL scheme characters (url.c is_urlschemechar, first one alphanumeric) then `::`. */
const REMOTE_HELPER = /^(?:[A-Za-z0-9][A-Za-z0-9+.-]*)?::/;
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

/** Legacy seed fields and their structured twins (§7.1). */
export const LEGACY_TWINS: ReadonlyArray<readonly [legacy: string, structured: readonly string[]]> = [
  ["SCMRepoURL", ["source", "git", "url"]],
  ["SCMBranch", ["source", "git", "revision"]],
  ["SCMSecret", ["source", "git", "cloneSecret"]],
  ["subContext", ["source", "contextDir"]],
  ["imageDestination", ["output", "image"]],
];

function at(value: unknown, path: readonly string[]): unknown {
  let cur = value;
  for (const key of path) {
    if (cur === null || typeof cur !== "object" || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** A string field, or undefined when absent, empty or not a string (zod reports wrong types). */
function text(value: unknown, path: readonly string[]): string | undefined {
  const v = at(value, path);
  return typeof v === "string" && v !== "" ? v : undefined;
}

/**
 * Parses a duration such as `30m`, `1h30m`, `90s` (Go `time.Duration` units h, m, s; whole seconds).
 * @returns seconds, or undefined when the text is not such a duration
 */
export function parseDurationSeconds(value: string): number | undefined {
  const m = /^(?:(\d{1,6})h)?(?:(\d{1,7})m)?(?:(\d{1,9})s)?$/.exec(value);
  if (!m || value === "") return undefined;
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
}

/**
 * Classifies a git URL. Credentials are looked for first, in every form (`https://user:pw@`,
 * `https://token@`, `ssh://user:pw@`, scp-like `user:pw@host:path`), so a URL carrying one always
 * gets `CredentialsInURL` and its text is never repeated.
 */
export function classifyGitUrl(url: string): { transport: GitTransport } | { reason: string; message: string } {
  const invalid = (why: string) => ({ reason: SpecReason.InvalidGitURL, message: `the git URL ${why}` });
  const authority = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)/.exec(url);
  if (authority) {
    const scheme = (authority[1] ?? "").toLowerCase();
    const host = authority[2] ?? "";
    const at = host.lastIndexOf("@");
    if (at >= 0) {
      const userinfo = host.slice(0, at);
      if (userinfo.includes(":") || scheme === "https" || scheme === "http") {
        return {
          reason: SpecReason.CredentialsInURL,
          message: "the git URL carries credentials; put them in the Secret named by source.git.cloneSecret (keys username and password) and remove them from the URL",
        };
      }
    }
  } else {
    const firstAt = url.indexOf("@");
    const firstColon = url.indexOf(":");
    if (firstAt > 0 && firstColon >= 0 && firstColon < firstAt) {
      return {
        reason: SpecReason.CredentialsInURL,
        message: "the git URL carries credentials; use an SSH deploy key in the Secret named by source.git.cloneSecret",
      };
    }
  }
  if (url.length > MAX_URL) return invalid(`is longer than ${MAX_URL} characters`);
  if (WHITESPACE_OR_CONTROL.test(url)) return invalid("contains whitespace or control characters");
  if (url.startsWith("-")) return invalid("must not start with -");
  // git hands `<transport>::<address>` to the remote helper git-remote-<transport> (git
  // transport.c transport_get: any run of URL scheme characters followed by `::`, even an empty
  // one); `ext::` runs an arbitrary command and `fd::` reads file descriptors. The scp-like form
  // below would otherwise take `ext` for a host.
  if (REMOTE_HELPER.test(url)) return invalid("uses remote helper syntax (<transport>::…); use https://, ssh:// or user@host:path");
  if (authority) {
    const scheme = (authority[1] ?? "").toLowerCase();
    if (scheme !== "https" && scheme !== "ssh") return invalid("must use https://, ssh:// or the scp-like form user@host:path");
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return invalid("does not parse as a URL");
    }
    if (!parsed.hostname) return invalid("has no host");
    // ssh would read a host or user starting with `-` as an option (-oProxyCommand=…,
    // CVE-2017-1000117); git refuses them too, but we never hand one over.
    if (parsed.hostname.startsWith("-") || decodeURIComponent(parsed.username).startsWith("-")) {
      return invalid("has a host or user starting with -");
    }
    if (parsed.search || parsed.hash) return invalid("must not have a query or a fragment");
    if (parsed.pathname === "" || parsed.pathname === "/") return invalid("has no repository path");
    return { transport: scheme === "https" ? "https" : "ssh" };
  }
  // scp-like: [user@]host:path, where host has no slash (git's rule to tell it from a local path).
  const scp = /^(?:([A-Za-z0-9._~-]+)@)?([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):(.+)$/.exec(url);
  if (!scp) return invalid("must use https://, ssh:// or the scp-like form user@host:path");
  if (scp[1]?.startsWith("-") || scp[2]?.startsWith("-")) return invalid("has a host or user starting with -");
  return { transport: "ssh" };
}

/** Problems of a git revision (branch, tag or full SHA), following `git check-ref-format`. */
function revisionProblem(rev: string): string | undefined {
  if (rev.length > 255) return "is longer than 255 characters";
  if (WHITESPACE_OR_CONTROL.test(rev)) return "contains whitespace or control characters";
  if (rev.startsWith("-")) return "must not start with -";
  if (rev.includes("..")) return "must not contain ..";
  if (/[~^:?*[\\]/.test(rev) || rev.includes("@{")) return "contains a character git does not allow in refs (~ ^ : ? * [ \\ @{)";
  if (rev.endsWith("/") || rev.endsWith(".") || rev.endsWith(".lock") || rev.startsWith("/") || rev.includes("//")) {
    return "is not a valid git ref name";
  }
  return undefined;
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
 * Every problem of a spec, in the §7.7 order (the first is the `SpecValid=False` reason).
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
 * Validates and normalizes a spec in one go (what the sync hook calls).
 * @param raw - `parent.spec` as received
 */
export function checkSpec(raw: unknown): SpecCheck {
  const problems = validateSpec(raw);
  if (problems.length > 0) return { valid: false, problems };
  return { valid: true, spec: normalizeSpec(CIBuildSpecSchema.parse(raw ?? {})) };
}

/**
 * Applies the §7.2 defaults to a spec that passed {@link validateSpec}.
 * @throws Error when a required field is missing (call {@link checkSpec} instead)
 */
export function normalizeSpec(spec: CIBuildSpec): NormalizedSpec {
  const nonEmpty = (...values: Array<string | undefined>) => values.find((v) => v !== undefined && v !== "");
  const url = nonEmpty(spec.source?.git?.url, spec.SCMRepoURL);
  const image = nonEmpty(spec.output?.image, spec.imageDestination);
  if (url === undefined || image === undefined) throw new Error("normalizeSpec: spec is not valid (validate it first)");
  const urlClass = classifyGitUrl(url);
  const ref = parseImageReference(image);
  if ("reason" in urlClass || "problem" in ref) throw new Error("normalizeSpec: spec is not valid (validate it first)");
  const legacyMode = spec.output === undefined && nonEmpty(spec.imageDestination) !== undefined;
  const build = spec.build ?? {};
  const output = spec.output ?? {};
  const deploy = spec.deploy ?? {};
  const git = spec.source?.git ?? {};
  const normalized: NormalizedSpec = {
    legacyMode,
    git: {
      url,
      transport: urlClass.transport,
      revision: nonEmpty(git.revision, spec.SCMBranch) ?? "",
      sshKeySecretKey: git.sshKeySecretKey ?? "ssh",
      insecureIgnoreHostKey: git.insecureIgnoreHostKey ?? false,
      depth: git.depth ?? 1,
      submodules: git.submodules ?? "recursive",
    },
    contextDir: nonEmpty(spec.source?.contextDir, spec.subContext) ?? "",
    build: {
      strategy: build.strategy ?? "kaniko",
      dockerfile: nonEmpty(build.dockerfile) ?? "Dockerfile",
      buildArgs: (build.buildArgs ?? []).map((a) => ({ name: a.name, value: a.value ?? "" })),
      cache: { enabled: build.cache?.enabled ?? false },
      reproducible: build.reproducible ?? false,
      timeoutSeconds: build.timeout !== undefined ? (parseDurationSeconds(build.timeout) ?? DEFAULT_TIMEOUT_SECONDS) : DEFAULT_TIMEOUT_SECONDS,
      retries: build.retries ?? 1,
    },
    output: {
      image,
      repository: ref.repository,
      pushSecretKey: output.pushSecretKey ?? ".dockerconfigjson",
      insecure: output.insecure ?? legacyMode,
      immutableTag: output.immutableTag ?? true,
      additionalTags: output.additionalTags ?? [],
    },
    deploy: {
      enabled: deploy.enabled ?? true,
      replicas: deploy.replicas ?? 1,
      serviceType: deploy.serviceType ?? "ClusterIP",
    },
    retention: {
      succeededLimit: spec.retention?.succeededLimit ?? 2,
      failedLimit: spec.retention?.failedLimit ?? 2,
    },
    suspend: spec.suspend ?? false,
    rebuildToken: spec.rebuildToken ?? "",
  };
  const cloneSecret = nonEmpty(git.cloneSecret, spec.SCMSecret);
  if (cloneSecret !== undefined) normalized.git.cloneSecret = cloneSecret;
  if (build.target !== undefined) normalized.build.target = build.target;
  if (build.cache?.repo) normalized.build.cache.repo = build.cache.repo;
  if (build.resources !== undefined) normalized.build.resources = build.resources;
  if (build.nodeSelector !== undefined) normalized.build.nodeSelector = build.nodeSelector;
  if (build.tolerations !== undefined) normalized.build.tolerations = build.tolerations;
  if (build.serviceAccountName) normalized.build.serviceAccountName = build.serviceAccountName;
  if (output.pushSecret) normalized.output.pushSecret = output.pushSecret;
  if (deploy.port !== undefined) {
    normalized.deploy.port = deploy.port;
    normalized.deploy.servicePort = deploy.servicePort ?? deploy.port;
  }
  if (deploy.env !== undefined) normalized.deploy.env = deploy.env;
  if (deploy.resources !== undefined) normalized.deploy.resources = deploy.resources;
  if (deploy.imagePullSecrets !== undefined) normalized.deploy.imagePullSecrets = deploy.imagePullSecrets;
  return normalized;
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

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function child(parent: Record<string, unknown>, key: string): Record<string, unknown> {
  const existing = parent[key];
  if (isPlainObject(existing)) return existing;
  const created: Record<string, unknown> = {};
  parent[key] = created;
  return created;
}

function setDefault(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (obj[key] === undefined) obj[key] = value;
}

/**
 * The spec with the §7.2 defaults written out where unset, for a mutating webhook. Legacy fields
 * are never rewritten and their structured twins are never added (that would create a
 * conflict); `spec.output` is only completed when present, so a legacy-mode spec stays in legacy
 * mode. Defaults whose meaning is "empty" (revision, contextDir, rebuildToken) are not written.
 *
 * @param spec - anything; returned unchanged when it does not parse
 */
export function defaultSpec(spec: unknown): unknown {
  if (!CIBuildSpecSchema.safeParse(spec ?? {}).success || !isPlainObject(spec)) return spec;
  const out = structuredClone(spec) as Record<string, unknown>;
  const git = child(child(out, "source"), "git");
  setDefault(git, "sshKeySecretKey", "ssh");
  setDefault(git, "insecureIgnoreHostKey", false);
  setDefault(git, "depth", 1);
  setDefault(git, "submodules", "recursive");
  const build = child(out, "build");
  setDefault(build, "strategy", "kaniko");
  setDefault(build, "dockerfile", "Dockerfile");
  setDefault(build, "buildArgs", []);
  setDefault(child(build, "cache"), "enabled", false);
  setDefault(build, "reproducible", false);
  setDefault(build, "timeout", "30m");
  setDefault(build, "retries", 1);
  if (isPlainObject(out.output)) {
    const output = out.output;
    setDefault(output, "pushSecretKey", ".dockerconfigjson");
    setDefault(output, "insecure", false);
    setDefault(output, "immutableTag", true);
    setDefault(output, "additionalTags", []);
  }
  const deploy = child(out, "deploy");
  setDefault(deploy, "enabled", true);
  setDefault(deploy, "replicas", 1);
  setDefault(deploy, "serviceType", "ClusterIP");
  if (typeof deploy.port === "number") setDefault(deploy, "servicePort", deploy.port);
  const retention = child(out, "retention");
  setDefault(retention, "succeededLimit", 2);
  setDefault(retention, "failedLimit", 2);
  setDefault(out, "suspend", false);
  return out;
}
