/**
 * A thin client for the e2e control plane: @kubernetes/client-node's KubeConfig for the
 * connection and credentials, plain JSON on the wire. The generated typed clients re-serialize a
 * body through their models, which silently drops fields a model does not know; that would hide
 * exactly the unknown fields strict field validation is here to find, so objects go out as they are.
 *
 * @packageDocumentation
 */
import https from "node:https";
import { KubeConfig } from "@kubernetes/client-node";

/** A Kubernetes object as plain JSON. */
export type KubeObject = {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; generateName?: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
};

/** The answer of one API call. */
export interface KubeResponse<T = any> {
  status: number;
  body: T;
  /** `Warning` headers (e.g. unknown fields under fieldValidation=Warn). */
  warnings: string[];
}

/** Why the e2e tests cannot run here (outside `npm run e2e`), or undefined when they can. */
export const e2eHarnessMissing: string | undefined =
  process.env.KUBECONFIG && process.env.METAHOOKS_E2E_PKI
    ? undefined
    : "the e2e tests need the control plane that `npm run e2e` starts (KUBECONFIG and METAHOOKS_E2E_PKI are unset): run them with `npm run e2e` (or `npm run e2e -- <file filter>`), not with node --test or npm test";

/**
 * Fails the test file at once, with {@link e2eHarnessMissing}, when it runs outside `npm run e2e`.
 * Running an e2e file by hand is a mistake to report, not a reason to skip: a skipped e2e run
 * reads like a green one.
 * @throws Error saying to use `npm run e2e`
 */
export function requireE2eHarness(): void {
  if (e2eHarnessMissing) throw new Error(e2eHarnessMissing);
}

let config: KubeConfig | undefined;

/** The admin kubeconfig `npm run e2e` wrote. */
export function kubeConfig(): KubeConfig {
  if (!config) {
    requireE2eHarness();
    config = new KubeConfig();
    config.loadFromFile(process.env.KUBECONFIG!);
  }
  return config;
}

/** Path of the kubeconfig file (for kubectl, helm and Metacontroller). */
export function kubeconfigPath(): string {
  kubeConfig();
  return process.env.KUBECONFIG!;
}

/**
 * One API call. Never throws on an HTTP error status; assert on `status`.
 * @param path - e.g. `/api/v1/namespaces`
 * @param options.query - query parameters, e.g. `{ dryRun: "All", fieldValidation: "Strict" }`
 * @param options.contentType - for PATCH, e.g. `application/merge-patch+json`
 */
export async function kubeRequest<T = any>(
  method: string,
  path: string,
  options: { body?: unknown; query?: Record<string, string>; contentType?: string } = {},
): Promise<KubeResponse<T>> {
  const kc = kubeConfig();
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error("kubeconfig has no current cluster");
  const url = new URL(path, cluster.server);
  for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, value);
  const requestOptions: https.RequestOptions = { method, headers: { Accept: "application/json" } };
  await kc.applyToHTTPSOptions(requestOptions);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  if (payload !== undefined) {
    requestOptions.headers = { ...requestOptions.headers, "Content-Type": options.contentType ?? "application/json" };
  }
  return new Promise((resolve, reject) => {
    const req = https.request(url, requestOptions, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let body: any = text;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          // Not JSON (e.g. /readyz): keep the text.
        }
        const warning = res.headers.warning;
        const warnings = warning === undefined ? [] : Array.isArray(warning) ? warning : [warning];
        resolve({ status: res.statusCode ?? 0, body, warnings });
      });
    });
    req.on("error", reject);
    req.end(payload);
  });
}

interface ResourceInfo {
  plural: string;
  namespaced: boolean;
}

const discovery = new Map<string, Map<string, ResourceInfo>>();

/** Forgets cached discovery (after installing CRDs). */
export function resetDiscovery(): void {
  discovery.clear();
}

/**
 * The resource (plural, scope) serving `apiVersion`/`kind`, from the apiserver's discovery.
 * @throws Error when the apiserver does not serve the kind
 */
export async function resourceFor(apiVersion: string, kind: string): Promise<ResourceInfo> {
  let kinds = discovery.get(apiVersion);
  if (!kinds) {
    const path = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const res = await kubeRequest<{ resources: Array<{ name: string; kind: string; namespaced: boolean }> }>("GET", path);
    if (res.status !== 200) throw new Error(`discovery of ${apiVersion} failed: ${res.status} ${JSON.stringify(res.body)}`);
    kinds = new Map();
    for (const r of res.body.resources) {
      if (!r.name.includes("/")) kinds.set(r.kind, { plural: r.name, namespaced: r.namespaced });
    }
    discovery.set(apiVersion, kinds);
  }
  const info = kinds.get(kind);
  if (!info) throw new Error(`the apiserver serves no ${kind} in ${apiVersion}`);
  return info;
}

/**
 * URL path of an object's collection, or of the object itself when `name` is given.
 * @param namespace - for namespaced kinds (defaults to the object's own)
 */
export async function objectPath(apiVersion: string, kind: string, namespace: string | undefined, name?: string, subresource?: string): Promise<string> {
  const { plural, namespaced } = await resourceFor(apiVersion, kind);
  const base = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  if (namespaced && !namespace) throw new Error(`${kind} is namespaced: give a namespace`);
  let path = namespaced ? `${base}/namespaces/${namespace}/${plural}` : `${base}/${plural}`;
  if (name) path += `/${name}`;
  if (subresource) path += `/${subresource}`;
  return path;
}

/** Strict server-side field validation: unknown or duplicate fields fail the request. */
export const STRICT = { fieldValidation: "Strict" } as const;

/** Creates `obj` (POST) with strict field validation, optionally as a dry run. */
export async function createObject(obj: KubeObject, options: { namespace?: string; dryRun?: boolean } = {}): Promise<KubeResponse> {
  const path = await objectPath(obj.apiVersion, obj.kind, options.namespace ?? obj.metadata.namespace);
  return kubeRequest("POST", path, { body: obj, query: { ...STRICT, ...(options.dryRun ? { dryRun: "All" } : {}) } });
}

/** Reads one object. */
export async function getObject(apiVersion: string, kind: string, namespace: string | undefined, name: string): Promise<KubeResponse> {
  return kubeRequest("GET", await objectPath(apiVersion, kind, namespace, name));
}

/** Creates a namespace with a unique name starting with `prefix` and returns the name. */
export async function createNamespace(prefix: string, labels: Record<string, string> = {}): Promise<string> {
  const res = await kubeRequest("POST", "/api/v1/namespaces", {
    body: { apiVersion: "v1", kind: "Namespace", metadata: { generateName: `${prefix}-`, labels } },
    query: STRICT,
  });
  if (res.status !== 201) throw new Error(`cannot create a namespace: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.metadata.name;
}

/** Throws with the apiserver's message unless the status is one of `expected`. */
export function expectStatus(res: KubeResponse, expected: number[], what: string): void {
  if (!expected.includes(res.status)) {
    const message = typeof res.body === "object" && res.body?.message ? res.body.message : JSON.stringify(res.body);
    throw new Error(`${what}: HTTP ${res.status}: ${message}`);
  }
}

/** A running watch; `stop` ends it. */
export interface Watch {
  stop(): void;
}

/**
 * Watches a collection (`GET <path>?watch=1`) and calls `onEvent` for every event, in the
 * apiserver's order, so no short-lived state is missed (a poll could skip one).
 * @param path - a collection path, e.g. from {@link objectPath}
 */
export async function watchCollection(path: string, onEvent: (type: string, obj: any) => void): Promise<Watch> {
  const kc = kubeConfig();
  const url = new URL(path, kc.getCurrentCluster()!.server);
  url.searchParams.set("watch", "1");
  url.searchParams.set("allowWatchBookmarks", "false");
  const requestOptions: https.RequestOptions = { method: "GET", headers: { Accept: "application/json" } };
  await kc.applyToHTTPSOptions(requestOptions);
  let buffer = "";
  const req = https.request(url, requestOptions, (res) => {
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        if (!line) continue;
        const event = JSON.parse(line) as { type: string; object: any };
        onEvent(event.type, event.object);
      }
    });
  });
  req.on("error", () => {});
  req.end();
  return { stop: () => req.destroy() };
}
