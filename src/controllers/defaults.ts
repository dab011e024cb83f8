/**
 * A kind's defaults table: the values its hook assumes for unset spec fields, written once as a
 * partial spec. The same table fills the mutating webhook's patch ({@link writeDefaults}), the
 * CRD's field descriptions ({@link describeDefaults}) and the kind's own normalisation.
 *
 * Defaults are never put into the CRD as `default:`: the apiserver would store them, and for
 * CIBuild the stored spec is the build hash, so a new default would rebuild every object.
 *
 * @packageDocumentation
 */
import type { SchemaNode } from "../crd/structural.ts";

/** A default: a scalar or a list is a leaf value; a nested table holds the defaults of an object field. */
export type DefaultValue = string | number | boolean | readonly unknown[] | SpecDefaults;

/** A partial spec of defaults, e.g. `{ suspend: false, retention: { failedLimit: 2 } }`. */
export interface SpecDefaults {
  readonly [field: string]: DefaultValue;
}

function isTable(value: DefaultValue | undefined): value is SpecDefaults {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Writes every default of `table` that `target` lacks, in the table's order (so the webhook's
 * patch is deterministic). A nested table fills an existing object field, or creates it when
 * unset unless its path is in `onlyWhenSet`; a field holding something other than an object is
 * left alone (the validation reports it). A value the user set is never replaced.
 *
 * @param target - a plain object, changed in place
 * @param onlyWhenSet - dotted paths of object fields that are completed only when present
 *   (CIBuild: `output`, whose absence means legacy mode)
 */
export function writeDefaults(
  target: Record<string, unknown>,
  table: SpecDefaults,
  onlyWhenSet: ReadonlySet<string> = new Set(),
  prefix = "",
): void {
  for (const [key, value] of Object.entries(table)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (isTable(value)) {
      if (target[key] === undefined && !onlyWhenSet.has(path)) target[key] = {};
      const child = target[key];
      if (isPlainObject(child)) writeDefaults(child, value, onlyWhenSet, path);
    } else if (target[key] === undefined) {
      target[key] = structuredClone(value);
    }
  }
}

/**
 * The default at a dotted path, e.g. `defaultAt(table, "build.retries")`.
 * @throws Error when the table has no leaf there (a typo in the kind's code, caught by any test)
 */
export function defaultAt<T = unknown>(table: SpecDefaults, path: string): T {
  let node: DefaultValue | undefined = table;
  for (const key of path.split(".")) node = isTable(node) ? node[key] : undefined;
  if (node === undefined || isTable(node)) throw new Error(`no default at ${path}`);
  return node as T;
}

/** How a default reads in a CRD description. */
function formatDefault(value: DefaultValue): string {
  return typeof value === "string" && value !== "" ? value : JSON.stringify(value);
}

/**
 * Appends `Default: <value>.` to the description of every defaulted field of a structural spec
 * schema, so `kubectl explain` shows what the hook assumes.
 * @throws Error when the table names a field the schema does not have
 */
export function describeDefaults(schema: SchemaNode, table: SpecDefaults, path = "spec"): void {
  const properties = schema.properties as Record<string, SchemaNode> | undefined;
  for (const [key, value] of Object.entries(table)) {
    const node = properties?.[key];
    if (!node) throw new Error(`the defaults table names ${path}.${key}, which the schema does not have`);
    if (isTable(value)) {
      describeDefaults(node, value, `${path}.${key}`);
      continue;
    }
    const text = `Default: ${formatDefault(value)}.`;
    node.description = typeof node.description === "string" && node.description ? `${node.description} ${text}` : text;
  }
}
