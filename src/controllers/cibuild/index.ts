/**
 * The CIBuild controller kind: git → in-cluster image build → digest-pinned Deployment.
 *
 * @packageDocumentation
 */
import type { AdmissionSupport, ControllerDefinition } from "../types.ts";
import type { KubeObject } from "../../metacontroller/contract.ts";
import { CIBUILD_API_VERSION, CIBUILD_PLURAL, ciBuildCrd } from "./schema.ts";
import { loadCIBuildOptions, type CIBuildOptions } from "./options.ts";
import { syncCIBuild } from "./sync.ts";
import { finalizeCIBuild } from "./finalize.ts";
import { customizeCIBuild } from "./customize.ts";
import { defaultSpec, validateSpec, validateSpecUpdate } from "./validate.ts";
import { nestingProblem } from "../../kube/nesting.ts";

/** Hook timeout in the CompositeController (Metacontroller's default is 10s too; explicit here). */
export const HOOK_TIMEOUT = "10s";

/** Validation and defaulting for admission webhooks: the sync hook's own rules. */
export const ciBuildAdmission: AdmissionSupport = {
  validate(parent: KubeObject, oldParent?: KubeObject) {
    // Measured first, as the sync hook does: past the bound nothing else may walk the object.
    const tooDeep = nestingProblem(parent);
    if (tooDeep) return [tooDeep];
    return oldParent ? validateSpecUpdate(parent.spec, oldParent.spec) : validateSpec(parent.spec);
  },
  defaultSpec,
};

/**
 * The CompositeController for CIBuild (§7.8): Jobs are never updated (no updateStrategy, i.e.
 * OnDelete: Jobs are immutable), the Deployment and Service are updated in place.
 * @param base - hook base URL without trailing slash
 */
export function ciBuildCompositeController(base: string): Record<string, unknown> {
  const hook = (path: string) => ({ webhook: { url: `${base}/${path}/cibuild`, timeout: HOOK_TIMEOUT }, version: "v1" });
  return {
    apiVersion: "metacontroller.k8s.io/v1alpha1",
    kind: "CompositeController",
    metadata: { name: "cibuild-controller" },
    spec: {
      generateSelector: true,
      parentResource: { apiVersion: CIBUILD_API_VERSION, resource: CIBUILD_PLURAL },
      childResources: [
        { apiVersion: "batch/v1", resource: "jobs" },
        { apiVersion: "apps/v1", resource: "deployments", updateStrategy: { method: "InPlace" } },
        { apiVersion: "v1", resource: "services", updateStrategy: { method: "InPlace" } },
      ],
      hooks: { sync: hook("sync"), finalize: hook("finalize"), customize: hook("customize") },
    },
  };
}

/** The CIBuild kind as metahooks serves it. */
export const ciBuildController: ControllerDefinition<CIBuildOptions> = {
  name: "cibuild",
  apiVersion: CIBUILD_API_VERSION,
  kind: "CIBuild",
  sync: syncCIBuild,
  finalize: finalizeCIBuild,
  customize: customizeCIBuild,
  admission: ciBuildAdmission,
  loadOptions: loadCIBuildOptions,
  crd: ciBuildCrd,
  compositeController: ciBuildCompositeController,
};

export { syncCIBuild, finalizeCIBuild, customizeCIBuild, ciBuildCrd };
export { loadCIBuildOptions, DEFAULT_CIBUILD_OPTIONS, CIBUILD_IMAGE_ENV, type CIBuildOptions } from "./options.ts";
export { checkSpec, validateSpec, defaultSpec, normalizeSpec, type NormalizedSpec } from "./validate.ts";
export { computeBuildHash, buildJobName, childNames } from "./naming.ts";
export { CIBuildSpecSchema, CIBuildStatusSchema, type CIBuildSpec, type CIBuildStatus, type BuildRecord, type SuccessfulBuild } from "./schema.ts";
export {
  ConditionType as CIBuildConditionType,
  SpecReason as CIBuildSpecReason,
  BuildReason as CIBuildBuildReason,
  DeployReason as CIBuildDeployReason,
} from "./reasons.ts";
