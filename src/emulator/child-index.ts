/**
 * Objects by identity (apiVersion, kind, namespace, name), the way Metacontroller keys observed
 * and desired children, kept in insertion order.
 *
 * @packageDocumentation
 */
import type { Obj } from "./store.ts";

/**
 * A map from a child's identity to the object, in insertion order (setting an identity again
 * replaces the object in its place, as a Map does). Nested maps rather than one map keyed by a
 * composed `apiVersion|kind|namespace/name` string: every sync looks up each child, and a fresh
 * string key has to be built and hashed every time, where the parts are strings the objects
 * already hold (V8 keeps a string's hash once computed).
 */
export class ChildIndex {
  readonly #index = new Map<string, Map<string, Map<string, Map<string, number>>>>();
  readonly #objects: Obj[] = [];

  /** Number of identities. */
  get size(): number {
    return this.#objects.length;
  }

  /** The objects, in the order their identities were first set. Read-only. */
  values(): readonly Obj[] {
    return this.#objects;
  }

  /** The object of an identity, or undefined. An absent namespace or name counts as "". */
  get(apiVersion: string, kind: string, namespace: string | undefined, name: string | undefined): Obj | undefined {
    const at = this.#index.get(apiVersion)?.get(kind)?.get(namespace ?? "")?.get(name ?? "");
    return at === undefined ? undefined : this.#objects[at];
  }

  /** Whether the identity of `obj` (with `apiVersion` as given) is in the index. */
  hasObject(obj: Obj, apiVersion: string = obj.apiVersion): boolean {
    return this.get(apiVersion, obj.kind, obj.metadata?.namespace, obj.metadata?.name) !== undefined;
  }

  /** Sets the object of an identity; a known identity keeps its place. */
  set(apiVersion: string, kind: string, namespace: string | undefined, name: string | undefined, obj: Obj): void {
    const byKind = getOrAdd(this.#index, apiVersion);
    const byNamespace = getOrAdd(byKind, kind);
    const ns = namespace ?? "";
    let byName = byNamespace.get(ns);
    if (!byName) byNamespace.set(ns, (byName = new Map()));
    const key = name ?? "";
    const at = byName.get(key);
    if (at !== undefined) this.#objects[at] = obj;
    else {
      byName.set(key, this.#objects.length);
      this.#objects.push(obj);
    }
  }
}

function getOrAdd<V>(map: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let inner = map.get(key);
  if (!inner) map.set(key, (inner = new Map()));
  return inner;
}
