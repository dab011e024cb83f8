/**
 * Validates custom resources the way the apiserver does against a real CRD: the version's
 * `openAPIV3Schema` checked by ajv, plus the pruning an apiserver applies before it stores an
 * object (a field the structural schema does not declare is silently dropped). Dropping is a
 * failure here: a pruned field is a setting that never reaches the controller.
 *
 * The CRDs are read from the shared folder's `upstream/` (`../shared` beside the repository, see
 * helpers/shared.ts), e.g. Metacontroller's `metacontroller-crds-v1.yaml`.
 *
 * @packageDocumentation
 */
import { readFileSync } from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";
import { parseAllDocuments } from "yaml";
import { sharedPath } from "./shared.ts";


type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
  [key: string]: unknown;
};

/**
 * Paths of every field the apiserver would prune from `value` under the structural `schema`
 * (Kubernetes' structural pruning): properties not declared under `properties`, unless the
 * schema has `additionalProperties` or `x-kubernetes-preserve-unknown-fields: true`. At the
 * root and in embedded resources, `apiVersion`, `kind` and `metadata` are kept.
 * @param path - the JSON path of `value`, for the messages (`.spec.hooks`)
 */
export function prunedFields(value: unknown, schema: Schema | undefined, path = "", isRoot = true): string[] {
  if (schema === undefined || value === null || typeof value !== "object") return [];
  if (Array.isArray(value)) {
    return value.flatMap((item, i) => prunedFields(item, schema.items, `${path}[${i}]`, false));
  }
  const out: string[] = [];
  const embedded = isRoot || schema["x-kubernetes-embedded-resource"] === true;
  for (const [key, child] of Object.entries(value)) {
    const childPath = `${path}.${key}`;
    if (embedded && (key === "apiVersion" || key === "kind")) continue;
    // The apiserver validates metadata itself (name, labels…); the CRD's `metadata` schema
    // never prunes it.
    if (embedded && key === "metadata") continue;
    const declared = schema.properties?.[key];
    if (declared) {
      out.push(...prunedFields(child, declared, childPath, false));
    } else if (typeof schema.additionalProperties === "object") {
      out.push(...prunedFields(child, schema.additionalProperties, childPath, false));
    } else if (schema.additionalProperties === true || schema["x-kubernetes-preserve-unknown-fields"] === true) {
      continue;
    } else {
      out.push(childPath);
    }
  }
  return out;
}

/** A validator for one kind of a CRD file. */
export interface CrdValidator {
  /** `group/version/Kind`, e.g. `metacontroller.k8s.io/v1alpha1/CompositeController`. */
  readonly key: string;
  /** Whether the CRD's scope is `Cluster`. */
  readonly clusterScoped: boolean;
  /** Every problem: schema violations and pruned fields; empty when the apiserver would store the object as given. */
  problems(object: unknown): string[];
}

// Formats the apiserver checks for CRD fields (k8s.io/kube-openapi's strfmt registry); the
// others used by these CRDs only annotate.
const GO_DURATION = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h|d|w))+$|^0$/;

function newAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false });
  ajv.addFormat("duration", GO_DURATION);
  ajv.addFormat("int32", { type: "number", validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
  ajv.addFormat("int64", { type: "number", validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat("date-time", { type: "string", validate: (s: string) => !Number.isNaN(Date.parse(s)) });
  return ajv;
}

/**
 * Reads every CustomResourceDefinition of a YAML file and returns one validator per served version.
 * @throws Error when the file has no CRD
 */
export function loadCrdValidators(file: string): Map<string, CrdValidator> {
  const ajv = newAjv();
  const out = new Map<string, CrdValidator>();
  for (const doc of parseAllDocuments(readFileSync(file, "utf8"))) {
    const crd = doc.toJSON() as any;
    if (crd?.kind !== "CustomResourceDefinition") continue;
    for (const version of crd.spec.versions) {
      if (!version.served) continue;
      const schema: Schema = version.schema.openAPIV3Schema;
      const validate: ValidateFunction = ajv.compile(schema);
      const key = `${crd.spec.group}/${version.name}/${crd.spec.names.kind}`;
      out.set(key, {
        key,
        clusterScoped: crd.spec.scope === "Cluster",
        problems(object) {
          const problems: string[] = [];
          if (!validate(object)) {
            for (const e of validate.errors ?? []) problems.push(`${e.instancePath || "/"} ${e.message}`);
          }
          for (const path of prunedFields(object, schema)) problems.push(`${path} is not in the CRD's schema (the apiserver prunes it)`);
          return problems;
        },
      });
    }
  }
  if (out.size === 0) throw new Error(`${file} has no CustomResourceDefinition`);
  return out;
}

let metacontroller: Map<string, CrdValidator> | undefined;

/** Metacontroller's validators, keyed by `group/version/Kind`. */
export function metacontrollerValidators(): Map<string, CrdValidator> {
  // Metacontroller's published CRDs (CompositeController, DecoratorController, ControllerRevision).
  metacontroller ??= loadCrdValidators(sharedPath("upstream", "metacontroller", "metacontroller-crds-v1.yaml"));
  return metacontroller;
}

/**
 * Throws with every problem when `object` is not a CompositeController the apiserver would store
 * unchanged under Metacontroller's real CRD.
 */
export function assertValidCompositeController(object: any): void {
  const validator = metacontrollerValidators().get("metacontroller.k8s.io/v1alpha1/CompositeController")!;
  const problems = validator.problems(object);
  if (object?.metadata?.namespace !== undefined) problems.push("CompositeController is cluster-scoped but has metadata.namespace");
  if (problems.length > 0) throw new Error(`CompositeController ${object?.metadata?.name}: ${problems.join("; ")}`);
}
