/**
 * The CIBuild API (`cicd.cicd.com/v1alpha1`): one zod schema for spec and status, the single
 * source of the hook's type checks, the TypeScript types and the CRD's openAPIV3Schema.
 *
 * The schema holds *no* `.default()`: defaults are applied by the hook ({@link normalizeSpec} in
 * `validate.ts`), never stored, because the build hash is taken over the spec as received
 * and an apiserver-written default would change it.
 *
 * @packageDocumentation
 */
import { z } from "zod";
import type { KindSchema } from "../types.ts";
import { ConditionSchema } from "../../kube/conditions.ts";
import { ciBuildCelRules } from "./cel-rules.ts";

/** API group of the CIBuild kind (the seed's `cicd` group + `cicd.com` domain). */
export const CIBUILD_GROUP = "cicd.cicd.com";
/** API version served. */
export const CIBUILD_VERSION = "v1alpha1";
/** `apiVersion` of CIBuild objects. */
export const CIBUILD_API_VERSION = `${CIBUILD_GROUP}/${CIBUILD_VERSION}`;
/** CRD plural: not the seed's `cibuildren`, a pluralizer bug (the samples never name the plural). */
export const CIBUILD_PLURAL = "cibuilds";

/** Kubernetes resource quantities: `"500m"`, `"1Gi"` or an integer. */
const Quantity = z.union([z.string(), z.int()]);
const ResourceRequirements = z
  .object({
    limits: z.record(z.string(), Quantity).optional(),
    requests: z.record(z.string(), Quantity).optional(),
  })
  .describe("Compute resources (core/v1 ResourceRequirements: limits, requests).");

const GitSource = z.object({
  url: z
    .string()
    .describe("Repository URL: https://…, ssh://… or scp-like user@host:path. Never with credentials in it. Twin of SCMRepoURL.")
    .optional(),
  revision: z
    .string()
    .describe('Branch, tag or full commit SHA. Empty: the remote\'s default branch (git-sync --ref=HEAD). Twin of SCMBranch.')
    .optional(),
  cloneSecret: z
    .string()
    .describe("Secret with the clone credentials. SSH: keys <sshKeySecretKey> and known_hosts. HTTPS: keys username and password. Required for SSH URLs. Twin of SCMSecret.")
    .optional(),
  sshKeySecretKey: z.string().describe("Key of the SSH private key in cloneSecret (ssh-privatekey for kubernetes.io/ssh-auth Secrets).").optional(),
  insecureIgnoreHostKey: z.boolean().describe("Skip the SSH host key check (--ssh-known-hosts=false).").optional(),
  depth: z.int().min(0).max(1000000).describe("Clone depth; 0 is the full history.").optional(),
  submodules: z.enum(["off", "shallow", "recursive"]).describe("Submodule handling.").optional(),
});

const BuildArg = z.object({
  name: z.string().describe("Build argument name ([A-Za-z_][A-Za-z0-9_]*)."),
  value: z.string().describe("Value. Not secret: build args end up in the image history.").optional(),
});

const Toleration = z.object({
  key: z.string().optional(),
  operator: z.string().optional(),
  value: z.string().optional(),
  effect: z.string().optional(),
  tolerationSeconds: z.int().optional(),
});

/** `spec` of a CIBuild. Legacy seed fields keep their exact JSON names. */
export const CIBuildSpecSchema = z
  .object({
    SCMRepoURL: z.string().describe("Legacy (seed) spelling of source.git.url.").optional(),
    SCMBranch: z.string().describe("Legacy (seed) spelling of source.git.revision.").optional(),
    SCMSecret: z.string().describe("Legacy (seed) spelling of source.git.cloneSecret.").optional(),
    subContext: z.string().describe("Legacy (seed) spelling of source.contextDir.").optional(),
    imageDestination: z.string().describe("Legacy (seed) spelling of output.image; without spec.output it also makes the push insecure (plain HTTP).").optional(),
    source: z
      .object({
        git: GitSource.optional(),
        contextDir: z.string().describe("Build context, relative to the repository root (no .., no leading /). Twin of subContext.").optional(),
      })
      .optional(),
    build: z
      .object({
        strategy: z.enum(["kaniko", "buildkit"]).describe("Builder: kaniko or buildkit (rootless; needs a privileged Pod Security namespace).").optional(),
        dockerfile: z.string().describe("Dockerfile path relative to the context.").optional(),
        target: z.string().describe("Multi-stage target (--target).").optional(),
        buildArgs: z.array(BuildArg).optional(),
        cache: z
          .object({
            enabled: z.boolean().optional(),
            repo: z.string().describe("Cache repository (--cache-repo).").optional(),
          })
          .optional(),
        reproducible: z.boolean().describe("Strip timestamps (--reproducible).").optional(),
        timeout: z.string().describe("Build deadline as a duration such as 30m or 1h30m (Job activeDeadlineSeconds).").optional(),
        retries: z.int().min(0).max(5).describe("Job backoffLimit.").optional(),
        resources: ResourceRequirements.optional(),
        nodeSelector: z.record(z.string(), z.string()).optional(),
        tolerations: z.array(Toleration).optional(),
        serviceAccountName: z.string().optional(),
      })
      .optional(),
    output: z
      .object({
        image: z.string().describe("Image to push, repository[:tag] (no digest). Twin of imageDestination.").optional(),
        pushSecret: z.string().describe("kubernetes.io/dockerconfigjson Secret used to push.").optional(),
        pushSecretKey: z.string().describe("Key in pushSecret holding the docker config.").optional(),
        insecure: z.boolean().describe("Push over plain HTTP. In legacy mode (no spec.output, spec.imageDestination set) the hook assumes true.").optional(),
        immutableTag: z.boolean().describe("Also push <repository>:cibuild-<buildHash>.").optional(),
        additionalTags: z.array(z.string()).describe("More tags pushed to the same repository.").optional(),
      })
      .optional(),
    deploy: z
      .object({
        enabled: z.boolean().describe("Run the built image as a Deployment.").optional(),
        replicas: z.int().min(0).max(10000).describe("Replicas of the Deployment.").optional(),
        port: z.int().min(1).max(65535).describe("Container port named http; a Service exists only when set.").optional(),
        servicePort: z.int().min(1).max(65535).describe("Service port. Unset: deploy.port.").optional(),
        serviceType: z.enum(["ClusterIP", "NodePort", "LoadBalancer"]).describe("Type of the Service.").optional(),
        env: z
          .array(
            z.object({
              name: z.string(),
              value: z.string().optional(),
              valueFrom: z.looseObject({}).optional(),
            }),
          )
          .optional(),
        resources: ResourceRequirements.optional(),
        imagePullSecrets: z.array(z.object({ name: z.string() })).optional(),
      })
      .optional(),
    retention: z
      .object({
        succeededLimit: z.int().min(0).max(100).describe("Old succeeded build Jobs kept.").optional(),
        failedLimit: z.int().min(0).max(100).describe("Old failed build Jobs kept.").optional(),
      })
      .optional(),
    suspend: z.boolean().describe("Cancel a running build and start no new one.").optional(),
    rebuildToken: z.string().describe("Change it to build the same spec again (e.g. new commits on a branch).").optional(),
  })
  .describe("What to build and how to run it. Defaults are applied by the hook, not stored.");

/** A CIBuild spec as parsed by {@link CIBuildSpecSchema} (every field optional). */
export type CIBuildSpec = z.infer<typeof CIBuildSpecSchema>;

/** Phases of one build (`status.currentBuild.phase`). */
export const BUILD_PHASES = ["Pending", "Running", "Succeeded", "Failed", "Cancelled"] as const;

// Values read back from status are checked like fresh ones: status is writable through /status.
const Digest = z.string().regex(/^sha256:[0-9a-f]{64}$/);
const CommitSHA = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/);

/** `status.currentBuild`: the build for the current buildHash. */
export const BuildRecordSchema = z.object({
  name: z.string().describe("Job name."),
  buildHash: z.string(),
  generation: z.int().optional().describe("metadata.generation that asked for this build."),
  revision: z.string().optional().describe("Requested revision (HEAD: the remote's default branch)."),
  commitSHA: CommitSHA.optional().describe("Commit the build used (from the prepare container)."),
  digest: Digest.optional().describe("Digest of the pushed image (from the build container)."),
  image: z.string().optional().describe("Image pushed (output.image)."),
  startTime: z.string().optional(),
  completionTime: z.string().optional(),
  phase: z.enum(BUILD_PHASES),
  reason: z.string().optional(),
  message: z.string().optional(),
});
/** One build as remembered in status. */
export type BuildRecord = z.infer<typeof BuildRecordSchema>;

/** `status.lastSuccessfulBuild`: the build whose image is (or will be) deployed. */
export const SuccessfulBuildSchema = z.object({
  name: z.string(),
  buildHash: z.string(),
  commitSHA: CommitSHA.optional(),
  digest: Digest.optional(),
  imageRef: z.string().min(1).max(1024).regex(/^\S+$/).describe("Image reference the Deployment runs (repository@digest when known)."),
  completionTime: z.string().optional(),
});
/** The last successful build. */
export type SuccessfulBuild = z.infer<typeof SuccessfulBuildSchema>;

/** `status.deployment`: the observed Deployment. */
export const DeploymentStatusSchema = z.object({
  name: z.string(),
  image: z.string().optional(),
  replicas: z.int().optional(),
  updatedReplicas: z.int().optional(),
  readyReplicas: z.int().optional(),
  availableReplicas: z.int().optional(),
});
/** What status reports about the Deployment. */
export type DeploymentStatus = z.infer<typeof DeploymentStatusSchema>;

/** Overall phases (`status.phase`). */
export const PHASES = [
  "Pending",
  "Building",
  "Deploying",
  "Ready",
  "Succeeded",
  "Failed",
  "Invalid",
  "Suspended",
  "Terminating",
] as const;
/** Overall phase of a CIBuild. */
export type Phase = (typeof PHASES)[number];

/** `status` of a CIBuild (written whole by every hook answer). */
export const CIBuildStatusSchema = z.object({
  observedGeneration: z.int().optional(),
  phase: z.enum(PHASES).optional(),
  message: z.string().optional(),
  buildHash: z.string().optional().describe("Build hash of the current spec: SHA-256 of the spec without deploy, retention and suspend (first 10 hex characters); new inputs, new build."),
  conditions: z.array(ConditionSchema).optional(),
  currentBuild: BuildRecordSchema.optional(),
  lastSuccessfulBuild: SuccessfulBuildSchema.optional(),
  deployment: DeploymentStatusSchema.optional(),
});
/** The status the hook writes. */
export type CIBuildStatus = z.infer<typeof CIBuildStatusSchema>;

/** What the generated CRD says besides the schemas. */
export const CIBUILD_SCHEMA: KindSchema = {
  spec: CIBuildSpecSchema,
  status: CIBuildStatusSchema,
  celRules: ciBuildCelRules,
  description: "CIBuild clones a git repository, builds and pushes an image in a Job, and runs it as a Deployment pinned by digest.",
  printerColumns: [
    { name: "Phase", type: "string", jsonPath: ".status.phase" },
    { name: "Image", type: "string", jsonPath: ".status.lastSuccessfulBuild.imageRef" },
    { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
  ],
};
