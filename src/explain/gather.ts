/**
 * Builds the sync (or finalize) request Metacontroller would send for a live parent, from what
 * the API server holds: the parent, its children (the kind's CompositeController
 * `childResources`), and the related objects its customize hook asks for.
 *
 * Claiming follows Metacontroller with `generateSelector: true`: children carry the label
 * `controller-uid=<parent uid>` and are controlled by the parent or by nobody (orphans it would
 * adopt); an object controlled by another owner is not a child. The maps use hook version v1 keys
 * (`metadata.name`).
 *
 * @packageDocumentation
 */
import type { Kind } from "../controllers/types.ts";
import { groupKey } from "../controllers/define-kind.ts";
import type { KubeObject, ObjectMap, SyncRequestInput } from "../metacontroller/contract.ts";
import { CustomizeResponseSchema, KubeObjectSchema } from "../metacontroller/contract.ts";
import { resourcePath, type KubeReader } from "./kube-reader.ts";

/** A `childResources` entry (or a related-resource rule) as the CompositeController names it. */
interface ResourceRule {
  apiVersion: string;
  resource: string;
}

/** A label selector (`metav1.LabelSelector`). */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

/**
 * A label selector in the API's query syntax, e.g. `a=b,c in (d,e),!f`.
 * @throws Error on an operator Kubernetes does not have
 */
export function formatLabelSelector(selector: LabelSelector): string {
  const parts = Object.entries(selector.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of selector.matchExpressions ?? []) {
    const values = (e.values ?? []).join(",");
    if (e.operator === "In") parts.push(`${e.key} in (${values})`);
    else if (e.operator === "NotIn") parts.push(`${e.key} notin (${values})`);
    else if (e.operator === "Exists") parts.push(e.key);
    else if (e.operator === "DoesNotExist") parts.push(`!${e.key}`);
    else throw new Error(`unknown label selector operator ${JSON.stringify(e.operator)}`);
  }
  return parts.join(",");
}

/** Kind of the items of a list answer: `JobList` → `Job`. */
function itemKind(list: { kind?: unknown }): string | undefined {
  return typeof list.kind === "string" && list.kind.endsWith("List") ? list.kind.slice(0, -"List".length) : undefined;
}

/**
 * Lists objects and fills in `apiVersion` and `kind`: list answers of built-in types leave them
 * out of the items.
 */
async function listObjects(
  reader: KubeReader,
  rule: ResourceRule,
  namespace: string,
  labelSelector: string | undefined,
): Promise<KubeObject[]> {
  const body = (await reader.get(
    resourcePath(rule.apiVersion, rule.resource, namespace),
    labelSelector ? { labelSelector } : undefined,
  )) as { kind?: unknown; items?: unknown[] } | undefined;
  if (!body) return [];
  const kind = itemKind(body);
  return (body.items ?? []).map((raw) => {
    const item = { ...(raw as Record<string, unknown>) };
    item.apiVersion ??= rule.apiVersion;
    if (item.kind === undefined && kind) item.kind = kind;
    return KubeObjectSchema.parse(item);
  });
}

function controllerUid(obj: KubeObject): string | undefined {
  const refs = (obj.metadata.ownerReferences ?? []) as Array<{ controller?: boolean; uid?: string }>;
  return refs.find((r) => r.controller === true)?.uid;
}

/** The parent's child selector: every generated CompositeController has `generateSelector: true`. */
function childSelector(parent: KubeObject): string {
  if (!parent.metadata.uid) throw new Error("the parent has no metadata.uid");
  return `controller-uid=${parent.metadata.uid}`;
}

/** What {@link gatherHookRequest} found, besides the request itself. */
export interface GatheredRequest {
  request: SyncRequestInput & { children: ObjectMap; related: ObjectMap; finalizing: boolean };
  /** The live parent. */
  parent: KubeObject;
}

/**
 * Reads the parent and its children and builds the hook request.
 *
 * @param def - the kind
 * @param reader - the API reader
 * @param namespace - the parent's namespace
 * @param name - the parent's name
 * @returns the request, or `undefined` when the parent does not exist
 * @throws Error when the API answers an error or the kind's customize hook throws
 */
export async function gatherHookRequest(
  def: Kind,
  reader: KubeReader,
  namespace: string,
  name: string,
  options?: unknown,
): Promise<GatheredRequest | undefined> {
  const raw = await reader.get(resourcePath(def.apiVersion, def.declaration.parent.plural, namespace, name));
  if (raw === undefined) return undefined;
  const parent = KubeObjectSchema.parse({ apiVersion: def.apiVersion, kind: def.kind, ...(raw as object) });

  // Metacontroller sends every declared group, empty ones included.
  const children: ObjectMap = {};
  const selector = childSelector(parent);
  for (const child of def.declaration.children) {
    const group: Record<string, KubeObject> = (children[groupKey(child)] = {});
    for (const obj of await listObjects(reader, child, namespace, selector)) {
      const owner = controllerUid(obj);
      if (owner !== undefined && owner !== parent.metadata.uid) continue;
      group[obj.metadata.name] = obj;
    }
  }

  const related: ObjectMap = {};
  if (def.hasCustomize) {
    const rules = CustomizeResponseSchema.parse(def.customize({ parent }, options)).relatedResources;
    for (const rule of rules) {
      const ns = rule.namespace ?? namespace;
      let objects: KubeObject[];
      if (rule.names) {
        objects = [];
        for (const n of rule.names) {
          const obj = await reader.get(resourcePath(rule.apiVersion, rule.resource, ns, n));
          if (obj !== undefined) objects.push(KubeObjectSchema.parse(obj));
        }
      } else {
        objects = await listObjects(reader, rule, ns, rule.labelSelector ? formatLabelSelector(rule.labelSelector as LabelSelector) : undefined);
      }
      for (const obj of objects) (related[groupKey({ kind: obj.kind, apiVersion: rule.apiVersion })] ??= {})[obj.metadata.name] = obj;
    }
  }

  const finalizing = Boolean(parent.metadata.deletionTimestamp);
  return { parent, request: { parent, children, related, finalizing } };
}
