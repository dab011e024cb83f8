/**
 * Validates what `helm template` renders: built-in kinds against the Kubernetes OpenAPI schema
 * (kubernetes-models, offline), and the custom resources the chart renders (Metacontroller's
 * CompositeController, prometheus-operator's ServiceMonitor) against hand-written JSON schemas
 * of the fields we use, written from those projects' CRDs (Metacontroller v4.17 `types.go` and
 * docs `api/hook.md`; prometheus-operator `monitoring.coreos.com/v1` ServiceMonitor).
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
import { ClusterRole } from "kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole";
import { ClusterRoleBinding } from "kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding";
import { Ingress } from "kubernetes-models/networking.k8s.io/v1/Ingress";
import { isDns1123Label, isDns1123Subdomain, isLabelValue } from "../../src/kube/names.ts";
import type { KubeDoc } from "./helm.ts";

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
  "rbac.authorization.k8s.io/v1/ClusterRole": ClusterRole,
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": ClusterRoleBinding,
  "networking.k8s.io/v1/Ingress": Ingress,
};

const GO_DURATION = "^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$";
const secretKeyRef = {
  type: "object",
  additionalProperties: false,
  required: ["name", "namespace"],
  properties: { name: { type: "string", minLength: 1 }, namespace: { type: "string", minLength: 1 }, key: { type: "string" } },
};
const webhook = {
  type: "object",
  additionalProperties: false,
  properties: {
    url: { type: "string", pattern: "^https?://[^/]+(/.*)?$" },
    timeout: { type: "string", pattern: GO_DURATION },
    path: { type: "string" },
    service: { type: "object" },
    etag: { type: "object" },
    responseUnMarshallMode: { enum: ["loose", "strict"] },
    // Metacontroller v4.16+
    caBundle: {
      type: "object",
      minProperties: 1,
      maxProperties: 1,
      properties: { inline: { type: "string" }, secretRef: secretKeyRef, configMapRef: secretKeyRef },
    },
    authorization: { type: "object" },
    basicAuth: { type: "object" },
    clientTLS: { type: "object" },
  },
};
const hook = {
  type: "object",
  additionalProperties: false,
  required: ["webhook"],
  properties: { version: { enum: ["v1", "v2"] }, webhook },
};
const resourceRule = {
  type: "object",
  required: ["apiVersion", "resource"],
  properties: { apiVersion: { type: "string", minLength: 1 }, resource: { type: "string", pattern: "^[a-z0-9.-]+$" } },
};
const metadata = {
  type: "object",
  required: ["name"],
  properties: { name: { type: "string" }, labels: { type: "object", additionalProperties: { type: "string" } } },
};

const CUSTOM_SCHEMAS: Record<string, object> = {
  "metacontroller.k8s.io/v1alpha1/CompositeController": {
    type: "object",
    required: ["apiVersion", "kind", "metadata", "spec"],
    properties: {
      metadata: { ...metadata, not: { required: ["namespace"] } }, // cluster-scoped
      spec: {
        type: "object",
        additionalProperties: false,
        required: ["parentResource"],
        properties: {
          parentResource: resourceRule,
          childResources: { type: "array", items: resourceRule },
          hooks: {
            type: "object",
            additionalProperties: false,
            properties: { sync: hook, finalize: hook, customize: hook },
          },
          resyncPeriodSeconds: { type: "integer", minimum: 1 },
          generateSelector: { type: "boolean" },
        },
      },
    },
  },
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
                interval: { type: "string", pattern: GO_DURATION },
                scrapeTimeout: { type: "string", pattern: GO_DURATION },
              },
            },
          },
        },
      },
    },
  },
};

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
  else if (custom) {
    if (!custom(object)) throw new Error(`${where}: ${ajv.errorsText(custom.errors)}`);
  } else throw new Error(`${where}: no schema for this kind`);

  const dnsLabelName = object.kind === "Service" || object.kind === "Deployment";
  if (!(dnsLabelName ? isDns1123Label(name) : isDns1123Subdomain(name))) throw new Error(`${where}: invalid name`);
  const clusterScoped = ["CompositeController", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding"].includes(object.kind);
  if (clusterScoped && object.metadata.namespace !== undefined) throw new Error(`${where}: cluster-scoped object has a namespace`);
  if (!clusterScoped && object.metadata.namespace !== namespace && object.kind !== "ConfigMap") {
    throw new Error(`${where}: namespace ${object.metadata.namespace}, want ${namespace}`);
  }
  const labelSets = [object.metadata.labels, object.spec?.template?.metadata?.labels, object.spec?.selector?.matchLabels];
  for (const labels of labelSets) {
    for (const [k, v] of Object.entries(labels ?? {})) {
      if (typeof v !== "string" || !isLabelValue(v)) throw new Error(`${where}: label ${k}=${JSON.stringify(v)} is not a valid label value`);
    }
  }
}
