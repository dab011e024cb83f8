/**
 * Helpers for children as we return them to Metacontroller.
 *
 * @packageDocumentation
 */
import type { ObjectMeta } from "kubernetes-types/meta/v1.js";
import { compareStrings, type KubeObject } from "../metacontroller/contract.ts";
import { setOwn } from "./copy-own.ts";

/** What every child we build has: the fields Metacontroller needs to key it. */
export interface TypedObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta & { name: string };
}

/**
 * A child built with the Kubernetes model types (`kubernetes-types`, e.g. `Job`) as the loose
 * wire type hook responses carry. The one place the typed builders meet `KubeObject`: the model
 * interfaces have no index signature, so TypeScript cannot see that they are plain JSON objects.
 */
export function asKubeObject<T extends TypedObject>(object: T): KubeObject {
  return object as unknown as KubeObject;
}

/**
 * An observed child in apply form, to keep it exactly as it is when we must not change anything
 * (an invalid parent spec, a child we keep but do not own the content of): apiVersion, kind,
 * name, namespace, labels, annotations and every top-level field except `status`; server-managed
 * metadata is dropped. Metacontroller's last-applied annotation is dropped too (it adds its own).
 */
export function reemitObserved(observed: KubeObject): KubeObject {
  const metadata = observed.metadata;
  const meta: KubeObject["metadata"] = { name: metadata.name };
  if (metadata.namespace) meta.namespace = metadata.namespace;
  // This runs for every kept Job of every call: loops (for…in with own-key checks visit
  // Object.keys' keys in its order without allocating the list) rather than spreads and rests.
  const labels = metadata.labels;
  if (labels && hasOwnKey(labels)) meta.labels = { ...labels };
  let annotations: Record<string, string> | undefined;
  const observedAnnotations = metadata.annotations;
  for (const key in observedAnnotations) {
    if (!Object.hasOwn(observedAnnotations, key) || key === LAST_APPLIED || key === KUBECTL_LAST_APPLIED) continue;
    setOwn((annotations ??= {}), key, observedAnnotations[key]!);
  }
  if (annotations) meta.annotations = annotations;
  // Every other top-level field in its order, then metadata.
  const out: Record<string, unknown> = {};
  const source = observed as Record<string, unknown>;
  for (const key in source) if (Object.hasOwn(source, key) && key !== "status" && key !== "metadata") setOwn(out, key, source[key]);
  out.metadata = meta;
  return out as KubeObject;
}

/** Whether `object` has an own enumerable key (`Object.keys(object).length > 0` without the list). */
function hasOwnKey(object: object): boolean {
  for (const key in object) if (Object.hasOwn(object, key)) return true;
  return false;
}

const LAST_APPLIED = "metacontroller.k8s.io/last-applied-configuration";
const KUBECTL_LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

/** Sorts children by kind, then name, so responses are byte-stable. */
export function sortChildren(children: KubeObject[]): KubeObject[] {
  const copy = children.slice();
  // Children are mostly built in order already (observed Jobs by name, the new one last and
  // newest): checking allocates nothing, sorting does.
  for (let i = 1; i < copy.length; i++) if (compareChildren(copy[i - 1]!, copy[i]!) > 0) return copy.sort(compareChildren);
  return copy;
}

function compareChildren(a: KubeObject, b: KubeObject): number {
  return compareStrings(a.kind, b.kind) || compareStrings(a.metadata.name, b.metadata.name);
}

/**
 * Objects oldest first by a time (epoch ms) read from each, objects without one last (they count
 * as newest), ties by name: the order upstream's CronJob controller gives Jobs (`byJobStartTime`
 * in pkg/controller/cronjob/utils.go, by start time; `status.active` by scheduled time). Each
 * object's time is read once, not once per comparison.
 * @param timeOf - the object's time in epoch ms, or undefined when it has none
 * @returns a new sorted array
 */
export function sortByTimeThenName(objects: readonly KubeObject[], timeOf: (object: KubeObject) => number | undefined): KubeObject[] {
  const keyed = objects.map((object) => ({ object, time: timeOf(object) }));
  keyed.sort((a, b) => {
    if (a.time !== b.time) {
      if (a.time === undefined) return 1;
      if (b.time === undefined) return -1;
      return a.time - b.time;
    }
    return compareStrings(a.object.metadata.name, b.object.metadata.name);
  });
  return keyed.map((k) => k.object);
}
