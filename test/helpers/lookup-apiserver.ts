/**
 * A minimal Kubernetes API on 127.0.0.1 for Helm's `lookup` (`helm template --dry-run=server`):
 * version, discovery of the kinds the chart renders (Helm maps every rendered object to a
 * resource and GETs it), and GETs of the core objects given. Every other object answers 404, as
 * in a cluster that does not hold it. Plain HTTP, no auth.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

/** A core/v1 object the fake cluster holds. */
export interface CoreObject {
  kind: "Secret" | "ConfigMap";
  metadata: { name: string; namespace: string };
  data?: Record<string, string>;
}

/** groupVersion → [plural, Kind, namespaced] served by discovery. */
const DISCOVERY: Record<string, Array<[string, string, boolean]>> = {
  v1: [["secrets", "Secret", true], ["configmaps", "ConfigMap", true], ["services", "Service", true], ["serviceaccounts", "ServiceAccount", true]],
  "apps/v1": [["deployments", "Deployment", true]],
  "policy/v1": [["poddisruptionbudgets", "PodDisruptionBudget", true]],
  "networking.k8s.io/v1": [["networkpolicies", "NetworkPolicy", true]],
  "apiextensions.k8s.io/v1": [["customresourcedefinitions", "CustomResourceDefinition", false]],
  "metacontroller.k8s.io/v1alpha1": [["compositecontrollers", "CompositeController", false]],
};

function resourceList(groupVersion: string) {
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion,
    resources: DISCOVERY[groupVersion]!.map(([name, kind, namespaced]) => ({ name, singularName: kind.toLowerCase(), namespaced, kind, verbs: ["get", "list", "create", "update", "patch", "delete"] })),
  };
}

function groupList() {
  const groups = new Map<string, string[]>();
  for (const gv of Object.keys(DISCOVERY).filter((k) => k.includes("/"))) {
    const [group, version] = gv.split("/") as [string, string];
    groups.set(group, [...(groups.get(group) ?? []), version]);
  }
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: [...groups].map(([name, versions]) => ({
      name,
      versions: versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v })),
      preferredVersion: { groupVersion: `${name}/${versions[0]}`, version: versions[0] },
    })),
  };
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

/**
 * Starts the server; `url` is its base URL, `close()` stops it. The objects are served as
 * belonging to Helm release `release` (ownership label and annotations), as an earlier
 * `helm install` of it would have left them.
 */
export async function startLookupApiserver(objects: CoreObject[], release = { name: "release", namespace: "hooks" }): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === "/version") return send(res, 200, { major: "1", minor: "33", gitVersion: "v1.33.0", platform: "linux/amd64" });
    if (path === "/api") return send(res, 200, { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [] });
    if (path === "/apis") return send(res, 200, groupList());
    if (path === "/api/v1") return send(res, 200, resourceList("v1"));
    const gv = /^\/apis\/([^/]+\/[^/]+)$/.exec(path);
    if (gv && DISCOVERY[gv[1]!]) return send(res, 200, resourceList(gv[1]!));
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/(secrets|configmaps)\/([^/]+)$/.exec(path);
    if (m && req.method === "GET") {
      const kind = m[2] === "secrets" ? "Secret" : "ConfigMap";
      const found = objects.find((o) => o.kind === kind && o.metadata.namespace === m[1] && o.metadata.name === m[3]);
      if (found) {
        const metadata = {
          ...found.metadata,
          labels: { "app.kubernetes.io/managed-by": "Helm" },
          annotations: { "meta.helm.sh/release-name": release.name, "meta.helm.sh/release-namespace": release.namespace },
        };
        return send(res, 200, { apiVersion: "v1", ...found, metadata });
      }
    }
    send(res, 404, { kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404, message: `${path} not found` });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
