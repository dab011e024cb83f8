/**
 * Builders for CronJob hook requests in tests: parents and observed Jobs shaped like what
 * Metacontroller sends (labels, ownerReferences, server-set fields), kept small.
 */
export const PARENT_UID = "6f1d7c3a-2b4e-4c8f-9a51-3e0d2c7b9a10";

export type JobState = "running" | "complete" | "failed" | "failure-target" | "success-criteria-met";

export interface CronJobOptions {
  name?: string;
  namespace?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  generation?: number;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

export const TEMPLATE = {
  metadata: { labels: { app: "hello" }, annotations: { "example.com/team": "batch" } },
  spec: {
    template: {
      spec: {
        containers: [{ name: "hello", image: "busybox:1.36", args: ["/bin/sh", "-c", "date; echo Hello"] }],
        restartPolicy: "OnFailure",
      },
    },
  },
};

/** A CronJob parent. `spec` fields override the defaults (schedule every minute, the template above). */
export function cronJob(options: CronJobOptions = {}): any {
  const metadata: Record<string, unknown> = {
    name: options.name ?? "hello",
    namespace: options.namespace ?? "default",
    uid: PARENT_UID,
    generation: options.generation ?? 1,
    resourceVersion: "4711",
    creationTimestamp: options.creationTimestamp ?? "2026-01-01T00:00:00Z",
    finalizers: ["metacontroller.io/compositecontroller-cronjob-controller"],
  };
  if (options.deletionTimestamp) metadata.deletionTimestamp = options.deletionTimestamp;
  const parent: any = {
    apiVersion: "batch.tutorial.kubebuilder.io/v1",
    kind: "CronJob",
    metadata,
    spec: { schedule: "* * * * *", jobTemplate: TEMPLATE, ...(options.spec ?? {}) },
  };
  if (options.status) parent.status = options.status;
  return parent;
}

const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");

export interface JobOptions {
  /** Override the name (default `<cronjob>-<unix minutes of slot>`). */
  name?: string;
  /** Omit the scheduled-time annotations (a hand-made or legacy Job). */
  noAnnotations?: boolean;
  /** status.startTime; `null` omits it. Default: slot + 1 s. */
  startTime?: string | null;
  completionTime?: string;
  deleting?: boolean;
}

/** An observed Job for `slot` (RFC 3339) in the given state. */
export function job(cronJobName: string, slot: string, state: JobState, options: JobOptions = {}): any {
  const at = Date.parse(slot);
  const name = options.name ?? `${cronJobName}-${Math.floor(at / 60000)}`;
  const uid = `0000aaaa-0000-4000-8000-${String(Math.floor(at / 60000)).padStart(12, "0")}`;
  const annotations: Record<string, string> = options.noAnnotations
    ? {}
    : { "batch.kubernetes.io/cronjob-scheduled-timestamp": iso(at), "batch.tutorial.kubebuilder.io/scheduled-at": iso(at) };
  const status: Record<string, unknown> = {};
  const start = options.startTime === undefined ? iso(at + 1000) : options.startTime;
  if (start !== null) status.startTime = start;
  const end = options.completionTime ?? iso(at + 30_000);
  const cond = (type: string, reason: string) => ({ type, status: "True", reason, message: reason, lastProbeTime: end, lastTransitionTime: end });
  if (state === "running") status.active = 1;
  if (state === "complete") Object.assign(status, { succeeded: 1, completionTime: end, conditions: [cond("SuccessCriteriaMet", "CompletionsReached"), cond("Complete", "CompletionsReached")] });
  if (state === "failed") Object.assign(status, { failed: 1, conditions: [cond("FailureTarget", "BackoffLimitExceeded"), cond("Failed", "BackoffLimitExceeded")] });
  if (state === "failure-target") Object.assign(status, { active: 1, conditions: [cond("FailureTarget", "BackoffLimitExceeded")] });
  if (state === "success-criteria-met") Object.assign(status, { active: 1, conditions: [cond("SuccessCriteriaMet", "CompletionsReached")] });
  const metadata: Record<string, unknown> = {
    name,
    namespace: "default",
    uid,
    resourceVersion: String(10_000 + (Math.floor(at / 60000) % 10_000)),
    creationTimestamp: iso(at),
    labels: { "controller-uid": PARENT_UID },
    annotations,
    ownerReferences: [{ apiVersion: "batch.tutorial.kubebuilder.io/v1", kind: "CronJob", name: cronJobName, uid: PARENT_UID, controller: true, blockOwnerDeletion: true }],
  };
  if (options.deleting) metadata.deletionTimestamp = iso(at + 60_000);
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata,
    spec: {
      backoffLimit: 6,
      completions: 1,
      parallelism: 1,
      selector: { matchLabels: { "batch.kubernetes.io/controller-uid": uid } },
      template: {
        metadata: { labels: { "batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": name, "controller-uid": uid, "job-name": name } },
        spec: TEMPLATE.spec.template.spec,
      },
    },
    status,
  };
}

/** A sync (or finalize) request. `keys: "v2"` keys children by `namespace/name`. */
export function request(parent: any, jobs: any[] = [], options: { finalizing?: boolean; keys?: "v1" | "v2" } = {}): any {
  const group: Record<string, unknown> = {};
  for (const j of jobs) group[options.keys === "v2" ? `${j.metadata.namespace}/${j.metadata.name}` : j.metadata.name] = j;
  return { controller: { metadata: { name: "cronjob-controller" } }, parent, children: { "Job.batch/v1": group }, related: {}, finalizing: options.finalizing ?? false };
}
