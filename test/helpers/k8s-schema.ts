/**
 * Validates emitted children against the Kubernetes OpenAPI schema (kubernetes-models, offline).
 * It checks types, required fields and apiVersion/kind — not the apiserver's Go validation.
 */
import { Job } from "kubernetes-models/batch/v1/Job";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { Service } from "kubernetes-models/v1/Service";
import { Pod } from "kubernetes-models/v1/Pod";
import { isDns1123Label, isDns1123Subdomain, isLabelValue } from "../../src/kube/names.ts";

type Validatable = { validate(): void };
const MODELS: Record<string, new (data: any) => Validatable> = {
  "batch/v1/Job": Job,
  "apps/v1/Deployment": Deployment,
  "v1/Service": Service,
  "v1/Pod": Pod,
};

/**
 * Throws when `object` is not a valid instance of its kind, or when its name, labels or
 * annotations break the API's metadata rules.
 */
export function assertValidKubeObject(object: any): void {
  const key = `${object?.apiVersion}/${object?.kind}`;
  const Model = MODELS[key];
  if (!Model) throw new Error(`no schema for ${key}`);
  new Model(object).validate();
  const meta = object.metadata ?? {};
  const nameOk = object.kind === "Service" ? isDns1123Label(meta.name) && /^[a-z]/.test(meta.name) : isDns1123Subdomain(meta.name);
  if (!nameOk) throw new Error(`${key} name ${JSON.stringify(meta.name)} is not valid`);
  if (object.kind === "Job" && !isLabelValue(meta.name)) {
    throw new Error(`Job name ${JSON.stringify(meta.name)} is over 63 characters or not a label value (it becomes the job-name label)`);
  }
  for (const labels of [meta.labels, object.spec?.template?.metadata?.labels]) {
    for (const [k, v] of Object.entries(labels ?? {})) {
      if (!isLabelValue(String(v))) throw new Error(`${key} ${meta.name}: label ${k}=${JSON.stringify(v)} is not a valid label value`);
    }
  }
  const annotations = JSON.stringify(meta.annotations ?? {});
  if (annotations.length > 256 * 1024) throw new Error(`${key} ${meta.name}: annotations exceed 256 KiB`);
}
