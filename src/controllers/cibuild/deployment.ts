/**
 * The app Deployment (apps/v1, updated in place) and how its image reference is chosen.
 *
 * @packageDocumentation
 */
import type { KubeObject } from "../../metacontroller/contract.ts";
import type { NormalizedSpec } from "./validate.ts";
import type { SuccessfulBuild } from "./schema.ts";
import { ANNOTATION_BUILD_HASH, ANNOTATION_BUILD_JOB, LABEL_CIBUILD, MANAGED_BY, childNames, immutableTag } from "./naming.ts";

/** Name of the app container. */
export const APP_CONTAINER = "app";

/**
 * The image reference of a successful build, best first:
 * 1. `<repository>@<digest>` once the digest is known (pinned: a reused tag never rolls the Pods);
 * 2. else `<repository>:cibuild-<buildHash>` when the immutable tag was pushed;
 * 3. else `output.image` (a mutable tag: {@link deploymentFor} then adds a pod-template
 *    annotation carrying the build hash, to force a rollout).
 */
export function imageRefFor(spec: NormalizedSpec, buildHash: string, digest: string | undefined): string {
  if (digest) return `${spec.output.repository}@${digest}`;
  if (spec.output.immutableTag) return `${spec.output.repository}:${immutableTag(buildHash)}`;
  return spec.output.image;
}

/** True when an image reference names one immutable image (a digest or our per-build tag). */
export function isPinnedRef(ref: string): boolean {
  return ref.includes("@sha256:") || /:cibuild-[0-9a-f]{10}$/.test(ref);
}

/** The build a Deployment runs: its Job name, build hash and image reference. */
export type DeployedBuild = Pick<SuccessfulBuild, "name" | "buildHash" | "imageRef">;

/** What {@link deploymentFor} needs. */
export interface DeploymentInput {
  parentName: string;
  spec: NormalizedSpec;
  /** The build the Deployment runs. */
  build: DeployedBuild;
}

/** Labels shared by the Deployment and its Service. */
export function appLabels(parentName: string): Record<string, string> {
  const names = childNames(parentName);
  return { app: names.appLabel, "app.kubernetes.io/managed-by": MANAGED_BY, [LABEL_CIBUILD]: names.parentLabel };
}

/**
 * The Deployment `deploy-<name>` running `build.imageRef`. Its selector `{app: app-<name>}` never
 * changes (it is immutable in apps/v1).
 */
export function deploymentFor(input: DeploymentInput): KubeObject {
  const { parentName, spec, build } = input;
  const names = childNames(parentName);
  const container: Record<string, unknown> = { name: APP_CONTAINER, image: build.imageRef };
  if (spec.deploy.port !== undefined) container.ports = [{ name: "http", containerPort: spec.deploy.port, protocol: "TCP" }];
  if (spec.deploy.env?.length) container.env = spec.deploy.env;
  if (spec.deploy.resources) container.resources = spec.deploy.resources;
  const podSpec: Record<string, unknown> = { containers: [container] };
  if (spec.deploy.imagePullSecrets?.length) podSpec.imagePullSecrets = spec.deploy.imagePullSecrets;
  const templateMeta: Record<string, unknown> = { labels: { app: names.appLabel, [LABEL_CIBUILD]: names.parentLabel } };
  if (!isPinnedRef(build.imageRef)) templateMeta.annotations = { [ANNOTATION_BUILD_HASH]: build.buildHash };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: names.deployment,
      labels: appLabels(parentName),
      annotations: { [ANNOTATION_BUILD_HASH]: build.buildHash, [ANNOTATION_BUILD_JOB]: build.name },
    },
    spec: {
      replicas: spec.deploy.replicas,
      selector: { matchLabels: { app: names.appLabel } },
      template: { metadata: templateMeta, spec: podSpec },
    },
  };
}

/** The `app` container's image of an observed Deployment. */
export function observedAppImage(deployment: KubeObject): string | undefined {
  const containers = (deployment.spec as { template?: { spec?: { containers?: unknown } } } | undefined)?.template?.spec?.containers;
  if (!Array.isArray(containers)) return undefined;
  const app = (containers as Array<{ name?: unknown; image?: unknown }>).find((c) => c?.name === APP_CONTAINER) ?? containers[0];
  return typeof app?.image === "string" && app.image ? app.image : undefined;
}
