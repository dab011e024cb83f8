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
  return Object.values(group).sort((a, b) => compareStrings(a.metadata.name, b.metadata.name));
}

/** Plain code-unit string order, independent of the process locale (deterministic output). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
