/**
 * Runs our real CIBuild hooks (sync, finalize, customize — over HTTP) in the emulator, with build
 * Pods that report commit SHA and digest, and checks the CIBuild invariants on every change:
 * the Deployment is never deleted while its CIBuild lives, never points at an image no build
 * pushed, and no build runs again for inputs whose build already finished (a build cancelled
 * before finishing, e.g. by `suspend`, may run again).
 *
 * @packageDocumentation
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { findController } from "../../src/controllers/registry.ts";
import { controllerRef, type CompositeControllerEmulator, type ControllerFaults, type SyncRecord } from "../../src/emulator/controller.ts";
import { Emulator } from "../../src/emulator/emulator.ts";
import { HookServer } from "./hook-server.ts";
import { refOf, type Obj } from "../../src/emulator/store.ts";
import type { JobPlan } from "../../src/emulator/world.ts";

/** The build-hash label the CIBuild hook puts on build Jobs. */
export const BUILD_HASH_LABEL = "cicd.cicd.com/build-hash";

/** Seed sample names (`test/fixtures/seed-samples/cibuild/cibuild-<name>.yaml`, copies of the seed operator's samples). */
export const SEED_SAMPLES = ["go", "nodejs", "java", "ace"] as const;

/** A CIBuild seed sample, unchanged, in namespace `default`. */
export function loadCIBuildSample(name: string): Obj {
  const obj = parse(readFileSync(new URL(`../fixtures/seed-samples/cibuild/cibuild-${name}.yaml`, import.meta.url), "utf8")) as Obj;
  obj.metadata.namespace ??= "default";
  return obj;
}

/** Options of {@link startCIBuildRun}. */
export interface CIBuildRunOptions {
  start?: Date;
  jobPlan?: (job: Obj) => JobPlan;
  faults?: ControllerFaults;
  /** Run every hook as `version: v2` (`namespace/name` keys, strict response decoding). */
  hookVersion?: "v1" | "v2";
  deploymentReadySeconds?: number;
}

/** A running CIBuild scenario. */
export class CIBuildRun {
  readonly violations: string[] = [];
  readonly passes: SyncRecord[] = [];
  /** Build Jobs created, in order: `{name, hash, parentUid, at}`. */
  readonly builds: Array<{ name: string; hash: string; parentUid: string; at: number }> = [];
  /** Images the Deployments were set to, in order. */
  readonly deployedImages: string[] = [];
  /** `parentUid/buildHash` of builds that finished (succeeded or failed). */
  readonly #finished = new Set<string>();

  constructor(
    readonly emu: Emulator,
    readonly server: HookServer,
    readonly controller: CompositeControllerEmulator,
  ) {
    emu.syncListeners.push((r) => {
      this.passes.push(r);
      const resync = r.response?.resyncAfterSeconds;
      if (resync !== undefined && !(typeof resync === "number" && resync > 0)) this.violations.push(`${new Date(r.at).toISOString()}: resyncAfterSeconds ${resync}`);
    });
    emu.store.watch((e) => {
      const o = e.object;
      const owner = controllerRef(o);
      if (owner?.kind !== "CIBuild") return;
      const when = new Date(emu.now()).toISOString();
      const hashKey = `${owner.uid}/${o.metadata.labels?.[BUILD_HASH_LABEL] ?? ""}`;
      if (o.kind === "Job" && e.type === "ADDED") {
        // A build that was cancelled before it finished may run again; a finished one never.
        if (this.#finished.has(hashKey)) this.violations.push(`${when}: build inputs ${hashKey} built again after finishing (${o.metadata.name})`);
        this.builds.push({ name: o.metadata.name, hash: o.metadata.labels?.[BUILD_HASH_LABEL] ?? "", parentUid: owner.uid, at: emu.now() });
      }
      if (o.kind === "Job" && e.type === "MODIFIED" && (o.status?.conditions ?? []).some((c: Obj) => (c.type === "Complete" || c.type === "Failed") && c.status === "True")) {
        this.#finished.add(hashKey);
      }
      if (o.kind === "Deployment") {
        const parent = emu.store.list("cicd.cicd.com/v1alpha1", "CIBuild", o.metadata.namespace).find((p) => p.metadata.uid === owner.uid);
        if (e.type === "DELETED") {
          if (parent && !parent.metadata.deletionTimestamp) this.violations.push(`${when}: Deployment ${o.metadata.name} deleted while its CIBuild lives`);
          return;
        }
        const image: string | undefined = o.spec?.template?.spec?.containers?.[0]?.image;
        const before: string | undefined = e.old?.spec?.template?.spec?.containers?.[0]?.image;
        if (image !== before && image !== undefined) {
          this.deployedImages.push(image);
          if (!emu.world.pushedImages.has(image)) this.violations.push(`${when}: Deployment ${o.metadata.name} points at ${image}, which no build pushed`);
        }
      }
    });
  }

  /** Applies (creates or updates) a CIBuild. */
  apply(obj: Obj): Obj {
    return this.emu.apply(obj);
  }

  /** The live object of a CIBuild (or any object). */
  live(obj: Obj): Obj | undefined {
    return this.emu.get(obj);
  }

  /** Children of a CIBuild by kind. */
  children(parent: Obj, kind: "Job" | "Deployment" | "Service"): Obj[] {
    const apiVersion = kind === "Job" ? "batch/v1" : kind === "Deployment" ? "apps/v1" : "v1";
    const uid = this.emu.store.peek(refOf(parent))?.metadata.uid;
    return this.emu.store.list(apiVersion, kind, parent.metadata.namespace ?? "default").filter((o) => controllerRef(o)?.uid === uid);
  }

  /** Most sync passes that ran at one simulated instant (a fixed point needs few). */
  maxPassesPerInstant(): number {
    const counts = new Map<number, number>();
    for (const p of this.passes) counts.set(p.at, (counts.get(p.at) ?? 0) + 1);
    return Math.max(0, ...counts.values());
  }

  async close(): Promise<void> {
    await this.server.stop();
  }
}

/** Starts the hook server and the emulator with the CIBuild CompositeController. */
export async function startCIBuildRun(options: CIBuildRunOptions = {}): Promise<CIBuildRun> {
  const def = findController("cibuild");
  if (!def) throw new Error("no cibuild controller registered");
  const emu = new Emulator({
    start: options.start ?? new Date("2026-06-01T09:00:00Z"),
    world: { ...(options.jobPlan ? { jobPlan: options.jobPlan } : {}), deploymentReadySeconds: options.deploymentReadySeconds ?? 15 },
  });
  const server = HookServer.forControllers(() => emu.scheduler.date());
  await server.start();
  const cc = def.compositeController("http://metahooks.invalid") as Obj;
  if (options.hookVersion) for (const hook of Object.values(cc.spec.hooks as Record<string, Obj>)) hook.version = options.hookVersion;
  const controller = emu.addController(cc, server.baseUrl, options.faults ? { faults: options.faults } : {});
  return new CIBuildRun(emu, server, controller);
}

/** A build Job plan: starts after 2 s, runs `seconds`, succeeds. */
export const buildsTake = (seconds: number) => (): JobPlan => ({ startAfterSeconds: 2, runSeconds: seconds });

/** A failing git clone (git-sync logs JSON lines; the last error line is the termination message). */
export const failingClone = (): JobPlan => ({
  startAfterSeconds: 2,
  runSeconds: 5,
  outcome: "Failed",
  failure: { container: "git-sync", exitCode: 1, message: '{"logger":"","ts":"2026-06-01 09:00:05","caller":{},"msg":"too many failures, aborting","error":"Repository not found."}' },
});
