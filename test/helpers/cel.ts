/**
 * Type-checks and evaluates CRD `x-kubernetes-validations` rules with a CEL implementation from
 * npm (@marcbachmann/cel-js), the way the apiserver does: `self` (and `oldSelf` for transition
 * rules) is typed from the structural schema of the node the rule sits on, so a rule that names
 * an unknown field, compares a string with an int or does not return bool fails here.
 */
import { Environment } from "@marcbachmann/cel-js";

type SchemaNode = Record<string, any>;

/** A CEL environment for one schema node, plus a converter from JSON to CEL values. */
export interface CelSchemaEnv {
  /** `{valid, type}`, or `{valid: false, error}` when the rule does not parse or type-check. */
  check(rule: string): { valid: boolean; type?: string; error?: { message: string } };
  /** Evaluates a rule with `self` (and `oldSelf`) given as JSON. */
  evaluate(rule: string, self: unknown, oldSelf?: unknown): unknown;
}

function isDyn(node: SchemaNode): boolean {
  return node["x-kubernetes-int-or-string"] === true || (node["x-kubernetes-preserve-unknown-fields"] === true && !node.properties && !node.type);
}

/** JSON → CEL values: integers become bigint where the schema says integer (or dyn). */
function toCel(node: SchemaNode | undefined, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (!node || isDyn(node)) {
    if (typeof value === "number" && Number.isInteger(value)) return BigInt(value);
    if (Array.isArray(value)) return value.map((v) => toCel(undefined, v));
    if (typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toCel(undefined, v)]));
    return value;
  }
  if (node.type === "integer" && typeof value === "number") return BigInt(value);
  if (node.type === "array" && Array.isArray(value)) return value.map((v) => toCel(node.items, v));
  if (node.type === "object" && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [
        k,
        toCel(node.properties?.[k] ?? (typeof node.additionalProperties === "object" ? node.additionalProperties : undefined), v),
      ]),
    );
  }
  return value;
}

/**
 * Builds the environment for a schema node.
 * @throws Error on a schema node type CEL cannot declare
 */
export function celEnvironmentForSchema(root: SchemaNode): CelSchemaEnv {
  const env = new Environment({ homogeneousAggregateLiterals: false });
  let counter = 0;
  const typeOf = (node: SchemaNode): string => {
    if (isDyn(node)) return "dyn";
    switch (node.type) {
      case "string":
        return "string";
      case "integer":
        return "int";
      case "number":
        return "double";
      case "boolean":
        return "bool";
      case "array":
        return `list<${node.items ? typeOf(node.items) : "dyn"}>`;
      case "object": {
        if (node.properties) {
          const fields: Record<string, string> = {};
          for (const [name, child] of Object.entries(node.properties as Record<string, SchemaNode>)) fields[name] = typeOf(child);
          const name = `Obj${++counter}`;
          env.registerType(name, { fields });
          return name;
        }
        if (node.additionalProperties && typeof node.additionalProperties === "object") return `map<string, ${typeOf(node.additionalProperties)}>`;
        return "map<string, dyn>";
      }
      default:
        throw new Error(`cannot declare a CEL type for schema type ${JSON.stringify(node.type)}`);
    }
  };
  const selfType = typeOf(root);
  env.registerVariable("self", selfType);
  env.registerVariable("oldSelf", selfType);
  return {
    check(rule) {
      const result = env.check(rule) as { valid: boolean; type?: string; error?: Error };
      return { valid: result.valid, ...(result.type ? { type: result.type } : {}), ...(result.error ? { error: { message: result.error.message } } : {}) };
    },
    evaluate(rule, self, oldSelf) {
      return env.evaluate(rule, { self: toCel(root, self), ...(oldSelf !== undefined ? { oldSelf: toCel(root, oldSelf) } : {}) });
    },
  };
}

/** Whether a rule's `fieldPath` (e.g. `.source.git.url`) names a property of the schema. */
export function fieldPathExists(root: SchemaNode, fieldPath: string): boolean {
  let node: SchemaNode | undefined = root;
  for (const part of fieldPath.split(".").slice(1)) {
    node = node?.properties?.[part];
    if (!node) return false;
  }
  return true;
}

/** Every `x-kubernetes-validations` list in a schema, with the node it sits on and its path. */
export function collectValidations(node: SchemaNode, path = "$"): Array<{ path: string; node: SchemaNode; rules: SchemaNode[] }> {
  const found: Array<{ path: string; node: SchemaNode; rules: SchemaNode[] }> = [];
  if (Array.isArray(node["x-kubernetes-validations"])) found.push({ path, node, rules: node["x-kubernetes-validations"] });
  for (const [name, child] of Object.entries((node.properties ?? {}) as Record<string, SchemaNode>)) found.push(...collectValidations(child, `${path}.${name}`));
  if (node.items) found.push(...collectValidations(node.items, `${path}[]`));
  if (node.additionalProperties && typeof node.additionalProperties === "object") found.push(...collectValidations(node.additionalProperties, `${path}[*]`));
  return found;
}
