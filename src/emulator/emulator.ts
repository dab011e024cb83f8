/**
 * The in-process Metacontroller emulator: one simulated clock, one object store, any number of
 * CompositeControllers calling hooks over HTTP, and the simulated Job/Deployment controllers.
 *
 * Usage: build it, `apply` parents, then `runUntil(time)`; the clock jumps from timer to timer
 * and every queued sync runs before time moves on.
 *
 * @packageDocumentation
 */
import { CompositeControllerEmulator, type ControllerFaults, type HookEndpoint, type SyncRecord } from "./controller.ts";
import { Scheduler } from "./scheduler.ts";
import type { ResourceInfo } from "./selectors.ts";
import { ApiError, refOf, Store, type Obj } from "./store.ts";
import { World, type WorldOptions } from "./world.ts";

/** Options of {@link Emulator}. */
export interface EmulatorOptions {
  /** Simulated start time. */
  start: Date;
  /** World behaviour (Job plans, rollout delay); omit `store`/`scheduler`. */
  world?: Omit<WorldOptions, "store" | "scheduler">;
}

/** Raised when the loop keeps syncing without reaching a fixed point (a status or child write loop). */
export class NoFixedPointError extends Error {}

/** The emulated cluster plus Metacontroller. */
export class Emulator {
  readonly scheduler: Scheduler;
  readonly store: Store;
  readonly world: World;
  readonly controllers: CompositeControllerEmulator[] = [];
  /** Listeners for every sync pass of every controller. */
  readonly syncListeners: Array<(r: SyncRecord) => void> = [];
  #syncs = 0;

  constructor(options: EmulatorOptions) {
    this.scheduler = new Scheduler(options.start.getTime());
    this.store = new Store(() => this.scheduler.now());
    this.world = new World({ store: this.store, scheduler: this.scheduler, ...(options.world ?? {}) });
  }

  /** Simulated now, epoch milliseconds. */
  now(): number {
    return this.scheduler.now();
  }

  /** Total sync passes so far. */
  get syncs(): number {
    return this.#syncs;
  }

  /**
   * Adds a CompositeController and starts it (all its parents are queued).
   * @param compositeController - e.g. `def.compositeController("http://hooks")` (only URL paths are used)
   * @param hooks - the hook service: a base URL (real HTTP) or `{ transport }` (e.g. in process)
   */
  addController(compositeController: Obj, hooks: HookEndpoint, options: { faults?: ControllerFaults; resources?: Record<string, ResourceInfo>; keepRecords?: boolean } = {}): CompositeControllerEmulator {
    const c = new CompositeControllerEmulator({
      compositeController,
      store: this.store,
      scheduler: this.scheduler,
      hooks,
      ...options,
      onSync: (r) => {
        this.#syncs++;
        for (const l of this.syncListeners) l(r);
      },
    });
    this.controllers.push(c);
    c.start();
    return c;
  }

  /** `kubectl apply`: create, or replace the spec/labels/annotations of the live object. */
  apply(obj: Obj): Obj {
    const live = this.store.get(refOf(obj));
    if (!live) return this.store.create(obj);
    const next = { ...live, ...obj, metadata: { ...live.metadata, ...obj.metadata, resourceVersion: undefined } };
    return this.store.update(next);
  }

  /** `kubectl delete` (background propagation). Missing objects are ignored. */
  delete(obj: Obj): void {
    try {
      this.store.delete(refOf(obj));
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
  }

  /** The live object, or undefined. */
  get(obj: Obj): Obj | undefined {
    return this.store.get(refOf(obj));
  }

  /**
   * Runs every queued sync, then moves the clock to the next timer, until simulated `until`.
   * @param maxSyncs - budget of sync passes for this call; exceeding it throws NoFixedPointError
   * @returns the number of sync passes run
   */
  async runUntil(until: Date | number, maxSyncs = Number.POSITIVE_INFINITY): Promise<number> {
    const limit = typeof until === "number" ? until : until.getTime();
    let n = 0;
    for (;;) {
      const done = await this.processRound(n, maxSyncs, () => `more than ${maxSyncs} sync passes before ${new Date(limit).toISOString()}`);
      if (done > n) {
        n = done;
        continue;
      }
      if (!(await this.scheduler.advance(limit))) return n;
    }
  }

  /**
   * One pass over every controller's queue (at most one sync each).
   * @returns the pass count after this round (`n` when every queue was empty)
   * @throws NoFixedPointError with `overBudget()` once the count exceeds `maxSyncs`
   */
  private async processRound(n: number, maxSyncs: number, overBudget: () => string): Promise<number> {
    for (const c of this.controllers) {
      if (await c.processOne()) {
        if (++n > maxSyncs) throw new NoFixedPointError(overBudget());
      }
    }
    return n;
  }

  /** Runs for `seconds` of simulated time. */
  async runFor(seconds: number, maxSyncs?: number): Promise<number> {
    return this.runUntil(this.now() + seconds * 1000, maxSyncs);
  }

  /**
   * Runs queued syncs without moving the clock, until nothing is left to do (a fixed point).
   * @returns the number of passes until every queue was empty
   * @throws NoFixedPointError when `maxSyncs` passes did not empty the queues
   */
  async settle(maxSyncs = 20): Promise<number> {
    let n = 0;
    for (;;) {
      const done = await this.processRound(n, maxSyncs, () => `no fixed point after ${maxSyncs} sync passes`);
      if (done > n) {
        n = done;
        continue;
      }
      // Timers due right now (e.g. a controller reacting to a write) still belong to this instant.
      const next = this.scheduler.nextAt();
      if (next === undefined || next > this.now() || !(await this.scheduler.advance(this.now()))) return n;
    }
  }
}
