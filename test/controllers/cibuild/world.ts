import { createHash } from "node:crypto";
/**
 * Builders for CIBuild hook requests as Metacontroller sends them: the parent, observed children
 * with the fields the apiserver and controllers add (uid, creationTimestamp, controller-uid label,
 * status), and related build Pods with termination messages.
 */
import { runHook } from "../../../src/metacontroller/run-hook.ts";
import { ciBuildController } from "../../../src/controllers/cibuild/index.ts";
import { DEFAULT_CIBUILD_OPTIONS } from "../../../src/controllers/cibuild/options.ts";
import type { KubeObject, SyncResponse } from "../../../src/metacontroller/contract.ts";

export const PARENT_UID = "5d0f4c1e-9c59-4a0e-8d8e-2f9b1c7a0001";
export const NS = "default";
export const OPTIONS = DEFAULT_CIBUILD_OPTIONS;
export const SHA = "3f2a9c4e5b6d7e8f90a1b2c3d4e5f60718293a4b";
export const DIGEST = "sha256:7d865e959b2466918c9863afca942d0fb89d7c9ac0c99bafc3749504ded97730";
export const SHA2 = "b0b1b2b3b4b5b6b7b8b9c0c1c2c3c4c5c6c7c8c9";
export const DIGEST2 = "sha256:1111111111111111111111111111111111111111111111111111111111111111";

/** The seed samples' specs, exactly as in config/samples (victorpaulo/cicd-operator 3cb6c2c). */
export const SEED_SPECS: Record<string, Record<string, unknown>> = {
  "build-go": {
    SCMRepoURL: "git@github.com:victorpaulo/microservices.git",
    imageDestination: "kind-registry:5000/microservices-app1:1.0",
    SCMSecret: "git-creds",
    subContext: "app1",
  },
  "build-java": {
    SCMRepoURL: "git@github.com:victorpaulo/microservices.git",
    imageDestination: "kind-registry:5000/microservices-app3:1.0",
    SCMSecret: "git-creds",
    subContext: "app3",
  },
  "build-nodejs": {
    SCMRepoURL: "git@github.com:victorpaulo/nodejs-test.git",
    imageDestination: "kind-registry:5000/nodejs-test:1.0",
    SCMSecret: "git-creds",
  },
  "build-ace": {
    SCMRepoURL: "git@github.com:victorpaulo/ibm-ace-lab.git",
    imageDestination: "kind-registry:5000/ace-test:1.0",
    SCMBranch: "dev",
    SCMSecret: "git-creds",
  },
};

export interface ParentOptions {
  name?: string;
  generation?: number;
  status?: unknown;
  deletionTimestamp?: string;
}

export function parent(spec: unknown, opts: ParentOptions = {}): KubeObject {
  const metadata: Record<string, unknown> = {
    name: opts.name ?? "build-go",
    namespace: NS,
    uid: PARENT_UID,
    generation: opts.generation ?? 1,
    resourceVersion: "1001",
    creationTimestamp: "2026-03-02T10:00:00Z",
    finalizers: ["metacontroller.io/compositecontroller-cibuild-controller"],
  };
  if (opts.deletionTimestamp) metadata.deletionTimestamp = opts.deletionTimestamp;
  const p: Record<string, unknown> = { apiVersion: "cicd.cicd.com/v1alpha1", kind: "CIBuild", metadata, spec };
  if (opts.status !== undefined) p.status = opts.status;
  return p as KubeObject;
}

function byName(objects: KubeObject[]): Record<string, KubeObject> {
  return Object.fromEntries(objects.map((o) => [o.metadata.name, o]));
}

export interface RequestParts {
  parent: KubeObject;
  jobs?: KubeObject[];
  deployments?: KubeObject[];
  services?: KubeObject[];
  pods?: KubeObject[];
  finalizing?: boolean;
}

/** A v1 sync request (children keyed by name). */
export function request(parts: RequestParts): Record<string, unknown> {
  return {
    controller: {
      apiVersion: "metacontroller.k8s.io/v1alpha1",
      kind: "CompositeController",
      metadata: { name: "cibuild-controller" },
      spec: { parentResource: { apiVersion: "cicd.cicd.com/v1alpha1", resource: "cibuilds" }, generateSelector: true },
    },
    parent: parts.parent,
    children: {
      "Job.batch/v1": byName(parts.jobs ?? []),
      "Deployment.apps/v1": byName(parts.deployments ?? []),
      "Service.v1": byName(parts.services ?? []),
    },
    related: { "Pod.v1": byName(parts.pods ?? []) },
    finalizing: parts.finalizing ?? false,
  };
}

/** A stable uid for an observed object (so build Pods can name their Job as controller). */
export function uidOf(kind: string, name: string): string {
  const h = createHash("sha256").update(`${kind}/${name}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

let uidCounter = 0;
function serverMeta(obj: KubeObject, createdAt: string, generation = 1): Record<string, unknown> {
  uidCounter += 1;
  return {
    ...obj.metadata,
    namespace: NS,
    uid: uidOf(obj.kind, obj.metadata.name),
    resourceVersion: String(2000 + uidCounter),
    generation,
    creationTimestamp: createdAt,
    labels: { ...(obj.metadata.labels ?? {}), "controller-uid": PARENT_UID },
    ownerReferences: [
      { apiVersion: "cicd.cicd.com/v1alpha1", kind: "CIBuild", name: obj.metadata.labels?.["cicd.cicd.com/cibuild"] ?? "build-go", uid: PARENT_UID, controller: true, blockOwnerDeletion: true },
    ],
  };
}

/** A desired child as it comes back observed: server metadata added, `status` set. */
export function observe(desired: KubeObject, createdAt: string, status: unknown, generation = 1): KubeObject {
  return { ...structuredClone(desired), metadata: serverMeta(desired, createdAt, generation), status } as unknown as KubeObject;
}

export type JobPhase = "running" | "complete" | "failed-backoff" | "failed-deadline" | "failed-policy";

/** A Job status in a given state (conditions in the order the Job controller writes them). */
export function jobStatus(phase: JobPhase, start: string, end?: string): Record<string, unknown> {
  switch (phase) {
    case "running":
      return { startTime: start, active: 1, ready: 0, terminating: 0, uncountedTerminatedPods: {} };
    case "complete":
      return {
        startTime: start,
        completionTime: end,
        succeeded: 1,
        ready: 0,
        terminating: 0,
        uncountedTerminatedPods: {},
        conditions: [
          { type: "SuccessCriteriaMet", status: "True", reason: "CompletionsReached", message: "Reached expected number of succeeded pods", lastProbeTime: end, lastTransitionTime: end },
          { type: "Complete", status: "True", reason: "CompletionsReached", message: "Reached expected number of succeeded pods", lastProbeTime: end, lastTransitionTime: end },
        ],
      };
    case "failed-backoff":
    case "failed-deadline":
    case "failed-policy": {
      const reason = phase === "failed-backoff" ? "BackoffLimitExceeded" : phase === "failed-deadline" ? "DeadlineExceeded" : "PodFailurePolicy";
      const message =
        phase === "failed-backoff"
          ? "Job has reached the specified backoff limit"
          : phase === "failed-deadline"
            ? "Job was active longer than specified deadline"
            : "Container prepare for pod default/x failed with exit code 2 matching FailJob rule at index 0";
      return {
        startTime: start,
        failed: phase === "failed-backoff" ? 2 : 1,
        ready: 0,
        terminating: 0,
        uncountedTerminatedPods: {},
        conditions: [
          { type: "FailureTarget", status: "True", reason, message, lastProbeTime: end, lastTransitionTime: end },
          { type: "Failed", status: "True", reason, message, lastProbeTime: end, lastTransitionTime: end },
        ],
      };
    }
  }
}

export interface ContainerOutcome {
  exitCode?: number;
  message?: string;
  waiting?: { reason: string; message?: string };
  running?: boolean;
}

/** A build Pod of `job` with the given container outcomes (missing containers have no status yet). */
export function buildPod(job: KubeObject, suffix: string, createdAt: string, outcomes: Record<string, ContainerOutcome>): KubeObject {
  const labels = {
    ...((job.spec as any).template.metadata.labels as Record<string, string>),
    "batch.kubernetes.io/controller-uid": "11111111-2222-4333-8444-555555555555",
    "batch.kubernetes.io/job-name": job.metadata.name,
    "controller-uid": "11111111-2222-4333-8444-555555555555",
    "job-name": job.metadata.name,
  };
  const statusOf = (name: string) => {
    const o = outcomes[name];
    if (!o) return undefined;
    const state = o.waiting
      ? { waiting: o.waiting }
      : o.running
        ? { running: { startedAt: createdAt } }
        : {
            terminated: {
              exitCode: o.exitCode ?? 0,
              reason: (o.exitCode ?? 0) === 0 ? "Completed" : "Error",
              ...(o.message !== undefined ? { message: o.message } : {}),
              startedAt: createdAt,
              finishedAt: createdAt,
              containerID: `containerd://${name}`,
            },
          };
    return { name, image: "img", imageID: "", ready: false, restartCount: 0, started: false, state };
  };
  // Statuses go where the Job's Pod template puts each container (kaniko's `build` is an init
  // container followed by `digest`; BuildKit's `build` is the main container).
  const podSpec = (job.spec as any).template.spec;
  const namesOf = (list: Array<{ name: string }> | undefined) => (list ?? []).map((c) => c.name);
  const init = namesOf(podSpec.initContainers).map(statusOf).filter(Boolean);
  const mainNames = namesOf(podSpec.containers);
  const main = mainNames.map(statusOf).filter(Boolean);
  const failed = Object.values(outcomes).some((o) => (o.exitCode ?? 0) !== 0 && !o.waiting && !o.running);
  const done = (o: ContainerOutcome | undefined) => o !== undefined && !o.waiting && !o.running && (o.exitCode ?? 0) === 0;
  const succeeded = mainNames.every((n) => done(outcomes[n]));
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `${job.metadata.name}-${suffix}`,
      namespace: NS,
      uid: `pod-${suffix}`,
      creationTimestamp: createdAt,
      labels,
      ownerReferences: [{ apiVersion: "batch/v1", kind: "Job", name: job.metadata.name, uid: uidOf("Job", job.metadata.name), controller: true, blockOwnerDeletion: true }],
    },
    spec: structuredClone((job.spec as any).template.spec),
    status: {
      phase: failed ? "Failed" : succeeded ? "Succeeded" : "Pending",
      initContainerStatuses: init,
      containerStatuses: main,
    },
  } as KubeObject;
}

/**
 * Container outcomes of a build Pod that succeeded: the commit from `prepare`, and the digest from
 * the container that reports it (`digest` after kaniko, or BuildKit's `build`).
 */
export function builtOutcomes(job: KubeObject, sha: string, digest: string): Record<string, ContainerOutcome> {
  const hasDigestStep = ((job.spec as any).template.spec.containers as Array<{ name: string }>).some((c) => c.name === "digest");
  return hasDigestStep
    ? { "git-sync": {}, prepare: { message: sha }, build: {}, digest: { message: digest } }
    : { "git-sync": {}, prepare: { message: sha }, build: { message: digest } };
}

/** A Deployment status: `available` replicas out of `replicas`, all updated, or a deadline failure. */
export function deploymentStatus(replicas: number, available: number, opts: { deadline?: boolean; generation?: number } = {}): Record<string, unknown> {
  return {
    observedGeneration: opts.generation ?? 1,
    replicas,
    updatedReplicas: replicas,
    readyReplicas: available,
    availableReplicas: available,
    ...(available < replicas ? { unavailableReplicas: replicas - available } : {}),
    conditions: [
      {
        type: "Available",
        status: available >= replicas ? "True" : "False",
        reason: available >= replicas ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable",
        message: "Deployment availability",
        lastUpdateTime: "2026-03-02T10:06:00Z",
        lastTransitionTime: "2026-03-02T10:06:00Z",
      },
      opts.deadline
        ? { type: "Progressing", status: "False", reason: "ProgressDeadlineExceeded", message: 'ReplicaSet "x" has timed out progressing.', lastUpdateTime: "2026-03-02T10:16:00Z", lastTransitionTime: "2026-03-02T10:16:00Z" }
        : { type: "Progressing", status: "True", reason: "NewReplicaSetAvailable", message: 'ReplicaSet "x" has successfully progressed.', lastUpdateTime: "2026-03-02T10:06:00Z", lastTransitionTime: "2026-03-02T10:06:00Z" },
    ],
  };
}

/** Runs the sync (or finalize) hook through the shared path, as the HTTP route does. */
export function sync(body: unknown, now: string, hook: "sync" | "finalize" = "sync"): SyncResponse {
  return runHook(ciBuildController, hook, body, new Date(now), OPTIONS).response as SyncResponse;
}

export function childOf(response: SyncResponse, kind: string, name?: string): KubeObject | undefined {
  return response.children.find((c) => c.kind === kind && (name === undefined || c.metadata.name === name));
}

/**
 * Walks one CIBuild through fresh → Job running → Job succeeded (Pods report SHA and digest) →
 * Deployment available, chaining each answer's status into the next request.
 */
export function lifecycle(name: string, spec: Record<string, unknown>) {
  const fresh = request({ parent: parent(spec, { name }) });
  const r1 = sync(fresh, "2026-03-02T10:00:05Z");
  const job = childOf(r1, "Job")!;
  const runningJob = observe(job, "2026-03-02T10:00:06Z", jobStatus("running", "2026-03-02T10:00:06Z"));
  const runningPod = buildPod(job, "x7k2p", "2026-03-02T10:00:07Z", { "git-sync": {}, prepare: { message: SHA }, build: { running: true } });
  const running = request({ parent: parent(spec, { name, status: r1.status }), jobs: [runningJob], pods: [runningPod] });
  const r2 = sync(running, "2026-03-02T10:01:00Z");
  const doneJob = observe(job, "2026-03-02T10:00:06Z", jobStatus("complete", "2026-03-02T10:00:06Z", "2026-03-02T10:04:30Z"));
  const donePod = buildPod(job, "x7k2p", "2026-03-02T10:00:07Z", builtOutcomes(job, SHA, DIGEST));
  const succeeded = request({ parent: parent(spec, { name, status: r2.status }), jobs: [doneJob], pods: [donePod] });
  const r3 = sync(succeeded, "2026-03-02T10:04:31Z");
  const deployment = childOf(r3, "Deployment")!;
  const services = r3.children.filter((c) => c.kind === "Service").map((s) => observe(s, "2026-03-02T10:04:32Z", { loadBalancer: {} }));
  const available = request({
    parent: parent(spec, { name, status: r3.status }),
    jobs: [doneJob],
    pods: [donePod],
    deployments: [observe(deployment, "2026-03-02T10:04:32Z", deploymentStatus(1, 1))],
    services,
  });
  const r4 = sync(available, "2026-03-02T10:06:01Z");
  const a = available as { children: Record<string, Record<string, KubeObject>> };
  return {
    observedDeployment: Object.values(a.children["Deployment.apps/v1"]!)[0]!,
    observedServices: services,
    runningJob,
    runningPod,
    stages: [
      { name: "fresh", request: fresh, now: "2026-03-02T10:00:05Z", response: r1 },
      { name: "job-running", request: running, now: "2026-03-02T10:01:00Z", response: r2 },
      { name: "job-succeeded", request: succeeded, now: "2026-03-02T10:04:31Z", response: r3 },
      { name: "deployment-available", request: available, now: "2026-03-02T10:06:01Z", response: r4 },
    ],
    job,
    doneJob,
    donePod,
    deployment,
  };
}
