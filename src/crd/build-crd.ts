/**
 * Builds an apiextensions.k8s.io/v1 CustomResourceDefinition from a kind's zod spec and status
 * schemas: one schema is the source of validation, TypeScript types and the CRD.
 *
 * @packageDocumentation
 */
import type { z } from "zod";
import { toStructuralSchema, type SchemaNode } from "./structural.ts";
import { describeDefaults, type SpecDefaults } from "../controllers/defaults.ts";

/** A printer column (`kubectl get` output). */
export interface PrinterColumn {
  name: string;
  type: "string" | "integer" | "number" | "boolean" | "date";
  jsonPath: string;
  description?: string;
  priority?: number;
}

/** One CEL rule on the spec (`x-kubernetes-validations`). */
export interface CelRule {
  rule: string;
  message: string;
  messageExpression?: string;
  fieldPath?: string;
}

/** What a CRD needs besides the schemas. */
export interface CrdOptions {
  group: string;
  version: string;
  kind: string;
  plural: string;
  singular: string;
  shortNames?: string[];
  categories?: string[];
  spec: z.ZodType;
  status: z.ZodType;
  printerColumns: PrinterColumn[];
  /** Validation rules on the spec (CEL), added to `spec`'s `x-kubernetes-validations`. */
  specValidations?: CelRule[];
  description?: string;
  /** The kind's defaults table: each defaulted field's description gets `Default: <value>.` */
  defaults?: SpecDefaults;
}

/**
 * The CRD object, with the status subresource enabled (Metacontroller refuses parents without it).
 */
export function buildCrd(options: CrdOptions): Record<string, unknown> {
  const spec: SchemaNode = toStructuralSchema(options.spec);
  if (options.defaults) describeDefaults(spec, options.defaults);
  if (options.specValidations?.length) spec["x-kubernetes-validations"] = options.specValidations;
  const status: SchemaNode = toStructuralSchema(options.status);
  const openAPIV3Schema: SchemaNode = {
    type: "object",
    ...(options.description ? { description: options.description } : {}),
    properties: {
      apiVersion: { type: "string" },
      kind: { type: "string" },
      metadata: { type: "object" },
      spec,
      status,
    },
    required: ["spec"],
  };
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: {
      name: `${options.plural}.${options.group}`,
      labels: { "app.kubernetes.io/part-of": "metahooks" },
    },
    spec: {
      group: options.group,
      scope: "Namespaced",
      names: {
        kind: options.kind,
        listKind: `${options.kind}List`,
        plural: options.plural,
        singular: options.singular,
        ...(options.shortNames?.length ? { shortNames: options.shortNames } : {}),
        ...(options.categories?.length ? { categories: options.categories } : {}),
      },
      versions: [
        {
          name: options.version,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: options.printerColumns,
          schema: { openAPIV3Schema },
        },
      ],
    },
  };
}
