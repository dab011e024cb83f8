/**
 * Turns a recorded hook request (as in test/fixtures/<kind>/<case>/request.json) into the API
 * objects a cluster would hold: the parent, and every child and related object carrying the
 * `controller-uid` label and controller ownerReference Metacontroller puts on children.
 */
import type { StoredObject } from "./fake-apiserver.ts";

const PLURALS: Record<string, string> = { Job: "jobs", Deployment: "deployments", Service: "services", Pod: "pods" };

export function clusterFromRequest(request: any, parentResource: string): StoredObject[] {
  const parent = request.parent;
  const uid = parent.metadata.uid;
  const objects: StoredObject[] = [{ resource: parentResource, object: parent }];
  for (const group of Object.values(request.children ?? {}) as Array<Record<string, any> | null>) {
    for (const child of Object.values(group ?? {})) {
      const metadata = { ...child.metadata, namespace: child.metadata.namespace ?? parent.metadata.namespace };
      metadata.labels = { ...(metadata.labels ?? {}), "controller-uid": uid };
      metadata.ownerReferences ??= [
        { apiVersion: parent.apiVersion, kind: parent.kind, name: parent.metadata.name, uid, controller: true, blockOwnerDeletion: true },
      ];
      objects.push({ resource: PLURALS[child.kind] ?? `${String(child.kind).toLowerCase()}s`, object: { ...child, metadata } });
    }
  }
  for (const group of Object.values(request.related ?? {}) as Array<Record<string, any> | null>) {
    for (const obj of Object.values(group ?? {})) {
      const metadata = { ...obj.metadata, namespace: obj.metadata.namespace ?? parent.metadata.namespace };
      objects.push({ resource: PLURALS[obj.kind] ?? `${String(obj.kind).toLowerCase()}s`, object: { ...obj, metadata } });
    }
  }
  return objects;
}

/** The request as explain should rebuild it: children labelled as in {@link clusterFromRequest}. */
export function labelledRequest(request: any): any {
  const uid = request.parent.metadata.uid;
  const children: Record<string, Record<string, any>> = {};
  for (const [key, group] of Object.entries(request.children ?? {}) as Array<[string, Record<string, any> | null]>) {
    children[key] = {};
    for (const child of Object.values(group ?? {})) {
      const metadata = { ...child.metadata, namespace: child.metadata.namespace ?? request.parent.metadata.namespace };
      metadata.labels = { ...(metadata.labels ?? {}), "controller-uid": uid };
      metadata.ownerReferences ??= [
        { apiVersion: request.parent.apiVersion, kind: request.parent.kind, name: request.parent.metadata.name, uid, controller: true, blockOwnerDeletion: true },
      ];
      children[key]![child.metadata.name] = { ...child, metadata };
    }
  }
  return { ...request, children };
}
