/**
 * The Metacontroller CompositeController hook contract, as zod schemas.
 *
 * Shapes follow `CompositeHookRequest` / `CompositeHookResponse` in Metacontroller v4.17
 * (pkg/controller/composite/api/v1 and v2). Objects inside the envelope are validated loosely:
 * we only insist on what we read (apiVersion, kind, metadata.name); everything else passes through.
 *
 * @packageDocumentation
 */
import { z } from "zod";

/** `metadata` of any Kubernetes object, as sent by Metacontroller (unknown keys kept). */
export const ObjectMetaSchema = z.looseObject({
  name: z.string().min(1),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  generation: z.number().int().optional(),
  resourceVersion: z.string().optional(),
  creationTimestamp: z.string().optional(),
  deletionTimestamp: z.string().nullable().optional(),
  labels: ownKeyStringMap().optional(),
  annotations: ownKeyStringMap().optional(),
  finalizers: z.array(z.string()).optional(),
  ownerReferences: z.array(z.looseObject({})).optional(),
});

/** Any Kubernetes object: `apiVersion`, `kind` and `metadata.name` are required. */
export const KubeObjectSchema = z.looseObject({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  metadata: ObjectMetaSchema,
});

/** A Kubernetes object as it travels in hook requests and responses. */
export type KubeObject = z.infer<typeof KubeObjectSchema>;

/**
 * A JSON object read into a map without a prototype, each value checked by `value`.
 *
 * Why not `z.record`: zod writes records into plain objects and therefore skips a `__proto__` key
 * (assigning it would replace the prototype). A child under that key would silently vanish from
 * the request, and Metacontroller deletes every child the answer leaves out. A map without a
 * prototype holds any key as data, and looking up `constructor` in it finds nothing. Issues and
 * their messages are the ones `z.record` reports.
 */
function nullPrototypeRecord<T extends z.ZodType>(value: T) {
  return z.unknown().transform((input, ctx): Record<string, z.output<T>> => {
    if (input === null || typeof input !== "object" || Array.isArray(input)) {
      const received = input === null ? "null" : Array.isArray(input) ? "array" : typeof input;
      ctx.issues.push({ code: "invalid_type", expected: "record", input, message: `Invalid input: expected record, received ${received}` });
      return z.NEVER;
    }
    const out = Object.create(null) as Record<string, z.output<T>>;
    for (const key of Object.keys(input)) {
      const parsed = value.safeParse((input as Record<string, unknown>)[key]);
      if (parsed.success) out[key] = parsed.data;
      else for (const issue of parsed.error.issues) ctx.issues.push({ ...issue, input: undefined, path: [key, ...issue.path] } as never);
    }
    return out;
  });
}

/**
 * A string map (labels, annotations) that keeps every key, as `z.record(z.string(), z.string())`
 * would not: zod assigns `__proto__` into a plain object, which changes the prototype instead of
 * adding the key, so an observed child's label `__proto__` would vanish from our answer and
 * Metacontroller would write the child back without it. The result is a plain object (equal to
 * the parsed JSON) holding `__proto__` as an own data property; spreads copy it as such.
 */
function ownKeyStringMap() {
  return nullPrototypeRecord(z.string()).transform((map) => {
    const out: Record<string, string> = {};
    for (const key of Object.keys(map)) Object.defineProperty(out, key, { value: map[key], enumerable: true, writable: true, configurable: true });
    return out;
  });
}

/**
 * Observed objects grouped by `<Kind>.<apiVersion>` (e.g. `Job.batch/v1`), then by a key that is
 * `name` (hook version v1) or `namespace/name` (v2). Never rely on the inner key: use
 * `metadata.name` (see {@link listChildren}). Both levels are maps without a prototype, so no
 * key (`__proto__`, `constructor`) is lost or found by accident.
 */
export const ObjectMapSchema = nullPrototypeRecord(nullPrototypeRecord(KubeObjectSchema).nullable());

/** The `children` / `related` map of a hook request. */
export type ObjectMap = z.infer<typeof ObjectMapSchema>;

/** The parent object: like any object, but `metadata.uid` and `spec` are always present in practice. */
const ParentSchema = KubeObjectSchema;

/**
 * Body of a sync or finalize hook request (`finalizing` tells them apart).
 * `children` and `related` default to `{}`; `finalizing` defaults to `false`.
 */
export const SyncRequestSchema = z.looseObject({
  controller: z.looseObject({}).optional(),
  parent: ParentSchema,
  children: ObjectMapSchema.nullable().optional().transform((v) => v ?? {}),
  related: ObjectMapSchema.nullable().optional().transform((v) => v ?? {}),
  finalizing: z.boolean().optional().default(false),
});

/** A parsed sync or finalize request. */
export type SyncRequest = z.output<typeof SyncRequestSchema>;
/** A sync or finalize request as it arrives on the wire (before defaults). */
export type SyncRequestInput = z.input<typeof SyncRequestSchema>;

/**
 * Body of a sync or finalize hook response.
 *
 * Strict on the top level: v2 hooks decode responses strictly, so an extra key fails the sync.
 * `status` is always present (an omitted status wipes the parent's status) and `children` is the
 * complete desired set (an omitted child is deleted). `resyncAfterSeconds` is in **seconds**
 * (a float, > 0) and `finalized` is only sent by finalize hooks.
 */
export const SyncResponseSchema = z.strictObject({
  status: z.record(z.string(), z.unknown()),
  children: z.array(KubeObjectSchema),
  resyncAfterSeconds: z.number().positive().finite().optional(),
  finalized: z.boolean().optional(),
});

/** A sync or finalize response. */
export type SyncResponse = z.infer<typeof SyncResponseSchema>;

/** Body of a customize hook request. */
export const CustomizeRequestSchema = z.looseObject({
  controller: z.looseObject({}).optional(),
  parent: ParentSchema,
});

/** A parsed customize request. */
export type CustomizeRequest = z.output<typeof CustomizeRequestSchema>;

/** One related-resource rule of a customize response (`api/customize.html`). */
const RelatedResourceRuleSchema = z.strictObject({
  apiVersion: z.string().min(1),
  resource: z.string().min(1),
  labelSelector: z
    .strictObject({
      matchLabels: z.record(z.string(), z.string()).optional(),
      matchExpressions: z.array(z.looseObject({})).optional(),
    })
    .optional(),
  namespace: z.string().optional(),
  names: z.array(z.string()).optional(),
});

/** Body of a customize hook response. */
export const CustomizeResponseSchema = z.strictObject({
  relatedResources: z.array(RelatedResourceRuleSchema),
});

/** A customize response. */
export type CustomizeResponse = z.infer<typeof CustomizeResponseSchema>;

/**
 * The objects of one group of a children (or related) map, as a list sorted by name.
 *
 * @param map - the request's `children` or `related`
 * @param groupKey - `<Kind>.<apiVersion>`, e.g. `Job.batch/v1`
 * @returns the objects, whatever the hook version's inner keys were
 */
export function listChildren(map: ObjectMap, groupKey: string): KubeObject[] {
  const group = map[groupKey];
  if (!group) return [];
  const objects = Object.values(group);
  // Metacontroller's maps arrive in key order (Go's encoding/json writes map keys sorted), and the
  // keys are the names (v1) or `namespace/name` (v2): usually already in order. Checking is free;
  // sorting allocates.
  for (let i = 1; i < objects.length; i++) {
    if (compareStrings(objects[i - 1]!.metadata.name, objects[i]!.metadata.name) > 0) {
      return objects.sort((x, y) => compareStrings(x.metadata.name, y.metadata.name));
    }
  }
  return objects;
}

/** Plain code-unit string order, independent of the process locale (deterministic output). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Checks in place. A hook request carries every observed child (≈3 KiB each, thousands per call
// for a CronJob with a long history); running them through the zod schemas above copies each
// child's top level and metadata only to throw the copies away, and at 100 children those copies
// are still alive at the next young-generation GC and get promoted. The functions below accept
// exactly a subset of what the schemas accept (a property test holds them to it) and copy
// nothing; callers fall back to the schema whenever they say no, so error messages stay the
// schema's.
// ---------------------------------------------------------------------------------------------

/**
 * A plain JSON-style object (what zod's object and record schemas accept). An own `__proto__` key
 * (JSON.parse makes one) is left to the schema, whose copies drop it.
 */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && !Object.hasOwn(v, "__proto__");
}

// The loops below visit Object.keys' keys with for…in and an own-key check: the same keys in the
// same order, without allocating the list (they run for every observed child of every call).

/** A plain JSON object whose values are all strings (a label or annotation map). */
export function isStringMap(v: unknown): v is Record<string, string> {
  if (!isPlainObject(v)) return false;
  for (const k in v) if (Object.hasOwn(v, k) && typeof v[k] !== "string") return false;
  return true;
}

function isOptionalString(v: unknown): boolean {
  return v === undefined || typeof v === "string";
}

function isObjectMeta(m: unknown): boolean {
  if (!isPlainObject(m)) return false;
  const { name, generation, deletionTimestamp, labels, annotations, finalizers, ownerReferences } = m;
  return (
    typeof name === "string" &&
    name.length > 0 &&
    isOptionalString(m.namespace) &&
    isOptionalString(m.uid) &&
    (generation === undefined || Number.isSafeInteger(generation)) &&
    isOptionalString(m.resourceVersion) &&
    isOptionalString(m.creationTimestamp) &&
    (deletionTimestamp === undefined || deletionTimestamp === null || typeof deletionTimestamp === "string") &&
    (labels === undefined || isStringMap(labels)) &&
    (annotations === undefined || isStringMap(annotations)) &&
    (finalizers === undefined || (Array.isArray(finalizers) && finalizers.every((f) => typeof f === "string"))) &&
    (ownerReferences === undefined || (Array.isArray(ownerReferences) && ownerReferences.every(isPlainObject)))
  );
}

/** True when every own key of `v` is one of `keys`. */
function hasOnlyKeys(v: Record<string, unknown>, keys: ReadonlySet<string>): boolean {
  for (const k in v) if (Object.hasOwn(v, k) && !keys.has(k)) return false;
  return true;
}

/**
 * True when `v` passes {@link KubeObjectSchema}, checked without copying. May say false for an
 * odd value the schema accepts; never says true for one it rejects.
 */
export function isKubeObject(v: unknown): v is KubeObject {
  return (
    isPlainObject(v) &&
    typeof v.apiVersion === "string" &&
    v.apiVersion.length > 0 &&
    typeof v.kind === "string" &&
    v.kind.length > 0 &&
    isObjectMeta(v.metadata)
  );
}

/**
 * True when `v` passes {@link ObjectMapSchema} (groups of objects, a group may be null), checked
 * without copying. May say false for an odd value the schema accepts; never true for one it rejects.
 */
export function isObjectMap(v: unknown): v is ObjectMap {
  if (!isPlainObject(v)) return false;
  for (const groupKey in v) {
    if (!Object.hasOwn(v, groupKey)) continue;
    const group = v[groupKey];
    if (group === null) continue;
    if (!isPlainObject(group)) return false;
    for (const key in group) if (Object.hasOwn(group, key) && !isKubeObject(group[key])) return false;
  }
  return true;
}

/**
 * Parses a sync or finalize request like {@link SyncRequestSchema}, with the same result and the
 * same issues, but checks `children` and `related` in place: the request keeps the very observed
 * objects that arrived (only the parent, the one object hooks read in depth, is parsed by zod).
 */
export function parseSyncRequest(body: unknown): { success: true; data: SyncRequest } | { success: false; error: z.ZodError } {
  if (isPlainObject(body)) {
    const { controller, children, related, finalizing } = body;
    if (
      (controller === undefined || isPlainObject(controller)) &&
      (children === undefined || children === null || isObjectMap(children)) &&
      (related === undefined || related === null || isObjectMap(related)) &&
      (finalizing === undefined || typeof finalizing === "boolean")
    ) {
      // The parent as zod would give it (a copy of its top level and metadata in the schema's key
      // order), checked and copied by hand when it is a plain one; zod only for the odd rest.
      const parent = isKubeObject(body.parent) ? { success: true as const, data: parsedCopy(body.parent) } : ParentSchema.safeParse(body.parent);
      if (parent.success) {
        return {
          success: true,
          data: { ...body, parent: parent.data, children: children ?? {}, related: related ?? {}, finalizing: finalizing ?? false } as SyncRequest,
        };
      }
    }
  }
  return SyncRequestSchema.safeParse(body);
}

const OBJECT_KEYS = new Set(["apiVersion", "kind", "metadata"]);
const META_KEYS = ["name", "namespace", "uid", "generation", "resourceVersion", "creationTimestamp", "deletionTimestamp", "labels", "annotations", "finalizers", "ownerReferences"] as const;
const META_KEY_SET = new Set<string>(META_KEYS);
const RESPONSE_KEYS = new Set(["status", "children", "resyncAfterSeconds", "finalized"]);

/** A shallow copy with `skip` keys left out, as zod's object/record output ("__proto__" is never an own key there). */
function copyKeys(from: Record<string, unknown>, into: Record<string, unknown>, skip?: ReadonlySet<string>): Record<string, unknown> {
  for (const k in from) if (Object.hasOwn(from, k) && k !== "__proto__" && !skip?.has(k)) into[k] = from[k];
  return into;
}

/**
 * What {@link KubeObjectSchema} outputs for an object {@link isKubeObject} accepts: apiVersion,
 * kind, metadata, then the other keys in their order; metadata's known keys in the schema's order
 * (a key present with the value undefined stays, as zod keeps it), then its other keys; labels,
 * annotations, finalizers and ownerReferences copied one level, as zod copies them. Used for the
 * request's parent and for every child of a response: the copy zod would make, made by hand.
 */
function parsedCopy(o: KubeObject): KubeObject {
  const m = o.metadata as Record<string, unknown>;
  const meta: Record<string, unknown> = {};
  for (const k of META_KEYS) {
    if (!Object.hasOwn(m, k)) continue;
    const v = m[k];
    if (v === undefined) meta[k] = v;
    else if (k === "labels" || k === "annotations") meta[k] = copyKeys(v as Record<string, unknown>, {});
    else if (k === "finalizers") meta[k] = (v as unknown[]).slice();
    else if (k === "ownerReferences") meta[k] = (v as Record<string, unknown>[]).map((r) => copyKeys(r, {}));
    else meta[k] = v;
  }
  const out: Record<string, unknown> = { apiVersion: o.apiVersion, kind: o.kind, metadata: copyKeys(m, meta, META_KEY_SET) };
  return copyKeys(o, out, OBJECT_KEYS) as KubeObject;
}

/**
 * Checks a hook's sync or finalize response like {@link SyncResponseSchema}, with the same result
 * (the same keys in the same order, so the answer's bytes do not change) and the same issues, at
 * the cost of a shallow copy: the schema is only run when the quick check says no.
 */
export function checkSyncResponse(response: unknown): { success: true; data: SyncResponse } | { success: false; error: z.ZodError } {
  if (isPlainObject(response)) {
    const { status, children, resyncAfterSeconds: resync, finalized } = response;
    if (
      hasOnlyKeys(response, RESPONSE_KEYS) &&
      isPlainObject(status) &&
      Array.isArray(children) &&
      children.every(isKubeObject) &&
      (resync === undefined || (typeof resync === "number" && resync > 0 && Number.isFinite(resync))) &&
      (finalized === undefined || typeof finalized === "boolean")
    ) {
      const data: Record<string, unknown> = { status: copyKeys(status, {}), children: children.map(parsedCopy) };
      if (resync !== undefined) data.resyncAfterSeconds = resync;
      if (finalized !== undefined) data.finalized = finalized;
      return { success: true, data: data as SyncResponse };
    }
  }
  return SyncResponseSchema.safeParse(response);
}
