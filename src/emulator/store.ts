/**
 * An in-memory Kubernetes API server, just faithful enough for the CompositeController loop
 * (docs/metacontroller-loop.md, "The API server"): uid, resourceVersion, generation, finalizers,
 * ownerReferences, deletionTimestamp, a background garbage collector, and the immutable fields
 * of Jobs and Deployments.
 *
 * Stored objects are never mutated in place (every write stores a fresh copy), so a snapshot of
 * the store is a shallow copy of its map — that is how the stale-cache fault is built.
 *
 * @packageDocumentation
 */
import { copyOwn } from "../kube/copy-own.ts";
import { cloneJson } from "../kube/json-clone.ts";
import { formatTime } from "../kube/time.ts";

/** A Kubernetes object as stored (free-form JSON). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Obj = Record<string, any>;

/** An API error with the HTTP status the real API server would answer. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: "NotFound" | "AlreadyExists" | "Conflict" | "Invalid" | "InternalError",
    message: string,
  ) {
    super(`${code} ${reason}: ${message}`);
  }
}

/** A watch event. `old` is set on MODIFIED and DELETED. */
export interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED";
  object: Obj;
  old?: Obj;
}

/** Identity of an object: API group (not version), kind, namespace, name. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string | undefined;
  name: string;
}

/** `apps/v1` → `apps`; `v1` → `` (the core group). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/** The store key of an object: `group/Kind/namespace/name`. */
export function storeKey(ref: ObjectRef): string {
  return `${groupOf(ref.apiVersion)}/${ref.kind}/${ref.namespace ?? ""}/${ref.name}`;
}

/** The ref of a stored object. */
export function refOf(obj: Obj): ObjectRef {
  return { apiVersion: obj.apiVersion, kind: obj.kind, namespace: obj.metadata?.namespace, name: obj.metadata?.name };
}

/**
 * Deep copy of a JSON value with JSON's semantics ({@link cloneJson}); the emulator copies objects
 * on every store write and every hook answer it keeps.
 */
export const clone = cloneJson;

/** JSON deep equality (undefined-valued keys count as absent, as they do on the wire). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => jsonEqual(v, bb[i]));
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  // Counted in loops rather than filtered lists: this runs on every store write.
  let defined = 0;
  // for-in with an own-key check visits Object.keys' keys without allocating the list.
  for (const k in ra) {
    if (!Object.hasOwn(ra, k)) continue;
    const va = ra[k];
    if (va === undefined) continue;
    defined++;
    if (!Object.hasOwn(rb, k) || !jsonEqual(va, rb[k])) return false;
  }
  for (const k in rb) if (Object.hasOwn(rb, k) && rb[k] !== undefined) defined--;
  return defined === 0;
}

/** Metadata fields only the server sets; a client write never changes them. */
const SERVER_METADATA = ["uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp", "managedFields", "selfLink"];

/** Options of {@link Store.update}. */
export interface UpdateOptions {
  /** Write only `.status` (the status subresource); otherwise everything but `.status`. */
  subresource?: "status";
}

/** Options of {@link Store.delete}. */
export interface DeleteOptions {
  /** Precondition: fail with 409 when the live object has another uid. */
  uid?: string;
}

/**
 * The object store. Writes emit watch events synchronously to every listener; a write that
 * changes nothing bumps nothing and emits nothing (or the loop would never settle).
 */
export class Store {
  #objects = new Map<string, Obj>();
  #listeners: Array<(e: WatchEvent) => void> = [];
  #rv = 1000;
  #uid = 0;
  readonly #now: () => number;

  /** @param now - simulated clock, epoch milliseconds */
  constructor(now: () => number) {
    this.#now = now;
  }

  /** Subscribes to every watch event (all kinds, all namespaces). */
  watch(listener: (e: WatchEvent) => void): void {
    this.#listeners.push(listener);
  }

  /** A shallow snapshot of the store, for stale-cache reads (objects are immutable). */
  snapshot(): Map<string, Obj> {
    return new Map(this.#objects);
  }

  /** The live object (a copy), or undefined. */
  get(ref: ObjectRef): Obj | undefined {
    const obj = this.#objects.get(storeKey(ref));
    return obj ? clone(obj) : undefined;
  }

  /** Same as {@link get} without copying: the caller must not mutate the result. */
  peek(ref: ObjectRef): Obj | undefined {
    return this.#objects.get(storeKey(ref));
  }

  /**
   * Objects of one kind (any version of its group), optionally in one namespace, sorted by
   * namespace/name. Read-only: the caller must not mutate the results.
   */
  list(apiVersion: string, kind: string, namespace?: string, from: Map<string, Obj> = this.#objects): Obj[] {
    const prefix = `${groupOf(apiVersion)}/${kind}/${namespace === undefined ? "" : `${namespace}/`}`;
    const hits: Array<[string, Obj]> = [];
    for (const entry of from) if (entry[0].startsWith(prefix)) hits.push(entry);
    hits.sort((a, b) => (a[0] < b[0] ? -1 : 1));
    return hits.map((e) => e[1]);
  }

  /** Every object (read-only), e.g. for invariant checks. */
  all(): Obj[] {
    return [...this.#objects.values()];
  }

  /**
   * Creates an object: the server sets uid, resourceVersion, generation 1 and creationTimestamp.
   * The result is the stored object: read-only.
   * @throws ApiError 409 AlreadyExists
   */
  create(input: Obj): Obj {
    const key = storeKey(refOf(input));
    if (!input.metadata?.name) throw new ApiError(422, "Invalid", "metadata.name is required");
    if (this.#objects.has(key)) throw new ApiError(409, "AlreadyExists", `${key} already exists`);
    const obj = clone(input);
    for (const f of SERVER_METADATA) delete obj.metadata[f];
    obj.metadata.uid = `uid-${String(++this.#uid).padStart(6, "0")}`;
    obj.metadata.resourceVersion = String(++this.#rv);
    obj.metadata.generation = 1;
    obj.metadata.creationTimestamp = formatTime(new Date(this.#now()));
    applyServerDefaults(obj);
    this.#objects.set(key, obj);
    this.#emit({ type: "ADDED", object: obj });
    return obj;
  }

  /**
   * Replaces an object (PUT). With `metadata.resourceVersion` set, it is a precondition (409 on
   * mismatch). The main resource keeps the live `.status`; the status subresource keeps
   * everything but `.status`. `generation` is bumped only when `spec` changes. Removing the last
   * finalizer of an object being deleted removes it.
   * The result is the stored object: read-only.
   * @throws ApiError 404, 409 Conflict, 422 on an immutable field change
   */
  update(input: Obj, options: UpdateOptions = {}): Obj {
    return this.#update(clone(input), options);
  }

  /** {@link update} for an input the store may keep (a fresh copy nobody else holds). */
  #update(input: Obj, options: UpdateOptions): Obj {
    const ref = refOf(input);
    const key = storeKey(ref);
    const live = this.#objects.get(key);
    if (!live) throw new ApiError(404, "NotFound", `${key} not found`);
    const rv = input.metadata?.resourceVersion;
    if (rv !== undefined && rv !== live.metadata.resourceVersion) {
      throw new ApiError(409, "Conflict", `${key}: resourceVersion ${rv} is stale (live ${live.metadata.resourceVersion})`);
    }
    // Stored objects are immutable, so the new version may share unchanged parts with the old one.
    let next: Obj;
    // Copies key by key (copyOwn) where keys may be added: V8 gives a spread copy that gains a
    // key a new hidden class every time.
    if (options.subresource === "status") {
      next = copyOwn(live);
      next.metadata = { ...live.metadata };
      if (input.status === undefined) delete next.status;
      else next.status = input.status;
    } else {
      next = input;
      next.metadata = copyOwn(next.metadata);
      for (const f of SERVER_METADATA) {
        if (live.metadata[f] === undefined) delete next.metadata[f];
        else next.metadata[f] = live.metadata[f];
      }
      if (live.status === undefined) delete next.status;
      else next.status = live.status;
      checkImmutable(live, next);
      if (live.metadata.deletionTimestamp) {
        // The API server refuses new finalizers on an object that is being deleted.
        const added = (next.metadata.finalizers ?? []).filter((f: string) => !(live.metadata.finalizers ?? []).includes(f));
        if (added.length) throw new ApiError(422, "Invalid", `${key}: cannot add finalizers while deleting`);
      }
    }
    if (jsonEqual(live, next)) return live;
    if (!jsonEqual(live.spec, next.spec)) next.metadata.generation = live.metadata.generation + 1;
    next.metadata.resourceVersion = String(++this.#rv);
    if (Array.isArray(next.metadata.finalizers) && next.metadata.finalizers.length === 0) delete next.metadata.finalizers;
    if (next.metadata.deletionTimestamp && !next.metadata.finalizers?.length) {
      this.#remove(key, next);
      return next;
    }
    this.#objects.set(key, next);
    this.#emit({ type: "MODIFIED", object: next, old: live });
    return next;
  }

  /**
   * Read-modify-write without a resourceVersion precondition (like a merge PATCH). `mutate` gets
   * a private copy. The result is the stored object: read-only.
   */
  patch(ref: ObjectRef, mutate: (obj: Obj) => void, options: UpdateOptions = {}): Obj {
    const stored = this.#objects.get(storeKey(ref));
    if (!stored) throw new ApiError(404, "NotFound", `${storeKey(ref)} not found`);
    // A status write only keeps `.status` of the copy, so only that needs a deep copy.
    const live = options.subresource === "status" ? { ...stored, metadata: { ...stored.metadata }, status: clone(stored.status) } : clone(stored);
    mutate(live);
    // Undefined rather than deleted (no precondition either way): deleting a key from the middle
    // of an object turns it into a dictionary in V8, slow for every later read and copy.
    live.metadata.resourceVersion = undefined;
    return this.#update(live, options);
  }

  /**
   * Replaces `.status` through the status subresource: the same as
   * `patch(ref, (o) => (o.status = status), { subresource: "status" })` without first copying the
   * old status. The store keeps `status` as given: the caller must not change it afterwards.
   * @throws ApiError 404
   */
  writeStatus(ref: ObjectRef, status: Obj | undefined): Obj {
    const stored = this.#objects.get(storeKey(ref));
    if (!stored) throw new ApiError(404, "NotFound", `${storeKey(ref)} not found`);
    // The status subresource reads only the identity, the (absent) precondition and the status.
    const metadata = { namespace: stored.metadata.namespace, name: stored.metadata.name, resourceVersion: undefined };
    return this.#update({ apiVersion: stored.apiVersion, kind: stored.kind, metadata, status }, { subresource: "status" });
  }

  /**
   * Deletes an object with background propagation: with finalizers it only gets a
   * deletionTimestamp; otherwise it is removed and the garbage collector deletes its dependents.
   * @throws ApiError 404, 409 on a uid precondition mismatch
   */
  delete(ref: ObjectRef, options: DeleteOptions = {}): void {
    const key = storeKey(ref);
    const live = this.#objects.get(key);
    if (!live) throw new ApiError(404, "NotFound", `${key} not found`);
    if (options.uid !== undefined && options.uid !== live.metadata.uid) {
      throw new ApiError(409, "Conflict", `${key}: uid precondition failed`);
    }
    if (live.metadata.finalizers?.length) {
      if (live.metadata.deletionTimestamp) return;
      const next = clone(live);
      next.metadata.deletionTimestamp = formatTime(new Date(this.#now()));
      next.metadata.resourceVersion = String(++this.#rv);
      this.#objects.set(key, next);
      this.#emit({ type: "MODIFIED", object: next, old: live });
      return;
    }
    this.#remove(key, live);
  }

  #remove(key: string, obj: Obj): void {
    const old = this.#objects.get(key);
    this.#objects.delete(key);
    this.#emit({ type: "DELETED", object: obj, old });
    this.#collectGarbage(obj);
  }

  /**
   * Background garbage collection: dependents in the owner's namespace (or anywhere for a
   * cluster-scoped owner) whose ownerReferences point at the removed uid are deleted once no
   * other owner of theirs still exists; otherwise the dangling reference is dropped.
   */
  #collectGarbage(owner: Obj): void {
    const uid = owner.metadata.uid;
    const ns = owner.metadata.namespace;
    for (const dep of [...this.#objects.values()]) {
      const refs: Obj[] = dep.metadata.ownerReferences ?? [];
      if (!refs.some((r) => r.uid === uid)) continue;
      if (ns !== undefined && dep.metadata.namespace !== ns) continue;
      const others = refs.filter((r) => r.uid !== uid && this.#ownerExists(r, dep.metadata.namespace));
      try {
        if (others.length === 0) this.delete(refOf(dep));
        else this.patch(refOf(dep), (o) => (o.metadata.ownerReferences = refs.filter((r) => r.uid !== uid)));
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 404)) throw err;
      }
    }
  }

  #ownerExists(ref: Obj, namespace: string | undefined): boolean {
    for (const o of this.#objects.values()) {
      if (o.metadata.uid === ref.uid && (o.metadata.namespace === undefined || o.metadata.namespace === namespace)) return true;
    }
    return false;
  }

  #emit(e: WatchEvent): void {
    for (const l of this.#listeners) l(e);
  }
}

/**
 * Field immutability the real API server enforces and that matters for hooks:
 * a batch/v1 Job's `spec.template` and `spec.selector`, an apps/v1 Deployment's `spec.selector`.
 */
function checkImmutable(live: Obj, next: Obj): void {
  const group = groupOf(live.apiVersion);
  const name = `${live.kind} ${live.metadata.namespace}/${live.metadata.name}`;
  if (group === "batch" && live.kind === "Job") {
    for (const f of ["template", "selector", "completionMode"]) {
      if (!jsonEqual(live.spec?.[f], next.spec?.[f])) throw new ApiError(422, "Invalid", `${name}: spec.${f}: field is immutable`);
    }
  }
  if (group === "apps" && live.kind === "Deployment" && !jsonEqual(live.spec?.selector, next.spec?.selector)) {
    throw new ApiError(422, "Invalid", `${name}: spec.selector: field is immutable`);
  }
}

/**
 * Fields the real API server fills in on create, so that dynamic apply has to live with values the
 * hook never sent (they are preserved by the three-way merge because they are not in last-applied):
 * a Job's generated selector and pod-template labels plus its scalar defaults; a Deployment's
 * rollout defaults.
 */
function applyServerDefaults(obj: Obj): void {
  const group = groupOf(obj.apiVersion);
  if (group === "batch" && obj.kind === "Job" && obj.spec) {
    const uid = obj.metadata.uid;
    obj.spec.backoffLimit ??= 6;
    obj.spec.completions ??= 1;
    obj.spec.parallelism ??= 1;
    obj.spec.completionMode ??= "NonIndexed";
    obj.spec.suspend ??= false;
    if (!obj.spec.manualSelector) {
      obj.spec.selector = { matchLabels: { "batch.kubernetes.io/controller-uid": uid } };
      obj.spec.template ??= {};
      obj.spec.template.metadata ??= {};
      obj.spec.template.metadata.labels = {
        ...(obj.spec.template.metadata.labels ?? {}),
        "batch.kubernetes.io/controller-uid": uid,
        "batch.kubernetes.io/job-name": obj.metadata.name,
        "controller-uid": uid,
        "job-name": obj.metadata.name,
      };
    }
  }
  if (group === "apps" && obj.kind === "Deployment" && obj.spec) {
    obj.spec.replicas ??= 1;
    obj.spec.revisionHistoryLimit ??= 10;
    obj.spec.progressDeadlineSeconds ??= 600;
    obj.spec.strategy ??= { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } };
  }
}
