/**
 * One CompositeController, emulated the way Metacontroller v4.17 runs it with dynamic apply
 * (docs/metacontroller-loop.md: queue and triggers, then one sync of a parent step by step: finalizer, claim, hook
 * call, label check, child writes by update strategy, status; customize and related objects).
 * Hooks are called over real HTTP.
 *
 * @packageDocumentation
 */
import { copyOwn } from "../kube/copy-own.ts";
import { formatTime } from "../kube/time.ts";
import { httpTransport, type HookReply, type HookTransport } from "./transport.ts";
import { ChildIndex } from "./child-index.ts";
import { applyUpdate, withLastApplied } from "./merge.ts";
import type { Scheduler } from "./scheduler.ts";
import { DEFAULT_RESOURCES, labelsOf, matchesSelector, type LabelSelector, type ResourceInfo } from "./selectors.ts";
import { ApiError, clone, groupOf, jsonEqual, refOf, storeKey, type Obj, type ObjectRef, type Store, type WatchEvent } from "./store.ts";

/** Random faults a controller injects (all rates are probabilities per operation, 0..1). */
export interface ControllerFaults {
  /** Random source in [0, 1); pass a seeded one for reproducible runs. */
  rng: () => number;
  /**
   * A sync reads parent and children as they were at the start of the previous sync; the parent
   * is queued again afterwards (the informer delivering the events it was behind on).
   */
  staleCacheRate?: number;
  /**
   * Related objects (the customize hook's, e.g. Pods) are read as they were at the start of the
   * previous sync while parent and children are current: one informer cache behind another, as
   * Metacontroller's Pod cache can be behind its Job cache. The parent is queued again afterwards.
   */
  relatedStaleRate?: number;
  /** The hook answered, but the answer never reached Metacontroller (treated as a timeout). */
  hookResponseLossRate?: number;
  /** A child create/update/delete is rejected with a 500 before it is applied. */
  childWriteErrorRate?: number;
  /** A child create/update/delete is applied, but the client sees a 500 (response lost). */
  childWriteLossRate?: number;
}

/** One write Metacontroller made (or tried), for timelines and invariants. */
export interface WriteRecord {
  at: number;
  op: "create" | "update" | "delete" | "status" | "add-finalizer" | "remove-finalizer" | "adopt" | "release";
  /** `Kind namespace/name` */
  target: string;
  error?: string;
}

/** One pass of the sync loop for one parent. */
export interface SyncRecord {
  at: number;
  controller: string;
  /** Parent `namespace/name`. */
  key: string;
  hook?: "sync" | "finalize";
  /** The hook answered and everything was applied. */
  ok: boolean;
  error?: string;
  /** The hook saw the previous snapshot (stale-cache fault). */
  stale: boolean;
  request?: Obj;
  response?: Obj;
  writes: WriteRecord[];
}

/** A hook endpoint: where the service listens right now (undefined while it is down). */
export type BaseUrl = () => string | undefined;

/** Where hook calls go: a base URL for real HTTP, or a transport (e.g. in process). */
export type HookEndpoint = BaseUrl | { transport: HookTransport };

interface HookConfig {
  path: string;
  version: "v1" | "v2";
  strict: boolean;
  timeoutMs: number;
}

interface ChildRule {
  apiVersion: string;
  kind: string;
  namespaced: boolean;
  method: "OnDelete" | "Recreate" | "InPlace";
}

/** An error that makes the queue retry after a fixed delay (HTTP 429). */
class RetryAfter extends Error {
  constructor(readonly delayMs: number) {
    super(`429 Too Many Requests, retry after ${delayMs} ms`);
  }
}

/** Options of {@link CompositeControllerEmulator}. */
export interface ControllerOptions {
  /** The CompositeController object (metacontroller.k8s.io/v1alpha1). */
  compositeController: Obj;
  store: Store;
  scheduler: Scheduler;
  /**
   * The hook service: a base URL (the path of each configured webhook URL is kept) called over
   * HTTP, or a transport that answers a path and a body.
   */
  hooks: HookEndpoint;
  faults?: ControllerFaults;
  /** Extra resource → kind entries (discovery). */
  resources?: Record<string, ResourceInfo>;
  /** Called after every sync pass. */
  onSync?: (record: SyncRecord) => void;
  /**
   * Keep every pass in {@link CompositeControllerEmulator.records} (requests and responses
   * included). A long run that reads passes through `onSync` only turns it off to stay small.
   * @default true
   */
  keepRecords?: boolean;
}

const GC_FINALIZERS = ["foregroundDeletion", "orphan"];
const BACKOFF_BASE_MS = 5;
const BACKOFF_MAX_MS = 1000 * 1000;

/**
 * The emulated controller: a de-duplicating work queue with delayed adds and per-key exponential
 * backoff (client-go's default controller rate limiter, without the overall 10 qps bucket), fed by
 * store watch events, and the sync of one parent exactly in Metacontroller's order.
 */
export class CompositeControllerEmulator {
  readonly name: string;
  readonly finalizer: string;
  readonly parent: { apiVersion: string; kind: string; namespaced: boolean; labelSelector?: LabelSelector; ignoreStatusChanges: boolean };
  readonly children: ChildRule[];
  readonly hooks: { sync: HookConfig; finalize?: HookConfig; customize?: HookConfig };
  readonly generateSelector: boolean;
  /** Every sync pass, in order. */
  readonly records: SyncRecord[] = [];

  readonly #cc: Obj;
  readonly #store: Store;
  readonly #scheduler: Scheduler;
  readonly #transport: HookTransport;
  readonly #faults: ControllerFaults | undefined;
  readonly #onSync: ((r: SyncRecord) => void) | undefined;
  readonly #keepRecords: boolean;
  readonly #resources: Record<string, ResourceInfo>;

  // Work queue state (client-go workqueue semantics).
  #queue: string[] = [];
  #dirty = new Set<string>();
  #processing = new Set<string>();
  #waiting = new Map<string, number>();
  #failures = new Map<string, number>();
  #running = true;
  /** Bumped on stop, so timers armed before a stop are void. */
  #epoch = 0;

  // Stale cache: the snapshot taken at the start of the previous sync.
  #previousSnapshot: Map<string, Obj> | undefined;
  /** The previous sync read stale related objects (relatedStaleRate). */
  #relatedLagged = false;
  // Customize responses per parent uid/generation, and the related rules per parent key.
  #customizeCache = new Map<string, Obj[]>();
  #relatedRules = new Map<string, Obj[]>();

  constructor(options: ControllerOptions) {
    const cc = options.compositeController;
    this.#cc = clone(cc);
    this.#store = options.store;
    this.#scheduler = options.scheduler;
    this.#transport = typeof options.hooks === "function" ? httpTransport(options.hooks) : options.hooks.transport;
    this.#faults = options.faults;
    this.#onSync = options.onSync;
    this.#keepRecords = options.keepRecords ?? true;
    this.#resources = { ...DEFAULT_RESOURCES, ...(options.resources ?? {}) };
    const spec = cc.spec ?? {};
    this.name = cc.metadata.name;
    this.finalizer = `metacontroller.io/compositecontroller-${this.name}`;
    const pr = spec.parentResource;
    const pinfo = this.#discover(pr.resource);
    this.parent = {
      apiVersion: pr.apiVersion,
      kind: pinfo.kind,
      namespaced: pinfo.namespaced,
      ignoreStatusChanges: pr.ignoreStatusChanges === true,
      ...(pr.labelSelector ? { labelSelector: pr.labelSelector } : {}),
    };
    if (pr.revisionHistory) throw new Error("emulator: revisionHistory (rolling updates) is not emulated");
    this.children = (spec.childResources ?? []).map((c: Obj) => {
      const method = c.updateStrategy?.method ?? "OnDelete";
      if (!["OnDelete", "Recreate", "InPlace"].includes(method)) {
        throw new Error(`emulator: update strategy ${method} (rolling) is not emulated`);
      }
      const info = this.#discover(c.resource);
      return { apiVersion: c.apiVersion, kind: info.kind, namespaced: info.namespaced, method };
    });
    const hooks = spec.hooks ?? {};
    if (!hooks.sync) throw new Error("emulator: a sync hook is required");
    this.hooks = {
      sync: hookConfig(hooks.sync),
      ...(hooks.finalize ? { finalize: hookConfig(hooks.finalize) } : {}),
      ...(hooks.customize ? { customize: hookConfig(hooks.customize) } : {}),
    };
    this.generateSelector = spec.generateSelector === true;
    this.#store.watch((e) => this.#onEvent(e));
    const period = spec.resyncPeriodSeconds;
    if (typeof period === "number" && period > 0) this.#armPeriodic(Math.max(1, period) * 1000);
  }

  #discover(resource: string): ResourceInfo {
    const info = this.#resources[resource];
    if (!info) throw new Error(`emulator: unknown resource ${resource} (add it to resources)`);
    return info;
  }

  // ---------------------------------------------------------------- queue

  /** Keys waiting to be processed now. */
  get queueLength(): number {
    return this.#queue.length;
  }

  /** Adds a parent key (`namespace/name`) to the queue, de-duplicated (one pass per burst of events). */
  enqueue(key: string): void {
    if (!this.#running || this.#dirty.has(key)) return;
    this.#dirty.add(key);
    if (!this.#processing.has(key)) this.#queue.push(key);
  }

  /** Adds a key after a delay; of several pending delays for one key the earliest wins, as Metacontroller's rate-limited queue does. */
  enqueueAfter(key: string, delayMs: number): void {
    if (!this.#running) return;
    if (delayMs <= 0) return this.enqueue(key);
    const at = this.#scheduler.now() + delayMs;
    const pending = this.#waiting.get(key);
    if (pending !== undefined && pending <= at) return;
    this.#waiting.set(key, at);
    const epoch = this.#epoch;
    this.#scheduler.at(at, `${this.name}: requeue ${key}`, () => {
      if (epoch !== this.#epoch || this.#waiting.get(key) !== at) return;
      this.#waiting.delete(key);
      this.enqueue(key);
    });
  }

  /** The time (epoch ms) of the pending delayed enqueue of a key, if any. */
  pendingResync(key: string): number | undefined {
    return this.#waiting.get(key);
  }

  /** Enqueues every parent (controller start, cache flush). */
  enqueueAll(): void {
    for (const p of this.#store.list(this.parent.apiVersion, this.parent.kind)) this.enqueue(parentKey(p));
  }

  /** Stops the controller (Metacontroller down): queue, timers and backoff state are dropped. */
  stop(): void {
    this.#running = false;
    this.#epoch++;
    this.#queue = [];
    this.#dirty.clear();
    this.#waiting.clear();
    this.#failures.clear();
    this.#customizeCache.clear();
    this.#previousSnapshot = undefined;
  }

  /** Starts (or restarts) the controller: every parent is synced, as after Metacontroller's informers sync. */
  start(): void {
    this.#running = true;
    this.enqueueAll();
  }

  /** Whether the controller is running. */
  get running(): boolean {
    return this.#running;
  }

  /**
   * Processes one queued key, if any: one sync, then success (forget the backoff) or error
   * (retry with backoff, or after Retry-After for a 429).
   * @returns false when the queue was empty
   */
  async processOne(): Promise<boolean> {
    const key = this.#queue.shift();
    if (key === undefined) return false;
    this.#dirty.delete(key);
    this.#processing.add(key);
    const record: SyncRecord = { at: this.#scheduler.now(), controller: this.name, key, ok: false, stale: false, writes: [] };
    try {
      await this.#sync(key, record);
      record.ok = true;
      this.#failures.delete(key);
    } catch (err) {
      record.error = err instanceof Error ? err.message : String(err);
      if (err instanceof RetryAfter) {
        this.enqueueAfter(key, err.delayMs);
      } else {
        const n = (this.#failures.get(key) ?? 0) + 1;
        this.#failures.set(key, n);
        this.enqueueAfter(key, Math.min(BACKOFF_BASE_MS * 2 ** (n - 1), BACKOFF_MAX_MS));
      }
    } finally {
      // A stale read is followed by the informer catching up: the events it had not yet delivered
      // arrive and queue the parent again, so a fresh view always comes eventually.
      if (record.stale) this.enqueue(key);
      this.#processing.delete(key);
      if (this.#dirty.has(key)) this.#queue.push(key);
    }
    if (this.#keepRecords) this.records.push(record);
    this.#onSync?.(record);
    return true;
  }

  #armPeriodic(periodMs: number): void {
    const epoch = this.#epoch;
    this.#scheduler.after(periodMs, `${this.name}: resyncPeriod`, () => {
      if (epoch === this.#epoch) this.enqueueAll();
      this.#armPeriodic(periodMs);
    });
  }

  // ---------------------------------------------------------------- triggers: which events queue which parent

  #isParent(obj: Obj): boolean {
    return obj.kind === this.parent.kind && groupOf(obj.apiVersion) === groupOf(this.parent.apiVersion);
  }

  #childRule(obj: Obj): ChildRule | undefined {
    return this.children.find((c) => c.kind === obj.kind && groupOf(c.apiVersion) === groupOf(obj.apiVersion));
  }

  #onEvent(e: WatchEvent): void {
    if (!this.#running) return;
    const obj = e.object;
    if (this.#isParent(obj)) {
      if (e.type === "MODIFIED" && this.parent.ignoreStatusChanges && e.old) {
        const o = e.old.metadata;
        const n = obj.metadata;
        const same =
          o.generation === n.generation && jsonEqual(o.labels, n.labels) && jsonEqual(o.annotations, n.annotations) && !n.deletionTimestamp;
        if (same) return;
      }
      this.enqueue(parentKey(obj));
      return;
    }
    if (this.#childRule(obj)) {
      const ref = controllerRef(obj);
      if (ref) {
        if (ref.kind === this.parent.kind && groupOf(ref.apiVersion) === groupOf(this.parent.apiVersion)) {
          const ns = obj.metadata.namespace;
          const parent = this.#store.peek({ apiVersion: this.parent.apiVersion, kind: this.parent.kind, namespace: this.parent.namespaced ? ns : undefined, name: ref.name });
          if (parent && parent.metadata.uid === ref.uid) this.enqueue(parentKey(parent));
        }
      } else {
        for (const p of this.#store.list(this.parent.apiVersion, this.parent.kind)) {
          if (this.parent.namespaced && p.metadata.namespace !== obj.metadata.namespace) continue;
          const sel = this.#selectorOf(p);
          if (sel && matchesSelector(sel, labelsOf(obj))) this.enqueue(parentKey(p));
        }
      }
    }
    // Related objects (customize): any parent whose rules select this object.
    for (const [key, rules] of this.#relatedRules) {
      if (rules.some((r) => this.#ruleMatches(r, obj, key))) this.enqueue(key);
    }
  }

  // ---------------------------------------------------------------- one sync (rules 8–22)

  #selectorOf(p: Obj): LabelSelector | undefined {
    if (this.generateSelector) return { matchLabels: { "controller-uid": p.metadata.uid } };
    const s = p.spec?.selector;
    if (!s || (!s.matchLabels && !s.matchExpressions)) return undefined;
    return s;
  }

  #hasF(p: Obj): boolean {
    return (p.metadata.finalizers ?? []).includes(this.finalizer);
  }

  #failsParentSelector(p: Obj): boolean {
    return this.parent.labelSelector !== undefined && !matchesSelector(this.parent.labelSelector, labelsOf(p));
  }

  #parentRef(key: string): ObjectRef {
    const slash = key.indexOf("/");
    const ns = key.slice(0, slash);
    return { apiVersion: this.parent.apiVersion, kind: this.parent.kind, namespace: ns === "" ? undefined : ns, name: key.slice(slash + 1) };
  }

  /** Live write with fault injection and recording (child writes only get faults). */
  #write<T>(record: SyncRecord, op: WriteRecord["op"], target: string, faulty: boolean, fn: () => T): T {
    const w: WriteRecord = { at: this.#scheduler.now(), op, target };
    record.writes.push(w);
    const f = this.#faults;
    try {
      if (faulty && f?.childWriteErrorRate && f.rng() < f.childWriteErrorRate) {
        throw new ApiError(500, "InternalError", `injected: ${op} ${target} rejected`);
      }
      const out = fn();
      if (faulty && f?.childWriteLossRate && f.rng() < f.childWriteLossRate) {
        throw new ApiError(500, "InternalError", `injected: ${op} ${target} applied, response lost`);
      }
      return out;
    } catch (err) {
      w.error = err instanceof Error ? err.message : String(err);
      throw err;
    }
  }

  async #sync(key: string, record: SyncRecord): Promise<void> {
    const store = this.#store;
    const f = this.#faults;
    // Stale cache: reads come from the previous sync's snapshot (informers lag behind writes).
    // A snapshot (a copy of the store's map) is needed for the stale-cache faults, which read an
    // older one later, and for related objects, which are read after this sync's claims wrote to
    // children. Without both, everything below is read before this sync writes to it (the parent
    // first, the children after a write to the parent only), so the live map is the same view.
    const needsSnapshot = Boolean(f?.staleCacheRate || f?.relatedStaleRate || this.hooks.customize);
    const current = needsSnapshot ? store.snapshot() : undefined;
    const previousSnapshot = this.#previousSnapshot;
    let view = current;
    if (f?.staleCacheRate && this.#previousSnapshot && f.rng() < f.staleCacheRate) {
      view = this.#previousSnapshot;
      record.stale = true;
    }
    this.#previousSnapshot = current;
    const pref = this.#parentRef(key);
    let P = view ? view.get(storeKey(pref)) : store.peek(pref);
    if (!P) return; // the parent is gone: nothing to do
    // Outside parentResource.labelSelector and without our finalizer: not ours to sync.
    if (this.#failsParentSelector(P) && !this.#hasF(P)) return;
    // The finalizer first: with a finalize hook it must be on before any child is created.
    const hasFinalizeHook = this.hooks.finalize !== undefined;
    const target = `${this.parent.kind} ${key}`;
    if (hasFinalizeHook && !this.#hasF(P) && !P.metadata.deletionTimestamp) {
      P = this.#write(record, "add-finalizer", target, false, () =>
        store.patch(pref, (o) => (o.metadata.finalizers = [...(o.metadata.finalizers ?? []).filter((x: string) => x !== this.finalizer), this.finalizer])),
      );
    } else if (!hasFinalizeHook && this.#hasF(P)) {
      P = this.#write(record, "remove-finalizer", target, false, () =>
        store.patch(pref, (o) => (o.metadata.finalizers = (o.metadata.finalizers ?? []).filter((x: string) => x !== this.finalizer))),
      );
    }
    if (!store.peek(pref)) return;
    if (this.#failsParentSelector(P!) && !this.#hasF(P!)) return;
    const parent = P!;
    // Selector: controller-uid with generateSelector, else spec.selector.
    const selector = this.#selectorOf(parent);
    if (!selector) throw new Error(`${target}: spec.selector must have matchLabels or matchExpressions`);
    const deleting = Boolean(parent.metadata.deletionTimestamp);
    // The finalize hook runs while the parent is being deleted (or left the label selector).
    const finalizing = hasFinalizeHook && (deleting || this.#failsParentSelector(parent));
    const hook = finalizing ? this.hooks.finalize! : this.hooks.sync;
    // Claim: observe controlled matching children, release non-matching ones, adopt orphans.
    const observed = new ChildIndex();
    const childrenMap: Record<string, Record<string, Obj>> = {};
    for (const rule of this.children) {
      // Maps keyed by object names are made without a prototype: V8 keeps them as dictionaries,
      // where a plain object would get a new hidden class for every new Job name (one per slot).
      // It is also the shape the contract's schema gives hooks (null-prototype maps). Keyed
      // straight away as the hook's version sends them (see requestKey).
      const group: Record<string, Obj> = Object.create(null);
      childrenMap[`${rule.kind}.${rule.apiVersion}`] = group;
      const ns = this.parent.namespaced ? parent.metadata.namespace : undefined;
      for (const candidate of store.list(rule.apiVersion, rule.kind, ns, view)) {
        let child: Obj | undefined = candidate;
        const ref = controllerRef(child);
        const matches = matchesSelector(selector, labelsOf(child));
        if (ref) {
          if (ref.uid !== parent.metadata.uid) continue;
          if (!matches) {
            if (!deleting) this.#release(record, child, parent);
            continue;
          }
        } else {
          if (!matches || deleting || child.metadata.deletionTimestamp) continue;
          child = this.#adopt(record, child, parent);
          if (!child) continue;
        }
        child = { ...child, apiVersion: rule.apiVersion };
        const key = requestKey(child, hook.version, parent.metadata.namespace);
        if (key !== undefined) group[key] = child;
        observed.set(rule.apiVersion, rule.kind, child.metadata.namespace, child.metadata.name, child);
      }
    }
    // Related objects (the customize hook's rules).
    let relatedView = view;
    // The sync right after a lagging one reads current related objects (that informer caught up),
    // so even a rate of 1 cannot keep the parent in a loop of stale reads.
    if (this.#relatedLagged) this.#relatedLagged = false;
    else if (f?.relatedStaleRate && previousSnapshot && f.rng() < f.relatedStaleRate) {
      relatedView = previousSnapshot;
      record.stale = true;
      this.#relatedLagged = true;
    }
    const related = await this.#related(parent, key, relatedView);
    record.hook = finalizing ? "finalize" : "sync";
    // Every declared child group is sent, empty ones included.
    const request = {
      controller: { metadata: this.#cc.metadata, spec: this.#cc.spec, status: {} },
      parent,
      children: childrenMap,
      related: this.#convert(related, hook.version, parent),
      finalizing,
    };
    record.request = request;
    // 429 waits for Retry-After; anything but a valid 200 answer is a sync error with backoff.
    const { body: response, shared } = await this.#call(hook, request);
    if (f?.hookResponseLossRate && f.rng() < f.hookResponseLossRate) {
      throw new Error(`injected: hook response lost (Client.Timeout exceeded)`);
    }
    // An answer handed over in process may share objects with the hook's: read it, never change
    // it, and copy (with JSON's semantics) whatever is kept or written from it.
    record.response = shared && this.#keepRecords ? clone(response) : response;
    // No children means none.
    const desiredList: Obj[] = (response.children ?? []).map((c: Obj) => this.#desiredChild(c, parent));
    // resyncAfterSeconds > 0 schedules the next call.
    if (typeof response.resyncAfterSeconds === "number" && response.resyncAfterSeconds > 0) {
      this.enqueueAfter(key, response.resyncAfterSeconds * 1000);
    }
    // finalized: true removes our finalizer (which may remove the parent).
    let P2 = parent;
    if (response.finalized === true && this.#hasF(parent)) {
      P2 = this.#write(record, "remove-finalizer", target, false, () =>
        store.patch(pref, (o) => (o.metadata.finalizers = (o.metadata.finalizers ?? []).filter((x: string) => x !== this.finalizer))),
      );
    }
    // A desired child that does not match the selector fails the whole sync, before any write.
    const desired = new ChildIndex();
    for (const d of desiredList) desired.set(d.apiVersion, d.kind, d.metadata.namespace, d.metadata.name, d);
    for (const d of desired.values()) {
      if (!matchesSelector(selector, labelsOf(d))) {
        throw new Error(`labels on desired child ${d.kind} ${d.metadata.name} don't match parent selector`);
      }
    }
    // Children are managed unless the parent is being deleted and no finalizer of ours holds it.
    const errors: string[] = [];
    const gcFinalizer = (P2.metadata.finalizers ?? []).some((x: string) => GC_FINALIZERS.includes(x));
    const manage = !P2.metadata.deletionTimestamp || (hasFinalizeHook && this.#hasF(P2) && !gcFinalizer);
    if (manage) this.#manageChildren(record, parent, observed, desired, errors);
    // Status is written even when child writes failed (they make the sync an error afterwards).
    const newStatus = (shared ? clone(response.status ?? {}) : { ...(response.status ?? {}) }) as Obj;
    newStatus.observedGeneration = P2.metadata.generation;
    const live = store.peek(pref);
    if (live && !jsonEqual(live.status, newStatus)) {
      try {
        this.#write(record, "status", target, false, () => store.writeStatus(pref, newStatus));
      } catch (err) {
        if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err;
      }
    }
    // Failed child writes: a sync error, hence backoff.
    if (errors.length) throw new Error(`children: ${errors.join("; ")}`);
  }

  /**
   * A child of the hook's answer as Metacontroller applies it: without a namespace it gets the
   * parent's; with generateSelector it gets the `controller-uid` label unless it has one. Only the
   * top level and metadata change, so only they are copied, and only when something changes (the
   * answer itself is never changed: see #sync). Copies are made key by key, as keys are added
   * (see copyOwn).
   */
  #desiredChild(child: Obj, parent: Obj): Obj {
    const meta: Obj | undefined = child.metadata;
    const namespace: string | undefined = !meta?.namespace && parent.metadata.namespace ? parent.metadata.namespace : undefined;
    const labels = meta?.labels ?? {};
    const addUid = this.generateSelector && !Object.hasOwn(labels, "controller-uid");
    if (meta && namespace === undefined && !addUid) return child;
    const d = copyOwn(child);
    d.metadata = copyOwn(meta);
    if (namespace !== undefined) d.metadata.namespace = namespace;
    if (addUid) {
      const withUid = copyOwn(labels);
      withUid["controller-uid"] = parent.metadata.uid;
      d.metadata.labels = withUid;
    }
    return d;
  }

  /**
   * Creates, updates and deletes children. Desired objects may be parts of the hook's answer (see
   * #sync): they are only read here; what is written is a copy (withLastApplied, applyUpdate).
   */
  #manageChildren(record: SyncRecord, parent: Obj, observed: ChildIndex, desired: ChildIndex, errors: string[]): void {
    const store = this.#store;
    const ignore = (err: unknown, codes: number[]) => {
      if (err instanceof ApiError && codes.includes(err.code)) return;
      errors.push(err instanceof Error ? err.message : String(err));
    };
    // a. delete observed children that are not desired
    for (const o of observed.values()) {
      if (desired.hasObject(o) || o.metadata.deletionTimestamp) continue;
      try {
        this.#write(record, "delete", describe(o), true, () => store.delete(refOf(o), { uid: o.metadata.uid }));
      } catch (err) {
        ignore(err, [404]);
      }
    }
    for (const d of desired.values()) {
      const o = observed.get(d.apiVersion, d.kind, d.metadata.namespace, d.metadata.name);
      if (!o) {
        // b. create
        // withLastApplied copies `d` (which may be part of the hook's answer) and never changes it.
        const obj = withLastApplied(d);
        const refs: Obj[] = obj.metadata.ownerReferences ?? [];
        if (!refs.some((r) => r.uid === parent.metadata.uid)) refs.push(makeControllerRef(parent));
        obj.metadata.ownerReferences = refs;
        try {
          this.#write(record, "create", describe(d), true, () => store.create(obj));
        } catch (err) {
          ignore(err, [409]);
        }
        continue;
      }
      // c. update per strategy (OnDelete never acts on the merge result, so skip computing it)
      const method = this.#childRule(o)?.method ?? "OnDelete";
      if (method === "OnDelete" || o.metadata.deletionTimestamp) continue;
      // applyUpdate never changes `d` and copies whatever of it ends up in `merged`.
      const { merged, changed } = applyUpdate(o, d);
      if (!changed) continue;
      try {
        if (method === "Recreate") {
          this.#write(record, "delete", describe(o), true, () => store.delete(refOf(o), { uid: o.metadata.uid }));
        } else if (method === "InPlace") {
          this.#write(record, "update", describe(o), true, () => store.update(merged));
        }
      } catch (err) {
        ignore(err, method === "InPlace" ? [404, 409] : [404]);
      }
    }
  }

  #release(record: SyncRecord, child: Obj, parent: Obj): void {
    try {
      this.#write(record, "release", describe(child), false, () =>
        this.#store.patch(refOf(child), (o) => (o.metadata.ownerReferences = (o.metadata.ownerReferences ?? []).filter((r: Obj) => r.uid !== parent.metadata.uid))),
      );
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
  }

  #adopt(record: SyncRecord, child: Obj, parent: Obj): Obj | undefined {
    // canAdopt: an uncached read of the parent must confirm its uid and that it is not being deleted.
    const live = this.#store.peek(refOf(parent));
    if (!live || live.metadata.uid !== parent.metadata.uid || live.metadata.deletionTimestamp) return undefined;
    try {
      return this.#write(record, "adopt", describe(child), false, () =>
        this.#store.patch(refOf(child), (o) => {
          if (controllerRef(o)) throw new ApiError(409, "Conflict", `${describe(o)} was claimed by another controller`);
          o.metadata.ownerReferences = [...(o.metadata.ownerReferences ?? []), makeControllerRef(parent)];
        }),
      );
    } catch (err) {
      if (err instanceof ApiError && (err.code === 404 || err.code === 409)) return undefined;
      throw err;
    }
  }

  /** Uniform map (`ns/name`) → the map the hook version sends (see {@link requestKey}). */
  #convert(map: Record<string, Record<string, Obj>>, version: "v1" | "v2", parent: Obj): Record<string, Record<string, Obj>> {
    if (version === "v2") return map;
    const out: Record<string, Record<string, Obj>> = {};
    for (const group in map) {
      const g: Record<string, Obj> = Object.create(null); // keyed by names: see #sync
      for (const obj of Object.values(map[group]!)) {
        const key = requestKey(obj, version, parent.metadata.namespace);
        if (key !== undefined) g[key] = obj;
      }
      out[group] = g;
    }
    return out;
  }

  // ---------------------------------------------------------------- customize and related objects

  async #related(parent: Obj, key: string, view: Map<string, Obj> | undefined): Promise<Record<string, Record<string, Obj>>> {
    const hook = this.hooks.customize;
    if (!hook) return {};
    const cacheKey = `${parent.metadata.uid}/${parent.metadata.generation}`;
    let rules = this.#customizeCache.get(cacheKey);
    if (!rules) {
      const { body: res, shared } = await this.#post(hook, { controller: { metadata: clone(this.#cc.metadata), spec: clone(this.#cc.spec), status: {} }, parent });
      if (!Array.isArray(res.relatedResources)) throw new Error("customize: relatedResources must be a list");
      rules = (shared ? clone(res.relatedResources) : res.relatedResources) as Obj[];
      this.#customizeCache.set(cacheKey, rules);
    }
    this.#relatedRules.set(key, rules);
    const out: Record<string, Record<string, Obj>> = {};
    for (const rule of rules) {
      const info = this.#discover(rule.resource);
      if (hook.version === "v1" && parent.metadata.namespace && rule.namespace && rule.namespace !== parent.metadata.namespace) {
        throw new Error(`customize: v1 hook of a namespaced parent cannot select namespace ${rule.namespace}`);
      }
      const group: Record<string, Obj> = (out[`${info.kind}.${rule.apiVersion}`] ??= Object.create(null)); // keyed by names: see #sync
      for (const obj of this.#store.list(rule.apiVersion, info.kind, undefined, view)) {
        if (this.#ruleMatches(rule, obj, key)) {
          group[`${obj.metadata.namespace ?? ""}/${obj.metadata.name}`] = { ...obj, apiVersion: rule.apiVersion };
        }
      }
    }
    return out;
  }

  #ruleMatches(rule: Obj, obj: Obj, parentKeyStr: string): boolean {
    let info: ResourceInfo;
    try {
      info = this.#discover(rule.resource);
    } catch {
      return false;
    }
    if (obj.kind !== info.kind || groupOf(obj.apiVersion) !== groupOf(rule.apiVersion)) return false;
    const pns = this.#parentRef(parentKeyStr).namespace;
    const ns = obj.metadata.namespace;
    if (rule.namespace !== undefined && ns !== rule.namespace) return false;
    if (rule.namespace === undefined && pns !== undefined && ns !== pns && this.hooks.customize?.version !== "v2") return false;
    if (Array.isArray(rule.names)) return rule.names.includes(obj.metadata.name);
    if (rule.labelSelector) return matchesSelector(rule.labelSelector, labelsOf(obj));
    return rule.namespace !== undefined;
  }

  // ---------------------------------------------------------------- HTTP: the hook call

  /**
   * One POST. `shared` says the body was handed over in process and may share objects with the
   * hook's own answer: the caller reads it, never changes it, and copies what it keeps. (A flag
   * beside the body rather than a WeakSet of answers: a weak set's entries keep each answer and
   * all it holds alive through young-generation collections, so every answer got promoted.)
   */
  async #post(hook: HookConfig, body: unknown): Promise<{ body: Obj; shared: boolean }> {
    let res: HookReply;
    try {
      res = await this.#transport(hook.path, body, hook.timeoutMs);
    } catch (err) {
      throw new Error(`Post "${hook.path}": ${err instanceof Error ? err.message : String(err)}`);
    }
    if (res.status === 429) {
      const ra = res.retryAfter ?? null;
      const secs = ra !== null && /^\d+$/.test(ra) ? Number(ra) : 0;
      throw new RetryAfter(secs * 1000);
    }
    if (res.status !== 200) throw new Error(`unsupported status code: ${res.status} body: ${res.text.slice(0, 200)}`);
    let parsed: unknown;
    const shared = res.json !== undefined;
    if (shared) parsed = res.json;
    else {
      try {
        parsed = JSON.parse(res.text);
      } catch {
        throw new Error(`invalid JSON in hook response: ${res.text.slice(0, 100)}`);
      }
    }
    if (parsed === null) return { body: {}, shared: false };
    if (typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("hook response is not a JSON object");
    return { body: parsed as Obj, shared };
  }

  async #call(hook: HookConfig, request: unknown): Promise<{ body: Obj; shared: boolean }> {
    const answer = await this.#post(hook, request);
    const r = answer.body;
    const known = ["status", "children", "resyncAfterSeconds", "finalized"];
    const unknown = Object.keys(r).filter((k) => !known.includes(k));
    if (hook.strict && unknown.length) throw new Error(`strict decoding: unknown field(s) ${unknown.join(", ")}`);
    if (r.status !== undefined && r.status !== null && (typeof r.status !== "object" || Array.isArray(r.status))) throw new Error("status: not an object");
    if (r.children !== undefined && r.children !== null) {
      if (!Array.isArray(r.children) || r.children.some((c: unknown) => !c || typeof c !== "object" || Array.isArray(c))) {
        throw new Error("children: not a list of objects");
      }
    }
    if (r.resyncAfterSeconds !== undefined && typeof r.resyncAfterSeconds !== "number") throw new Error("resyncAfterSeconds: not a number");
    if (r.finalized !== undefined && typeof r.finalized !== "boolean") throw new Error("finalized: not a boolean");
    return answer;
  }
}

function hookConfig(h: Obj): HookConfig {
  const url: string | undefined = h.webhook?.url;
  const path = url ? new URL(url).pathname : (h.webhook?.path as string | undefined);
  if (!path) throw new Error("emulator: webhook needs a url or a path");
  const version = h.version === "v2" ? "v2" : "v1";
  const mode = h.webhook?.responseUnMarshallMode;
  return { path, version, strict: mode ? mode === "strict" : version === "v2", timeoutMs: parseDuration(h.webhook?.timeout) ?? 10_000 };
}

/** Go duration (`10s`, `1m30s`, `500ms`) → milliseconds; undefined when absent or not positive. */
function parseDuration(value: unknown): number | undefined {
  if (typeof value !== "string") return undefined;
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  for (const m of value.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) total += Number(m[1]) * units[m[2]!]!;
  return total > 0 ? total : undefined;
}

/** `namespace/name` of a parent (empty namespace for cluster-scoped ones). */
export function parentKey(p: Obj): string {
  return `${p.metadata.namespace ?? ""}/${p.metadata.name}`;
}

/**
 * The key of an object in a request's children or related map: `namespace/name` in v2 (`/name`
 * for a cluster-scoped object); the name in v1 for a namespaced parent, which sees nothing outside
 * its namespace (undefined: left out); for a cluster-scoped parent in v1, `namespace/name` for a
 * namespaced object and the name for a cluster-scoped one.
 */
function requestKey(obj: Obj, version: "v1" | "v2", parentNamespace: string | undefined): string | undefined {
  const ns: string | undefined = obj.metadata.namespace;
  const name: string = obj.metadata.name;
  if (version === "v2") return `${ns ?? ""}/${name}`;
  if (parentNamespace !== undefined) return ns === parentNamespace ? name : undefined;
  return ns ? `${ns}/${name}` : name;
}

function describe(o: Obj): string {
  return `${o.kind} ${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;
}

/** The controller ownerReference of an object, if any. */
export function controllerRef(obj: Obj): Obj | undefined {
  return (obj.metadata?.ownerReferences ?? []).find((r: Obj) => r.controller === true);
}

function makeControllerRef(parent: Obj): Obj {
  return {
    apiVersion: parent.apiVersion,
    kind: parent.kind,
    name: parent.metadata.name,
    uid: parent.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** Formats a simulated time for messages. */
export function at(ms: number): string {
  return formatTime(new Date(ms));
}
