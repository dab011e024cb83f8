/**
 * The Job created for one slot, as upstream pkg/controller/cronjob/utils.go `getJobFromTemplate2`.
 *
 * @packageDocumentation
 */
import type { Job, JobSpec } from "kubernetes-types/batch/v1.js";
import { isStringMap, type KubeObject } from "../../metacontroller/contract.ts";
import { copyOwn } from "../../kube/copy-own.ts";
import { cloneJson } from "../../kube/json-clone.ts";
import { asKubeObject, type TypedObject } from "../../kube/objects.ts";
import { formatTime } from "../../kube/time.ts";
import { SCHEDULED_AT_ANNOTATION, SCHEDULED_TIMESTAMP_ANNOTATION } from "./constants.ts";
import type { CronJobSpec } from "./schema.ts";
import { jobNameFor } from "./scheduled-time.ts";
import { formatInZone } from "./time-zone.ts";

/**
 * Builds the Job for `slot`: name `<cronjob>-<unix minutes>`, the template's labels (else the Pod
 * template's, as the API server's Job defaulting would give them) and annotations plus both
 * scheduled-time annotations (upstream's in the CronJob's zone, the tutorial's in UTC), and a deep
 * copy of the template's spec. No ownerReferences (Metacontroller adds the controller reference)
 * and no `controller-uid` label (Metacontroller adds it).
 *
 * @param parent - the CronJob (its name and namespace)
 * @param template - the validated `spec.jobTemplate`
 * @param slot - the scheduled time
 * @param zone - the CronJob's IANA zone
 */
export function buildJob(parent: KubeObject, template: CronJobSpec["jobTemplate"], slot: Date, zone: string): KubeObject {
  const metadata: TypedObject["metadata"] = { name: jobNameFor(parent.metadata.name, slot) };
  if (parent.metadata.namespace) metadata.namespace = parent.metadata.namespace;
  // The jobTemplate's labels, else the Pod template's. Upstream gives the Job only the
  // jobTemplate's, and the API server's Job defaulting (SetDefaults_Job) copies the Pod
  // template's labels into a Job that has none. Under Metacontroller a Job always has one, the
  // `controller-uid` it adds (generateSelector), so that defaulting never happens: it is done here,
  // or `kubectl get jobs -l app=…` would stop finding the Jobs a batch/v1 CronJob's template names.
  const own = template.metadata?.labels;
  const podLabels = (template.spec as { template?: { metadata?: { labels?: unknown } } } | undefined)?.template?.metadata?.labels;
  const labels = own && Object.keys(own).length ? own : isStringMap(podLabels) ? podLabels : undefined;
  if (labels && Object.keys(labels).length) metadata.labels = { ...labels };
  // Copied key by key, then the two added: V8 gives a spread copy that gains keys a new hidden
  // class every time (see copyOwn). A key already in the template keeps its place, as in a literal.
  const annotations: Record<string, string> = copyOwn(template.metadata?.annotations);
  annotations[SCHEDULED_TIMESTAMP_ANNOTATION] = formatInZone(slot, zone);
  annotations[SCHEDULED_AT_ANNOTATION] = formatTime(slot);
  metadata.annotations = annotations;
  const job: Job & TypedObject = {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata,
    // The user's JobSpec, copied unchanged: the schema checked what the API would always reject
    // (containers, restartPolicy) and keeps every other field as written. A JSON copy (the spec
    // came from JSON and goes back to it; its nesting was bounded before it was read).
    spec: cloneJson(template.spec) as JobSpec,
  };
  return asKubeObject(job);
}
