/**
 * The CIBuild kind: git → in-cluster image build → digest-pinned Deployment.
 *
 * @packageDocumentation
 */
import type { AdmissionSupport } from "../types.ts";
import type { KubeObject } from "../../metacontroller/contract.ts";
import { defineKind } from "../define-kind.ts";
import { CIBUILD_SCHEMA } from "./schema.ts";
import { CIBUILD_OPTIONS, type CIBuildOptions } from "./options.ts";
import { CHILDREN, PARENT } from "./resources.ts";
import { CIBUILD_DEFAULTS } from "./defaults.ts";
import { syncCIBuild } from "./sync.ts";
import { finalizeCIBuild } from "./finalize.ts";
import { customizeCIBuild } from "./customize.ts";
import { explainCIBuild } from "./explain.ts";
import { defaultSpec, validateSpec, validateSpecUpdate } from "./validate.ts";
import { nestingProblem } from "../../kube/nesting.ts";

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
 * The CIBuild kind. Build Jobs are never updated; the Deployment and Service are updated in place
 * (see resources.ts). The customize hook asks for the build Pods.
 */
export const ciBuildController = defineKind<CIBuildOptions>({
  name: "cibuild",
  parent: PARENT,
  children: CHILDREN,
  schema: CIBUILD_SCHEMA,
  defaults: CIBUILD_DEFAULTS,
  hooks: { sync: syncCIBuild, finalize: finalizeCIBuild, customize: customizeCIBuild },
  admission: ciBuildAdmission,
  options: CIBUILD_OPTIONS,
  explain: explainCIBuild,
});

export { syncCIBuild, finalizeCIBuild, customizeCIBuild };
export { loadCIBuildOptions, DEFAULT_CIBUILD_OPTIONS, type CIBuildOptions } from "./options.ts";
export { checkSpec, validateSpec, defaultSpec, normalizeSpec, type NormalizedSpec } from "./validate.ts";
export { computeBuildHash, buildJobName, childNames } from "./naming.ts";
export { CIBuildSpecSchema, CIBuildStatusSchema, type CIBuildSpec, type CIBuildStatus, type BuildRecord, type SuccessfulBuild } from "./schema.ts";
export {
  ConditionType as CIBuildConditionType,
  SpecReason as CIBuildSpecReason,
  BuildReason as CIBuildBuildReason,
  DeployReason as CIBuildDeployReason,
} from "./reasons.ts";
