/**
 * The rest of the cluster, reduced to what our hooks observe: the Job controller (a Pod per Job,
 * start, then Complete or Failed after a chosen time, with container termination messages) and
 * the Deployment controller (becomes available after a delay).
 *
 * Build Pods follow the build Job's containers: init containers `git-sync` and `prepare`, then
 * kaniko's init container `build` and main container `digest`, or BuildKit's main container
 * `build`; `prepare` writes the commit SHA and the digest reporter (`digest`, or BuildKit's
 * `build`) writes `sha256:<64 hex>` as termination messages.
 *
 * @packageDocumentation
 */
import { sha256Hex } from "../kube/names.ts";
import { formatTime } from "../kube/time.ts";
import type { Scheduler } from "./scheduler.ts";
import { ApiError, clone, groupOf, refOf, type Obj, type Store, type WatchEvent } from "./store.ts";

/** Which container of a build Pod fails, with its termination message. */
export interface ContainerFailure {
  container: string;
  exitCode?: number;
  message: string;
}

/** How one Job runs. Times in seconds of simulated time. */
export interface JobPlan {
  /** Delay from creation to the Pod running; 0 = at once, in the creating API round. @default 1 */
  startAfterSeconds?: number;
  /** Run time once started. @default 30 */
  runSeconds?: number;
  /** @default "Complete" */
  outcome?: "Complete" | "Failed";
  /** For a failed Job: the failing container (default: the first main container) and its message. */
  failure?: ContainerFailure;
}

/** Something the world did, for timelines. */
export interface WorldEvent {
  at: number;
  what: "job-started" | "job-succeeded" | "job-failed" | "deployment-progressing" | "deployment-available";
  target: string;
  detail?: string;
}

/** Options of {@link World}. */
export interface WorldOptions {
  store: Store;
  scheduler: Scheduler;
  /** How each new Job runs. @default start after 1 s, run 30 s, Complete */
  jobPlan?: (job: Obj) => JobPlan;
  /** Seconds from a Deployment spec change to Available. @default 15 */
  deploymentReadySeconds?: number;
  /** The commit a clone resolves to. @default a hash of the `--repo=` and `--ref=` arguments */
  commitFor?: (job: Obj) => string;
  /** Success termination message of other containers (e.g. a poll probe's `ls-remote`). */
  messageFor?: (job: Obj, container: string) => string | undefined;
  onEvent?: (e: WorldEvent) => void;
  /**
   * Whether the Job controller's Pods are modelled (created, given container statuses, deleted
   * with their Job). Only hooks that read Pods need them (CIBuild reads build Pods as related
   * objects); a CronJob's hooks never see a Pod, and leaving them out leaves every Job, every
   * hook call and every write to the CronJob's children unchanged. @default true
   */
  pods?: boolean;
}

/** The simulated Job and Deployment controllers. */
export class World {
  readonly events: WorldEvent[] = [];
  /** Image references (`repo@sha256:…` digests and `repo:tag` destinations) pushed by successful builds. */
  readonly pushedImages = new Set<string>();
  /** Digests (`sha256:…`) pushed by successful builds. */
  readonly pushedDigests = new Set<string>();
  readonly #store: Store;
  readonly #scheduler: Scheduler;
  readonly #opts: WorldOptions;
  /** Paused: no Job or Deployment progresses (and nothing is scheduled). */
  frozen = false;

  constructor(options: WorldOptions) {
    this.#store = options.store;
    this.#scheduler = options.scheduler;
    this.#opts = options;
    this.#store.watch((e) => this.#onEvent(e));
  }

  #emit(what: WorldEvent["what"], target: string, detail?: string): void {
    const e: WorldEvent = { at: this.#scheduler.now(), what, target, ...(detail ? { detail } : {}) };
    this.events.push(e);
    this.#opts.onEvent?.(e);
  }

  #onEvent(e: WatchEvent): void {
    const o = e.object;
    if (e.type === "DELETED") return;
    if (groupOf(o.apiVersion) === "batch" && o.kind === "Job" && e.type === "ADDED") this.#scheduleJob(o);
    if (groupOf(o.apiVersion) === "apps" && o.kind === "Deployment") {
      const gen = o.metadata.generation;
      if (e.type === "ADDED" || gen !== e.old?.metadata.generation) this.#scheduleRollout(o);
    }
  }

  #live(o: Obj): Obj | undefined {
    const live = this.#store.peek(refOf(o));
    return live && live.metadata.uid === o.metadata.uid ? live : undefined;
  }

  #scheduleJob(job: Obj): void {
    if (job.spec?.suspend) return;
    const plan = { startAfterSeconds: 1, runSeconds: 30, outcome: "Complete" as const, ...(this.#opts.jobPlan?.(job) ?? {}) };
    const name = `Job ${job.metadata.namespace}/${job.metadata.name}`;
    const start = () => {
      const live = this.#live(job);
      if (!live || live.metadata.deletionTimestamp || live.status?.conditions?.length) return;
      const now = formatTime(this.#scheduler.date());
      if (this.#opts.pods !== false) this.#createPod(live, now);
      this.#store.writeStatus(refOf(live), { active: 1, ready: 1, startTime: now, uncountedTerminatedPods: {} });
      this.#emit("job-started", name);
      this.#scheduler.after(plan.runSeconds * 1000, `finish ${name}`, () => this.#finishJob(job, plan.outcome, plan.failure));
    };
    // 0 s: the Job controller reacts within the same API round (its writes coalesce with the
    // creating sync's own re-sync); otherwise a separate timer.
    if (plan.startAfterSeconds <= 0) start();
    else this.#scheduler.after(plan.startAfterSeconds * 1000, `start ${name}`, start);
  }

  #podName(job: Obj): string {
    return `${job.metadata.name}-${sha256Hex(job.metadata.uid).slice(0, 5)}`;
  }

  #createPod(job: Obj, now: string): void {
    const tpl = job.spec?.template ?? {};
    const spec = clone(tpl.spec ?? {});
    const pod: Obj = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: this.#podName(job),
        namespace: job.metadata.namespace,
        labels: clone(tpl.metadata?.labels ?? {}),
        ...(tpl.metadata?.annotations ? { annotations: clone(tpl.metadata.annotations) } : {}),
        ownerReferences: [{ apiVersion: "batch/v1", kind: "Job", name: job.metadata.name, uid: job.metadata.uid, controller: true, blockOwnerDeletion: true }],
      },
      spec,
    };
    this.#store.create(pod);
    const init = (spec.initContainers ?? []).map((c: Obj) => ({
      name: c.name,
      image: c.image,
      ready: true,
      restartCount: 0,
      state: { terminated: { exitCode: 0, reason: "Completed", startedAt: now, finishedAt: now, ...(this.#messageOf(job, c.name) ? { message: this.#messageOf(job, c.name) } : {}) } },
    }));
    const main = (spec.containers ?? []).map((c: Obj) => ({ name: c.name, image: c.image, ready: true, restartCount: 0, started: true, state: { running: { startedAt: now } } }));
    this.#store.writeStatus(refOf(pod), { phase: "Running", startTime: now, ...(init.length ? { initContainerStatuses: init } : {}), containerStatuses: main });
  }

  /**
   * Success termination message of a build container (empty for other containers): the digest
   * comes from `digest` after kaniko, or from BuildKit's main `build` container.
   */
  #messageOf(job: Obj, container: string): string | undefined {
    if (container === "prepare") return this.commitOf(job);
    const mains: string[] = (job.spec?.template?.spec?.containers ?? []).map((c: Obj) => c.name);
    if (container === "digest" || (container === "build" && mains.includes("build"))) return digestOf(job);
    return this.#opts.messageFor?.(job, container);
  }

  /** The commit SHA the clone of this Job resolves to. */
  commitOf(job: Obj): string {
    if (this.#opts.commitFor) return this.#opts.commitFor(job);
    const args: string[] = (job.spec?.template?.spec?.initContainers ?? []).find((c: Obj) => c.name === "git-sync")?.args ?? [];
    const pick = (flag: string) => args.find((a) => a.startsWith(flag))?.slice(flag.length) ?? "";
    return sha256Hex(`${pick("--repo=")}#${pick("--ref=")}`).slice(0, 40);
  }

  #finishJob(job: Obj, outcome: "Complete" | "Failed", failure?: ContainerFailure): void {
    const live = this.#live(job);
    if (!live || live.metadata.deletionTimestamp || live.status?.conditions?.length) return;
    const now = formatTime(this.#scheduler.date());
    const name = `Job ${job.metadata.namespace}/${job.metadata.name}`;
    if (this.#opts.pods !== false) this.#finishPod(job, live, outcome, failure, now);
    const status = finishedJobStatus(outcome, live.status?.startTime ?? now, now);
    if (outcome === "Complete") this.#recordPush(live);
    this.#store.writeStatus(refOf(live), status);
    this.#emit(outcome === "Complete" ? "job-succeeded" : "job-failed", name, failure?.message);
  }

  /** The Pod of a finished Job: every container terminated (or still waiting behind a failed init container). */
  #finishPod(job: Obj, live: Obj, outcome: "Complete" | "Failed", failure: ContainerFailure | undefined, now: string): void {
    const podRef = { apiVersion: "v1", kind: "Pod", namespace: job.metadata.namespace, name: this.#podName(job) };
    const spec = live.spec?.template?.spec ?? {};
    const mainNames: string[] = (spec.containers ?? []).map((c: Obj) => c.name);
    const failing = outcome === "Failed" ? (failure?.container ?? mainNames[0]) : undefined;
    const initNames: string[] = (spec.initContainers ?? []).map((c: Obj) => c.name);
    const failingInitIdx = failing ? initNames.indexOf(failing) : -1;
    try {
      this.#store.patch(
        podRef,
        (p) => {
          const term = (c: string, exitCode: number, message: string | undefined) => ({
            terminated: { exitCode, reason: exitCode === 0 ? "Completed" : "Error", startedAt: p.status?.startTime ?? now, finishedAt: now, ...(message ? { message } : {}) },
          });
          const inits = initNames.map((c, i) => {
            const st =
              failingInitIdx < 0 || i < failingInitIdx
                ? term(c, 0, this.#messageOf(job, c))
                : i === failingInitIdx
                  ? term(c, failure?.exitCode ?? 1, failure?.message)
                  : { waiting: { reason: "PodInitializing" } };
            return { name: c, ready: false, restartCount: 0, state: st };
          });
          const mains = mainNames.map((c) => ({
            name: c,
            ready: false,
            restartCount: 0,
            state: failingInitIdx >= 0 ? { waiting: { reason: "PodInitializing" } } : c === failing ? term(c, failure?.exitCode ?? 1, failure?.message) : term(c, 0, this.#messageOf(job, c)),
          }));
          p.status = { phase: outcome === "Complete" ? "Succeeded" : "Failed", startTime: p.status?.startTime ?? now, ...(inits.length ? { initContainerStatuses: inits } : {}), containerStatuses: mains };
        },
        { subresource: "status" },
      );
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
  }

  /** A build Job that succeeded pushed its digest and every `--destination`. */
  #recordPush(job: Obj): void {
    const spec = job.spec?.template?.spec ?? {};
    const build = [...(spec.initContainers ?? []), ...(spec.containers ?? [])].find((c: Obj) => c.name === "build");
    if (!build) return;
    const digest = digestOf(job);
    this.pushedDigests.add(digest);
    // Any Job may have a container named `build` (a CronJob's, with arguments of any JSON type):
    // only string arguments can name a destination.
    for (const a of [...(build.args ?? []), ...(build.command ?? [])] as unknown[]) {
      if (typeof a !== "string" || !a.startsWith("--destination=")) continue;
      const dest = a.slice("--destination=".length);
      this.pushedImages.add(dest);
      this.pushedImages.add(`${repositoryOf(dest)}@${digest}`);
    }
  }

  #scheduleRollout(created: Obj): void {
    // The Deployment controller reacts asynchronously (after the current sync finishes).
    this.#scheduler.after(0, "deployment controller", () => {
      const live = this.#live(created);
      if (live && live.metadata.generation === created.metadata.generation) this.#rollout(live);
    });
  }

  #rollout(dep: Obj): void {
    const name = `Deployment ${dep.metadata.namespace}/${dep.metadata.name}`;
    const gen = dep.metadata.generation;
    const replicas = dep.spec?.replicas ?? 1;
    const image = dep.spec?.template?.spec?.containers?.[0]?.image;
    this.#store.patch(
      refOf(dep),
      (d) =>
        (d.status = {
          observedGeneration: gen,
          replicas,
          updatedReplicas: 0,
          readyReplicas: d.status?.readyReplicas ?? 0,
          availableReplicas: d.status?.availableReplicas ?? 0,
          conditions: [{ type: "Progressing", status: "True", reason: "ReplicaSetUpdated", message: `rolling out ${image}` }],
        }),
      { subresource: "status" },
    );
    this.#emit("deployment-progressing", name, image);
    this.#scheduler.after((this.#opts.deploymentReadySeconds ?? 15) * 1000, `rollout ${name}`, () => {
      const live = this.#live(dep);
      if (!live || live.metadata.generation !== gen) return;
      this.#store.patch(
        refOf(live),
        (d) =>
          (d.status = {
            observedGeneration: gen,
            replicas,
            updatedReplicas: replicas,
            readyReplicas: replicas,
            availableReplicas: replicas,
            conditions: [
              { type: "Available", status: "True", reason: "MinimumReplicasAvailable", message: "Deployment has minimum availability." },
              { type: "Progressing", status: "True", reason: "NewReplicaSetAvailable", message: "ReplicaSet has successfully progressed." },
            ],
          }),
        { subresource: "status" },
      );
      this.#emit("deployment-available", name, image);
    });
  }
}

/** The digest a build Job pushes (deterministic per Job uid, so a re-run gives a new digest). */
export function digestOf(job: Obj): string {
  return `sha256:${sha256Hex(`${job.metadata.name}/${job.metadata.uid}`)}`;
}

/** `registry:5000/app:tag` → `registry:5000/app`; `repo@sha256:…` → `repo`. */
export function repositoryOf(image: string): string {
  const at = image.indexOf("@");
  if (at >= 0) return image.slice(0, at);
  const slash = image.lastIndexOf("/");
  const colon = image.lastIndexOf(":");
  return colon > slash ? image.slice(0, colon) : image;
}

/**
 * The status the Job controller writes when a one-Pod Job finishes (batch/v1, Kubernetes ≥ 1.31:
 * the `SuccessCriteriaMet`/`FailureTarget` condition first, then `Complete`/`Failed`). Shared by the
 * emulator and the tests that play the Job controller on a real apiserver, so both finish Jobs alike.
 *
 * @param outcome - `Complete` (one Pod succeeded) or `Failed` (backoff limit reached)
 * @param startTime - the Job's `status.startTime` (RFC 3339)
 * @param now - completion time (RFC 3339), also every condition's probe and transition time
 */
export function finishedJobStatus(outcome: "Complete" | "Failed", startTime: string, now: string): Record<string, unknown> {
  const [interim, reason, message] =
    outcome === "Complete"
      ? ["SuccessCriteriaMet", "CompletionsReached", "Reached expected number of succeeded pods"]
      : ["FailureTarget", "BackoffLimitExceeded", "Job has reached the specified backoff limit"];
  // The Job controller first writes the interim condition, then the terminal one, both True.
  const conditions = [interim, outcome].map((type) => ({ type, status: "True", reason, message, lastProbeTime: now, lastTransitionTime: now }));
  const counts = outcome === "Complete" ? { completionTime: now, succeeded: 1 } : { failed: 1 };
  return { startTime, ...counts, ready: 0, uncountedTerminatedPods: {}, conditions };
}
