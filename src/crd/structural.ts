/**
 * zod schema → Kubernetes structural openAPIV3Schema.
 *
 * `z.toJSONSchema` with `target: "openapi-3.0", io: "input"` is almost structural; this pass fixes
 * the rest: unknown values become `x-kubernetes-preserve-unknown-fields`,
 * string|int unions become `x-kubernetes-int-or-string`, loose objects lose the forbidden
 * `properties` + `additionalProperties` pair, and keys the apiserver rejects are dropped.
 *
 * @packageDocumentation
 */
import { z } from "zod";

/** A JSON schema node (JSONSchemaProps). */
export type SchemaNode = Record<string, unknown>;

const SAFE_INT = 9007199254740991;
const DROP_KEYS = new Set(["$schema", "examples", "id", "$id"]);

/**
 * Converts a zod schema to a structural schema node.
 * @throws Error when the schema uses something a CRD cannot express (transforms, recursion, …)
 */
export function toStructuralSchema(schema: z.ZodType): SchemaNode {
  const raw = z.toJSONSchema(schema, {
    target: "openapi-3.0",
    io: "input",
    cycles: "throw",
    reused: "inline",
    unrepresentable: "throw",
  }) as SchemaNode;
  return normalize(raw);
}

function isEmptySchema(node: SchemaNode): boolean {
  return Object.keys(node).filter((k) => k !== "description").length === 0;
}

function isIntOrString(node: SchemaNode): boolean {
  const options = (node.anyOf ?? node.oneOf) as SchemaNode[] | undefined;
  if (!Array.isArray(options) || options.length !== 2) return false;
  const types = options.map((o) => o.type).sort();
  return types[0] === "integer" && types[1] === "string";
}

function normalize(input: SchemaNode): SchemaNode {
  const node: SchemaNode = {};
  for (const [key, value] of Object.entries(input)) {
    if (DROP_KEYS.has(key)) continue;
    node[key] = value;
  }
  if (isIntOrString(node)) {
    const out: SchemaNode = { "x-kubernetes-int-or-string": true };
    if (node.description) out.description = node.description;
    return out;
  }
  if (isEmptySchema(node)) {
    return { ...node, "x-kubernetes-preserve-unknown-fields": true };
  }
  if (node.type === "integer") {
    if (node.minimum === -SAFE_INT) delete node.minimum;
    if (node.maximum === SAFE_INT) delete node.maximum;
  }
  if (node.format === "date-time") delete node.pattern;
  if (node.properties && typeof node.properties === "object") {
    const props: Record<string, SchemaNode> = {};
    const preserved: string[] = [];
    for (const [name, child] of Object.entries(node.properties as Record<string, SchemaNode>)) {
      props[name] = normalize(child);
      if (props[name]["x-kubernetes-preserve-unknown-fields"] === true && !props[name].type) preserved.push(name);
    }
    // An empty `properties: {}` is dropped by the apiserver when it stores the CRD; leaving it in
    // the file makes a server-side apply by a second field manager (kubectl after helm) conflict
    // on a value nobody can see. Nothing is lost: the node keeps preserve-unknown-fields.
    if (Object.keys(props).length > 0) node.properties = props;
    else delete node.properties;
    if (Array.isArray(node.required)) {
      const required = (node.required as string[]).filter((r) => !preserved.includes(r));
      if (required.length) node.required = required;
      else delete node.required;
    }
    if ("additionalProperties" in node) {
      if (node.additionalProperties !== false) node["x-kubernetes-preserve-unknown-fields"] = true;
      delete node.additionalProperties;
    }
  } else if (node.additionalProperties && typeof node.additionalProperties === "object") {
    node.additionalProperties = normalize(node.additionalProperties as SchemaNode);
  } else if (node.additionalProperties === false) {
    delete node.additionalProperties;
  }
  if (node.items && typeof node.items === "object") node.items = normalize(node.items as SchemaNode);
  for (const key of ["anyOf", "oneOf", "allOf"] as const) {
    if (Array.isArray(node[key])) node[key] = (node[key] as SchemaNode[]).map(normalize);
  }
  if (node.not && typeof node.not === "object") node.not = normalize(node.not as SchemaNode);
  return node;
}

const FORBIDDEN = ["$ref", "definitions", "dependencies", "id", "patternProperties", "additionalItems", "$schema", "examples"];

/**
 * Checks the structural-schema rules of apiextensions.k8s.io/v1 (KEP-2335) that a generated
 * schema can break. Returns the violations as `path: problem` strings (empty when structural).
 */
export function structuralViolations(node: SchemaNode, path = "$", inJunctor = false): string[] {
  const problems: string[] = [];
  for (const key of FORBIDDEN) if (key in node) problems.push(`${path}: forbidden key ${key}`);
  if (Array.isArray(node.type)) problems.push(`${path}: type must be a single string`);
  if (node.type === "null") problems.push(`${path}: type null is not allowed`);
  if (node.additionalProperties === false) problems.push(`${path}: additionalProperties: false is not allowed`);
  if (node.properties && node.additionalProperties) problems.push(`${path}: properties and additionalProperties are exclusive`);
  if (node.uniqueItems === true) problems.push(`${path}: uniqueItems: true is not allowed`);
  const escaped =
    node["x-kubernetes-int-or-string"] === true || node["x-kubernetes-preserve-unknown-fields"] === true;
  if (!inJunctor && !node.type && !escaped) problems.push(`${path}: missing type`);
  if (inJunctor && ("type" in node || "default" in node || "description" in node || "nullable" in node)) {
    problems.push(`${path}: type/default/description/nullable inside anyOf/oneOf/allOf/not`);
  }
  if (node.type === "exclusiveMinimum" || typeof node.exclusiveMinimum === "number") {
    problems.push(`${path}: exclusiveMinimum must be a boolean`);
  }
  if (node.properties) {
    for (const [name, child] of Object.entries(node.properties as Record<string, SchemaNode>)) {
      problems.push(...structuralViolations(child, `${path}.${name}`, inJunctor));
    }
  }
  if (node.additionalProperties && typeof node.additionalProperties === "object") {
    problems.push(...structuralViolations(node.additionalProperties as SchemaNode, `${path}[*]`, inJunctor));
  }
  if (node.items && typeof node.items === "object") {
    problems.push(...structuralViolations(node.items as SchemaNode, `${path}[]`, inJunctor));
  }
  for (const key of ["anyOf", "oneOf", "allOf"] as const) {
    if (Array.isArray(node[key])) {
      (node[key] as SchemaNode[]).forEach((child, i) => problems.push(...structuralViolations(child, `${path}.${key}[${i}]`, true)));
    }
  }
  return problems;
}
