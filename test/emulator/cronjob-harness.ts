/**
 * Runs our real CronJob hooks (over HTTP) in the emulator and checks the CronJob invariants after
 * every sync pass: no slot runs twice, Forbid never has two active Jobs, history limits hold,
 * `resyncAfterSeconds` is never ≤ 0.
 *
 * @packageDocumentation
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { findController } from "../../src/controllers/registry.ts";
import type { CompositeControllerEmulator, ControllerFaults, SyncRecord } from "../../src/emulator/controller.ts";
import { controllerRef } from "../../src/emulator/controller.ts";
import { Emulator } from "../../src/emulator/emulator.ts";
import { HookServer } from "./hook-server.ts";
import { clone, refOf, type Obj } from "../../src/emulator/store.ts";
import type { JobPlan } from "../../src/emulator/world.ts";

/** The kubebuilder tutorial's sample CronJob (the seed sample, unchanged). */
export function sampleCronJob(): Obj {
  const obj = parse(readFileSync(new URL("../../examples/cronjob/cronjob-sample.yaml", import.meta.url), "utf8")) as Obj;
  obj.metadata.namespace ??= "default";
  return obj;
}

export const SCHEDULED_AT = "batch.tutorial.kubebuilder.io/scheduled-at";

/** One Job creation seen in the store. */
export interface JobCreation {
  name: string;
  scheduledAt: number;
  createdAt: number;
}

/** Options of {@link startCronJobRun}. */
export interface CronJobRunOptions {
  start: Date;
  /** Spec fields merged over the sample's spec. */
  spec?: Obj;
  name?: string;
  jobPlan?: (job: Obj) => JobPlan;
  faults?: ControllerFaults;
  /** Run every hook as `version: v2` (`namespace/name` keys, strict response decoding). */
  hookVersion?: "v1" | "v2";
}

/** A running CronJob scenario. */
export class CronJobRun {
  readonly created: JobCreation[] = [];
  readonly violations: string[] = [];
  readonly passes: SyncRecord[] = [];
  #cronJob: Obj;

  constructor(
    readonly emu: Emulator,
    readonly server: HookServer,
    readonly controller: CompositeControllerEmulator,
    cronJob: Obj,
    readonly faulty: boolean,
  ) {
    this.#cronJob = cronJob;
    emu.store.watch((e) => {
      const o = e.object;
      if (e.type !== "ADDED" || o.kind !== "Job" || controllerRef(o)?.uid !== this.uid) return;
      const at = o.metadata.annotations?.[SCHEDULED_AT];
      const scheduledAt = at ? Date.parse(at) : Number.NaN;
      if (Number.isNaN(scheduledAt)) this.violations.push(`${o.metadata.name}: no ${SCHEDULED_AT} annotation`);
      if (this.created.some((c) => c.name === o.metadata.name || c.scheduledAt === scheduledAt)) {
        this.violations.push(`slot ${at} ran twice (${o.metadata.name}) at ${new Date(emu.now()).toISOString()}`);
      }
      this.created.push({ name: o.metadata.name, scheduledAt, createdAt: emu.now() });
    });
    emu.syncListeners.push((r) => this.#check(r));
  }

  get uid(): string {
    return this.#cronJob.metadata.uid;
  }

  /** The live CronJob. */
  get cronJob(): Obj {
    return this.emu.get(this.#cronJob)!;
  }

  /** Owned Jobs in the store. */
  jobs(): Obj[] {
    return this.emu.store.list("batch/v1", "Job", this.#cronJob.metadata.namespace).filter((j) => controllerRef(j)?.uid === this.uid);
  }

  /** Owned Jobs without a true Complete/Failed condition and not being deleted. */
  activeJobs(): Obj[] {
    return this.jobs().filter((j) => !finished(j) && !j.metadata.deletionTimestamp);
  }

  /** Changes the CronJob's spec (`kubectl apply`). */
  updateSpec(patch: Obj): void {
    const live = this.cronJob;
    this.emu.apply({ ...live, spec: { ...live.spec, ...patch } });
  }

  #check(r: SyncRecord): void {
    this.passes.push(r);
    const when = new Date(r.at).toISOString();
    const resync = r.response?.resyncAfterSeconds;
    if (resync !== undefined && !(typeof resync === "number" && resync > 0)) this.violations.push(`${when}: resyncAfterSeconds ${resync}`);
    const live = this.emu.store.peek(refOf(this.#cronJob));
    if (!live) return;
    const spec = live.spec;
    // Forbid: never two active Jobs, whatever the faults. Replace: two may exist for a moment when
    // the deletion of the replaced Job failed; after a pass that saw the current state and applied
    // all its writes there must be at most one.
    if (spec.concurrencyPolicy === "Forbid" || (spec.concurrencyPolicy === "Replace" && r.ok && !r.stale)) {
      const active = this.activeJobs();
      if (active.length > 1) this.violations.push(`${when}: ${spec.concurrencyPolicy} with ${active.length} active Jobs: ${active.map((j) => j.metadata.name).join(", ")}`);
    }
    // History limits hold after every pass that saw the current state and applied all its writes.
    if (r.ok && !r.stale && r.hook === "sync" && r.response) {
      const jobs = this.jobs().filter((j) => !j.metadata.deletionTimestamp);
      const ok = jobs.filter((j) => finished(j) === "Complete").length;
      const failed = jobs.filter((j) => finished(j) === "Failed").length;
      const okLimit = spec.successfulJobsHistoryLimit ?? 3;
      const failedLimit = spec.failedJobsHistoryLimit ?? 1;
      if (ok > okLimit) this.violations.push(`${when}: ${ok} succeeded Jobs kept, limit ${okLimit}`);
      if (failed > failedLimit) this.violations.push(`${when}: ${failed} failed Jobs kept, limit ${failedLimit}`);
    }
  }

  /** Sync passes between simulated times [from, to). */
  passesBetween(from: number, to: number): SyncRecord[] {
    return this.passes.filter((p) => p.at >= from && p.at < to);
  }

  async close(): Promise<void> {
    await this.server.stop();
  }
}

/** "Complete" / "Failed" when that condition is True, else undefined. */
export function finished(job: Obj): "Complete" | "Failed" | undefined {
  for (const c of job.status?.conditions ?? []) {
    if ((c.type === "Complete" || c.type === "Failed") && c.status === "True") return c.type;
  }
  return undefined;
}

/**
 * Starts the hook server (all registered controllers, simulated clock), the emulator with the
 * CronJob CompositeController, and applies one CronJob created at `start`.
 */
export async function startCronJobRun(options: CronJobRunOptions): Promise<CronJobRun> {
  const def = findController("cronjob");
  if (!def) throw new Error("no cronjob controller registered");
  const emu = new Emulator({ start: options.start, world: options.jobPlan ? { jobPlan: options.jobPlan } : {} });
  const server = HookServer.forControllers(() => emu.scheduler.date());
  await server.start();
  const cc = def.compositeController("http://metahooks.invalid") as Obj;
  if (options.hookVersion) for (const hook of Object.values(cc.spec.hooks as Record<string, Obj>)) hook.version = options.hookVersion;
  const controller = emu.addController(cc, server.baseUrl, options.faults ? { faults: options.faults } : {});
  const sample = sampleCronJob();
  const cronJob = clone(sample);
  cronJob.metadata = { name: options.name ?? "hello", namespace: "default", labels: sample.metadata.labels };
  cronJob.spec = { ...sample.spec, ...(options.spec ?? {}) };
  for (const [k, v] of Object.entries(cronJob.spec)) if (v === undefined) delete cronJob.spec[k];
  const created = emu.apply(cronJob);
  return new CronJobRun(emu, server, controller, created, options.faults !== undefined);
}

/** Five minutes in milliseconds. */
export const FIVE_MINUTES = 5 * 60 * 1000;

/** A Job plan drawing random run times (5 s to 12 min) and a 15 % failure rate from `rng`. */
export function randomJobs(rng: () => number): (job: Obj) => JobPlan {
  return () => ({ startAfterSeconds: 0, runSeconds: 5 + Math.floor(rng() * 715), outcome: rng() < 0.15 ? "Failed" : "Complete" });
}

/** Result of {@link runWeek}. */
export interface WeekResult {
  run: CronJobRun;
  start: number;
  end: number;
  /** Most sync passes seen in any five-minute window. */
  maxPassesPerSlot: number;
  /** Sync passes whose `resyncAfterSeconds` would wake the loop after the next slot (+1 s). */
  lateWakeups: string[];
}

/**
 * A week of `*\/5 * * * *` under one concurrency policy with random Job lengths; records the
 * invariants (see {@link CronJobRun}), passes per slot, and whether every successful pass asked to
 * be woken by the next slot.
 */
export async function runWeek(policy: "Allow" | "Forbid" | "Replace", seed: number, rng: () => number, days = 7): Promise<WeekResult> {
  const start = Date.parse("2026-06-01T00:00:00Z");
  const run = await startCronJobRun({
    start: new Date(start),
    spec: { schedule: "*/5 * * * *", concurrencyPolicy: policy, ...(policy === "Forbid" ? { startingDeadlineSeconds: undefined } : {}) },
    jobPlan: randomJobs(rng),
  });
  const lateWakeups: string[] = [];
  run.emu.syncListeners.push((r) => {
    const resync = r.response?.resyncAfterSeconds;
    if (!r.ok || typeof resync !== "number") return;
    const nextSlot = (Math.floor(r.at / FIVE_MINUTES) + 1) * FIVE_MINUTES;
    if (r.at + resync * 1000 > nextSlot + 1000) lateWakeups.push(`${new Date(r.at).toISOString()} +${resync}s (seed ${seed})`);
  });
  const end = start + days * 86_400_000;
  await run.emu.runUntil(end);
  let maxPassesPerSlot = 0;
  for (let t = start; t < end; t += FIVE_MINUTES) maxPassesPerSlot = Math.max(maxPassesPerSlot, run.passesBetween(t, t + FIVE_MINUTES).length);
  return { run, start, end, maxPassesPerSlot, lateWakeups };
}

/**
 * Simulated days for a long scenario: `METAHOOKS_EMULATOR_DAYS` when set (e.g. 7 to run every
 * policy for a full week), else the file's default (chosen to keep `npm test` under a minute).
 */
export function scenarioDays(fallback: number): number {
  const env = Number(process.env.METAHOOKS_EMULATOR_DAYS);
  return Number.isFinite(env) && env > 0 ? env : fallback;
}
