/**
 * A valid CIBuild spec with its defaults applied and the legacy seed fields folded into the
 * structured ones, and the same defaults written out for the mutating webhook. Every default
 * comes from the one table in defaults.ts.
 *
 * @packageDocumentation
 */
import type { CIBuildSpec } from "./schema.ts";
import { CIBuildSpecSchema } from "./schema.ts";
import { parseImageReference } from "./image-ref.ts";
import { classifyGitUrl, type GitTransport } from "./git-source.ts";
import { parseDurationSeconds } from "./rules.ts";
import { CIBUILD_DEFAULTS as D, COMPLETE_ONLY_WHEN_SET } from "./defaults.ts";
import { writeDefaults } from "../defaults.ts";

/** A valid spec with every default applied and legacy fields folded in. */
export interface NormalizedSpec {
  /**
   * `spec.output` absent and `spec.imageDestination` set: only changes the `insecure` default,
   * which is then true because the seed samples push to a plain-HTTP kind registry.
   */
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

/** Default `build.timeout` in seconds (the table says `30m`). */
export const DEFAULT_TIMEOUT_SECONDS = parseDurationSeconds(D.build.timeout)!;

/**
 * Applies the defaults to a spec that passed {@link validateSpec}.
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
      sshKeySecretKey: git.sshKeySecretKey ?? D.source.git.sshKeySecretKey,
      insecureIgnoreHostKey: git.insecureIgnoreHostKey ?? D.source.git.insecureIgnoreHostKey,
      depth: git.depth ?? D.source.git.depth,
      submodules: git.submodules ?? D.source.git.submodules,
    },
    contextDir: nonEmpty(spec.source?.contextDir, spec.subContext) ?? "",
    build: {
      strategy: build.strategy ?? D.build.strategy,
      dockerfile: nonEmpty(build.dockerfile) ?? D.build.dockerfile,
      buildArgs: (build.buildArgs ?? D.build.buildArgs).map((a) => ({ name: a.name, value: a.value ?? "" })),
      cache: { enabled: build.cache?.enabled ?? D.build.cache.enabled },
      reproducible: build.reproducible ?? D.build.reproducible,
      timeoutSeconds: build.timeout !== undefined ? (parseDurationSeconds(build.timeout) ?? DEFAULT_TIMEOUT_SECONDS) : DEFAULT_TIMEOUT_SECONDS,
      retries: build.retries ?? D.build.retries,
    },
    output: {
      image,
      repository: ref.repository,
      pushSecretKey: output.pushSecretKey ?? D.output.pushSecretKey,
      // Legacy mode pushes over plain HTTP: the seed samples push to a kind registry without TLS.
      insecure: output.insecure ?? (legacyMode || D.output.insecure),
      immutableTag: output.immutableTag ?? D.output.immutableTag,
      additionalTags: output.additionalTags ?? [...D.output.additionalTags],
    },
    deploy: {
      enabled: deploy.enabled ?? D.deploy.enabled,
      replicas: deploy.replicas ?? D.deploy.replicas,
      serviceType: deploy.serviceType ?? D.deploy.serviceType,
    },
    retention: {
      succeededLimit: spec.retention?.succeededLimit ?? D.retention.succeededLimit,
      failedLimit: spec.retention?.failedLimit ?? D.retention.failedLimit,
    },
    suspend: spec.suspend ?? D.suspend,
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
function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * The spec with the defaults table written out where unset, for a mutating webhook. Legacy fields
 * are never rewritten and their structured twins are never added (that would create a
 * conflict); `spec.output` is only completed when present, so a legacy-mode spec stays in legacy
 * mode. Defaults whose meaning is "empty" (revision, contextDir, rebuildToken) are not written.
 *
 * @param spec - anything; returned unchanged when it does not parse
 */
export function defaultSpec(spec: unknown): unknown {
  if (!CIBuildSpecSchema.safeParse(spec ?? {}).success || !isPlainObject(spec)) return spec;
  const out = structuredClone(spec) as Record<string, unknown>;
  writeDefaults(out, D, COMPLETE_ONLY_WHEN_SET);
  // The one default that depends on another field: the Service port is the container port.
  const deploy = out.deploy as Record<string, unknown>;
  if (typeof deploy.port === "number" && deploy.servicePort === undefined) deploy.servicePort = deploy.port;
  return out;
}
