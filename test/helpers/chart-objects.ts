/**
 * Validates what `helm template` renders: built-in kinds against the Kubernetes OpenAPI schema
 * (kubernetes-models, offline); Metacontroller's CompositeController against Metacontroller's
 * real CRD with the apiserver's pruning (upstream-crd.ts); prometheus-operator's ServiceMonitor
 * against a hand-written JSON schema of the fields we use, written from its
 * `monitoring.coreos.com/v1` CRD.
 */
import { Ajv, type ValidateFunction } from "ajv";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { Service } from "kubernetes-models/v1/Service";
import { ServiceAccount } from "kubernetes-models/v1/ServiceAccount";
import { Secret } from "kubernetes-models/v1/Secret";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";
import { CustomResourceDefinition } from "kubernetes-models/apiextensions.k8s.io/v1/CustomResourceDefinition";
import { isDns1123Label, isDns1123Subdomain, isLabelValue } from "../../src/kube/names.ts";
import type { KubeDoc } from "./helm.ts";
import { assertValidCompositeController } from "./upstream-crd.ts";

type Validatable = { validate(): void };
const MODELS: Record<string, new (data: any) => Validatable> = {
  "apps/v1/Deployment": Deployment,
  "v1/Service": Service,
  "v1/ServiceAccount": ServiceAccount,
  "v1/Secret": Secret,
  "v1/ConfigMap": ConfigMap,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "networking.k8s.io/v1/NetworkPolicy": NetworkPolicy,
  "apiextensions.k8s.io/v1/CustomResourceDefinition": CustomResourceDefinition,
};

// prometheus-operator's CRD pattern for `interval` and `scrapeTimeout` (monitoring.coreos.com/v1
// Duration): Prometheus' own duration grammar, which has no fractions and no `us`/`ns`.
export const PROMETHEUS_DURATION = "^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$";
const metadata = {
  type: "object",
  required: ["name"],
  properties: { name: { type: "string" }, labels: { type: "object", additionalProperties: { type: "string" } } },
};

const CUSTOM_SCHEMAS: Record<string, object> = {
  "monitoring.coreos.com/v1/ServiceMonitor": {
    type: "object",
    required: ["apiVersion", "kind", "metadata", "spec"],
    properties: {
      metadata: { ...metadata, required: ["name", "namespace"] },
      spec: {
        type: "object",
        required: ["selector", "endpoints"],
        properties: {
          selector: { type: "object", properties: { matchLabels: { type: "object", additionalProperties: { type: "string" } } } },
          namespaceSelector: { type: "object", properties: { matchNames: { type: "array", items: { type: "string" } } } },
          endpoints: {
            type: "array",
            minItems: 1,
            items: {
              type: "object",
              additionalProperties: false,
              required: ["port"],
              properties: {
                port: { type: "string" },
                path: { type: "string", pattern: "^/" },
                scheme: { enum: ["http", "https", "HTTP", "HTTPS"] },
                interval: { type: "string", pattern: PROMETHEUS_DURATION },
                scrapeTimeout: { type: "string", pattern: PROMETHEUS_DURATION },
              },
            },
          },
        },
      },
    },
  },
};

/** The `app.kubernetes.io/component` values the chart uses, one per role of an object. */
const COMPONENTS = new Set(["hook-server", "hook-auth", "composite-controller", "crd", "metrics", "admission-webhook", "admission-webhook-tls"]);

const ajv = new Ajv({ allErrors: true, strict: false });
const customValidators = new Map<string, ValidateFunction>(
  Object.entries(CUSTOM_SCHEMAS).map(([key, schema]) => [key, ajv.compile(schema)]),
);

/**
 * Throws when a rendered object is not what the apiserver (or the CRD) would accept: schema,
 * name rules, label values, and namespace presence for namespaced kinds.
 * @param namespace - the release namespace namespaced objects must carry
 */
export function assertValidRenderedObject(object: KubeDoc, namespace: string): void {
  const key = `${object.apiVersion}/${object.kind}`;
  const name = object.metadata?.name;
  const where = `${key} ${name}`;
  const Model = MODELS[key];
  const custom = customValidators.get(key);
  if (Model) new Model(object).validate();
  else if (key === "metacontroller.k8s.io/v1alpha1/CompositeController") assertValidCompositeController(object);
  else if (custom) {
    if (!custom(object)) throw new Error(`${where}: ${ajv.errorsText(custom.errors)}`);
  } else throw new Error(`${where}: no schema for this kind`);

  const dnsLabelName = object.kind === "Service" || object.kind === "Deployment";
  if (!(dnsLabelName ? isDns1123Label(name) : isDns1123Subdomain(name))) throw new Error(`${where}: invalid name`);
  const clusterScoped = object.kind === "CompositeController" || object.kind === "CustomResourceDefinition";
  if (clusterScoped && object.metadata.namespace !== undefined) throw new Error(`${where}: cluster-scoped object has a namespace`);
  if (!clusterScoped && object.metadata.namespace !== namespace && object.kind !== "ConfigMap") {
    throw new Error(`${where}: namespace ${object.metadata.namespace}, want ${namespace}`);
  }
  const component = object.metadata.labels?.["app.kubernetes.io/component"];
  if (!component || !COMPONENTS.has(component)) throw new Error(`${where}: app.kubernetes.io/component ${JSON.stringify(component)} does not say what it is`);
  const labelSets = [object.metadata.labels, object.spec?.template?.metadata?.labels, object.spec?.selector?.matchLabels];
  for (const labels of labelSets) {
    for (const [k, v] of Object.entries(labels ?? {})) {
      if (typeof v !== "string" || !isLabelValue(v)) throw new Error(`${where}: label ${k}=${JSON.stringify(v)} is not a valid label value`);
    }
  }
}
