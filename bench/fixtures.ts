/**
 * Request bodies of the benchmark: realistic children as Metacontroller sends them (managedFields,
 * ownerReferences, status; about 3 KiB per Job with three managedFields entries, the size we measured when choosing the 8 MiB body limit).
 */

export const NOW = new Date("2026-01-05T12:00:30Z");

const CRONJOB_API = "batch.tutorial.kubebuilder.io/v1";

function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** A CronJob parent (every minute, Allow, history limits large enough to keep every child). */
export function cronJobParent(historyLimit: number): Record<string, unknown> {
  return {
    apiVersion: CRONJOB_API,
    kind: "CronJob",
    metadata: {
      name: "hello",
      namespace: "default",
      uid: "8f1c7c4e-6a3b-4a8e-9d1e-3c1f2b7a9e10",
      generation: 3,
      resourceVersion: "123456",
      creationTimestamp: "2025-01-01T00:00:00Z",
      labels: { app: "hello" },
    },
    spec: {
      schedule: "*/1 * * * *",
      concurrencyPolicy: "Allow",
      successfulJobsHistoryLimit: historyLimit,
      failedJobsHistoryLimit: historyLimit,
      jobTemplate: {
        spec: {
          backoffLimit: 2,
          template: {
            metadata: { labels: { app: "hello" } },
            spec: {
              restartPolicy: "OnFailure",
              containers: [{ name: "hello", image: "busybox:1.36", args: ["/bin/sh", "-c", "date; echo Hello from the Kubernetes cluster"] }],
            },
          },
        },
      },
    },
    status: { lastScheduleTime: iso(NOW.getTime() - 90_000) },
  };
}

/** A finished (Complete) Job of the CronJob, scheduled `minutesAgo` before NOW, ≈3 KiB of JSON. */
export function cronJobChild(minutesAgo: number): Record<string, unknown> {
  const minutes = Math.floor(NOW.getTime() / 60_000) - minutesAgo;
  const name = `hello-${minutes}`;
  const scheduled = iso(minutes * 60_000);
  const started = iso(minutes * 60_000 + 1_000);
  const done = iso(minutes * 60_000 + 9_000);
  const uid = `0c7e${String(minutes).padStart(8, "0")}-1f2a-4b3c-8d4e-5f6a7b8c9d0e`;
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      name,
      namespace: "default",
      uid,
      resourceVersion: String(100000 + minutes % 100000),
      generation: 1,
      creationTimestamp: scheduled,
      labels: { app: "hello", "batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": name, "controller-uid": uid, "job-name": name },
      annotations: { "batch.kubernetes.io/cronjob-scheduled-timestamp": scheduled, "batch.kubernetes.io/job-tracking": "" },
      ownerReferences: [{ apiVersion: CRONJOB_API, kind: "CronJob", name: "hello", uid: "8f1c7c4e-6a3b-4a8e-9d1e-3c1f2b7a9e10", controller: true, blockOwnerDeletion: true }],
      managedFields: [
        {
          manager: "metacontroller",
          operation: "Update",
          apiVersion: "batch/v1",
          time: scheduled,
          fieldsType: "FieldsV1",
          fieldsV1: {
            "f:metadata": { "f:annotations": { ".": {}, "f:batch.kubernetes.io/cronjob-scheduled-timestamp": {} }, "f:labels": { ".": {}, "f:app": {} }, "f:ownerReferences": { ".": {}, [`k:{"uid":"8f1c7c4e-6a3b-4a8e-9d1e-3c1f2b7a9e10"}`]: {} } },
            "f:spec": { "f:backoffLimit": {}, "f:completionMode": {}, "f:completions": {}, "f:parallelism": {}, "f:suspend": {}, "f:template": { "f:metadata": { "f:labels": { ".": {}, "f:app": {} } }, "f:spec": { "f:containers": { [`k:{"name":"hello"}`]: { ".": {}, "f:args": {}, "f:image": {}, "f:imagePullPolicy": {}, "f:name": {}, "f:resources": {}, "f:terminationMessagePath": {}, "f:terminationMessagePolicy": {} } }, "f:dnsPolicy": {}, "f:restartPolicy": {}, "f:schedulerName": {}, "f:securityContext": {}, "f:terminationGracePeriodSeconds": {} } } },
          },
        },
        {
          manager: "kube-controller-manager",
          operation: "Update",
          apiVersion: "batch/v1",
          time: done,
          fieldsType: "FieldsV1",
          subresource: "status",
          fieldsV1: { "f:status": { "f:completionTime": {}, "f:conditions": {}, "f:ready": {}, "f:startTime": {}, "f:succeeded": {}, "f:terminating": {}, "f:uncountedTerminatedPods": {} } },
        },
      ],
    },
    spec: {
      parallelism: 1,
      completions: 1,
      backoffLimit: 2,
      completionMode: "NonIndexed",
      suspend: false,
      podReplacementPolicy: "TerminatingOrFailed",
      manualSelector: false,
      selector: { matchLabels: { "batch.kubernetes.io/controller-uid": uid } },
      template: {
        metadata: { creationTimestamp: null, labels: { app: "hello", "batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": name, "controller-uid": uid, "job-name": name } },
        spec: {
          containers: [
            {
              name: "hello",
              image: "busybox:1.36",
              args: ["/bin/sh", "-c", "date; echo Hello from the Kubernetes cluster"],
              resources: {},
              terminationMessagePath: "/dev/termination-log",
              terminationMessagePolicy: "File",
              imagePullPolicy: "IfNotPresent",
            },
          ],
          restartPolicy: "OnFailure",
          terminationGracePeriodSeconds: 30,
          dnsPolicy: "ClusterFirst",
          securityContext: {},
          schedulerName: "default-scheduler",
        },
      },
    },
    status: {
      conditions: [
        { type: "SuccessCriteriaMet", status: "True", lastProbeTime: done, lastTransitionTime: done },
        { type: "Complete", status: "True", lastProbeTime: done, lastTransitionTime: done },
      ],
      startTime: started,
      completionTime: done,
      succeeded: 1,
      terminating: 0,
      ready: 0,
      uncountedTerminatedPods: {},
    },
  };
}

/**
 * A CronJob sync request with `n` observed finished Jobs (history limits = n, so the answer keeps
 * them all: the steady state of a CronJob with that much history). The most recent slot already
 * has its Job, so no Job is created: every call costs the same.
 */
export function cronJobRequest(n: number): Record<string, unknown> {
  const jobs: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    const child = cronJobChild(i) as { metadata: { name: string } };
    jobs[child.metadata.name] = child;
  }
  return { controller: { metadata: { name: "cronjob-controller" } }, parent: cronJobParent(Math.max(n, 1)), children: { "Job.batch/v1": jobs }, finalizing: false };
}
