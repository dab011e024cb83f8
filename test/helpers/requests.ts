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

/**
 * An AdmissionReview v1 request as the API server sends it for `object`: group, version and kind
 * from the object, resource its lower-cased plural (`cronjobs`, `cibuilds`), CREATE by default.
 * @param fields - more request fields (uid, operation, namespace, oldObject, …), kept as given
 */
export function admissionReview(object: { apiVersion: string; kind: string; [field: string]: unknown }, fields: Record<string, unknown> = {}): Record<string, unknown> {
  const [group, version] = object.apiVersion.includes("/") ? object.apiVersion.split("/") : ["", object.apiVersion];
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: "u-1",
      kind: { group, version, kind: object.kind },
      resource: { group, version, resource: `${object.kind.toLowerCase()}s` },
      operation: "CREATE",
      object,
      ...fields,
    },
  };
}
