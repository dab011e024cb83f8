/**
 * Step 1 of the CIBuild sync hook: read the request. The parent, the status the previous answer
 * wrote, the observed children by kind (build Jobs classified, poll probe Jobs apart) and the
 * related build Pods. Nothing is decided here.
 *
 * @packageDocumentation
 */
import { listChildren, type KubeObject, type SyncRequest } from "../../metacontroller/contract.ts";
import type { CIBuildStatus } from "./schema.ts";
import { classifyJob, type ObservedBuildJob } from "./build-state.ts";
import { isProbeJob } from "./probe-job.ts";
import { readPreviousStatus } from "./status.ts";
import { DEPLOYMENT_GROUP, JOB_GROUP, POD_GROUP, SERVICE_GROUP } from "./resources.ts";

/** The observed children of one request, by kind. */
export interface ObservedChildren {
  jobs: KubeObject[];
  deployments: KubeObject[];
  services: KubeObject[];
}

/** Reads the observed children (any hook version's keys). */
export function observedChildren(request: SyncRequest): ObservedChildren {
  return {
    jobs: listChildren(request.children, JOB_GROUP),
    deployments: listChildren(request.children, DEPLOYMENT_GROUP),
    services: listChildren(request.children, SERVICE_GROUP),
  };
}

/** What one sync request shows. */
export interface ObservedCIBuild {
  parent: KubeObject;
  /** The previous answer's status, field by field (a malformed field is dropped). */
  previous: CIBuildStatus;
  children: ObservedChildren;
  /** The related Pods (build and probe Pods, selected by the customize hook). */
  pods: KubeObject[];
  /** Observed build Jobs, classified (poll probe Jobs live beside them but are never builds). */
  buildJobs: ObservedBuildJob[];
  /** Observed poll probe Jobs. */
  probeJobs: KubeObject[];
}

/** Reads one sync request. */
export function observeCIBuild(request: SyncRequest): ObservedCIBuild {
  const children = observedChildren(request);
  return {
    parent: request.parent,
    previous: readPreviousStatus(request.parent.status),
    children,
    pods: listChildren(request.related, POD_GROUP),
    buildJobs: children.jobs.filter((j) => !isProbeJob(j)).map(classifyJob),
    probeJobs: children.jobs.filter(isProbeJob),
  };
}
