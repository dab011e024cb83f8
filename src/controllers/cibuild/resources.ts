/**
 * The CIBuild parent and its child types, and the group keys of the hook requests derived from
 * them.
 *
 * @packageDocumentation
 */
import { groupKey } from "../define-kind.ts";
import type { ChildResource, ParentResource } from "../types.ts";
import { CIBUILD_API_VERSION, CIBUILD_PLURAL } from "./schema.ts";

/** The parent resource. */
export const PARENT: ParentResource = { apiVersion: CIBUILD_API_VERSION, kind: "CIBuild", plural: CIBUILD_PLURAL, singular: "cibuild" };

/**
 * The build Job. No update strategy (OnDelete): a Job's Pod template is immutable, and new build
 * inputs get a new Job name instead.
 */
export const JOB_CHILD: ChildResource = { apiVersion: "batch/v1", kind: "Job", resource: "jobs" };
/** The app's Deployment, updated in place so a new image rolls out without deleting the old Pods first. */
export const DEPLOYMENT_CHILD: ChildResource = { apiVersion: "apps/v1", kind: "Deployment", resource: "deployments", updateStrategy: "InPlace" };
/** The app's Service (only with `deploy.port`), updated in place: recreating it would change its ClusterIP. */
export const SERVICE_CHILD: ChildResource = { apiVersion: "v1", kind: "Service", resource: "services", updateStrategy: "InPlace" };
/** The build Pods, asked for as related objects by the customize hook (never a child). */
export const POD_RELATED = { apiVersion: "v1", kind: "Pod", resource: "pods" } as const;

/** Every child type, in the CompositeController's order. */
export const CHILDREN: readonly ChildResource[] = [JOB_CHILD, DEPLOYMENT_CHILD, SERVICE_CHILD];

/** Group keys of the children and related maps. */
export const JOB_GROUP = groupKey(JOB_CHILD);
export const DEPLOYMENT_GROUP = groupKey(DEPLOYMENT_CHILD);
export const SERVICE_GROUP = groupKey(SERVICE_CHILD);
export const POD_GROUP = groupKey(POD_RELATED);
