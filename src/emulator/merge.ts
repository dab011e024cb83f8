/**
 * Metacontroller's client-side "dynamic apply": a three-way merge of the observed object, the
 * last-applied configuration and the desired object (the behaviour of
 * `Merge`/`merge`/`mergeObject`/`mergeArray`/`detectListMapKey` in Metacontroller's
 * pkg/dynamic/apply/apply.go, re-implemented from the description, not copied).
 *
 * @packageDocumentation
 */
import { copyOwn } from "../kube/copy-own.ts";
import { canonicalJson } from "../kube/names.ts";
import { clone, jsonEqual, type Obj } from "./store.ts";

/** Annotation holding the JSON of what Metacontroller last applied. */
export const LAST_APPLIED = "metacontroller.k8s.io/last-applied-configuration";

/** Conventional merge keys of lists of objects, in priority order. */
const LIST_MAP_KEYS = ["containerPort", "port", "mountPath", "name", "uid", "ip", "path"];

/** System metadata reverted to the observed values after the merge. */
const SYSTEM_METADATA = [
  "selfLink",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "managedFields",
];

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * Three-way merge. Recursion only where the observed value is an object or a list; otherwise the
 * desired value wins wholesale. Keys present in last-applied but absent from desired are removed;
 * keys never in last-applied are kept (server defaults, other writers).
 *
 * @returns a new object; the inputs are not modified
 */
export function threeWayMerge(observed: unknown, lastApplied: unknown, desired: unknown): unknown {
  return merge(clone(observed), lastApplied, desired);
}

function merge(observed: unknown, lastApplied: unknown, desired: unknown): unknown {
  if (isObject(observed)) {
    return mergeObject(observed, isObject(lastApplied) ? lastApplied : {}, isObject(desired) ? desired : {});
  }
  if (Array.isArray(observed)) {
    return mergeArray(observed, Array.isArray(lastApplied) ? lastApplied : [], Array.isArray(desired) ? desired : null);
  }
  return clone(desired);
}

function mergeObject(observed: Record<string, unknown>, lastApplied: Record<string, unknown>, desired: Record<string, unknown>) {
  for (const key of Object.keys(lastApplied)) if (!(key in desired)) delete observed[key];
  for (const [key, value] of Object.entries(desired)) {
    observed[key] = key in observed ? merge(observed[key], lastApplied[key], value) : clone(value);
  }
  return observed;
}

function mergeArray(observed: unknown[], lastApplied: unknown[], desired: unknown[] | null): unknown {
  const key = detectListMapKey(observed, lastApplied, desired ?? []);
  if (!key) return clone(desired);
  const toMap = (list: unknown[]) => {
    const m: Record<string, unknown> = {};
    for (const item of list) m[String((item as Record<string, unknown>)[key])] = item;
    return m;
  };
  const merged = mergeObject(toMap(observed), toMap(lastApplied), toMap(desired ?? []));
  // Back to a list: observed order first, then new desired items.
  const out: unknown[] = [];
  const added = new Set<string>();
  for (const item of [...observed, ...(desired ?? [])]) {
    const k = String((item as Record<string, unknown>)[key]);
    if (added.has(k) || !(k in merged)) continue;
    added.add(k);
    out.push(merged[k]);
  }
  return out;
}

/** The first conventional key every item of every list has; "" when some item is not an object. */
function detectListMapKey(...lists: unknown[][]): string {
  let candidates = [...LIST_MAP_KEYS];
  for (const list of lists) {
    for (const item of list) {
      if (!isObject(item)) return "";
      candidates = candidates.filter((k) => k in item);
    }
  }
  return candidates[0] ?? "";
}

/** The last-applied configuration recorded on an object, or undefined. */
export function lastAppliedOf(obj: Obj): Obj | undefined {
  const raw = obj.metadata?.annotations?.[LAST_APPLIED];
  if (typeof raw !== "string") return undefined;
  try {
    return JSON.parse(raw) as Obj;
  } catch {
    return undefined;
  }
}

/**
 * A copy of `annotations` with the last-applied annotation set to `desired`'s JSON. Copied key by
 * key, then set: a spread with an added key costs V8 a new hidden class each time (see copyOwn).
 */
function withLastAppliedAnnotation(annotations: Record<string, string> | undefined, desired: Obj): Record<string, string> {
  const out = copyOwn(annotations);
  out[LAST_APPLIED] = canonicalJson(desired);
  return out;
}

/** A copy of `desired` with its last-applied annotation set to its own JSON (sorted keys, as Go marshals maps); `desired` is not changed. */
export function withLastApplied(desired: Obj): Obj {
  const out = clone(desired);
  out.metadata.annotations = withLastAppliedAnnotation(out.metadata.annotations, desired);
  return out;
}

/**
 * What dynamic apply would write for an observed child and its desired form: the
 * three-way merge, with system metadata and `.status` reverted to the observed values and the
 * last-applied annotation refreshed.
 *
 * @returns the merged object and whether it differs from the observed one
 */
export function applyUpdate(observed: Obj, desired: Obj): { merged: Obj; changed: boolean } {
  const merged = threeWayMerge(observed, lastAppliedOf(observed) ?? {}, desired) as Obj;
  merged.metadata ??= {};
  for (const f of SYSTEM_METADATA) {
    if (observed.metadata?.[f] === undefined) delete merged.metadata[f];
    else merged.metadata[f] = clone(observed.metadata[f]);
  }
  if (observed.status === undefined) delete merged.status;
  else merged.status = clone(observed.status);
  merged.metadata.annotations = withLastAppliedAnnotation(merged.metadata.annotations, desired);
  return { merged, changed: !jsonEqual(merged, observed) };
}
