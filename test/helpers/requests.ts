/** Small hook requests shared by the HTTP, CLI and image tests. */

/** A minimal valid CronJob parent (every minute, busybox), created at 2026-01-05T11:00:00Z. */
export const MINIMAL_CRONJOB = {
  apiVersion: "batch.tutorial.kubebuilder.io/v1",
  kind: "CronJob",
  metadata: { name: "hello", namespace: "default", uid: "u-1", generation: 1, creationTimestamp: "2026-01-05T11:00:00Z" },
  spec: {
    schedule: "*/1 * * * *",
    jobTemplate: { spec: { template: { spec: { containers: [{ name: "c", image: "busybox" }], restartPolicy: "OnFailure" } } } },
  },
};

/** A sync request for {@link MINIMAL_CRONJOB} with no observed Jobs. */
export const MINIMAL_CRONJOB_SYNC = {
  controller: { metadata: { name: "cronjob-controller" } },
  parent: MINIMAL_CRONJOB,
  children: { "Job.batch/v1": {} },
};
