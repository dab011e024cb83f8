/**
 * Read-only access to the Kubernetes API for `metahooks explain`: plain JSON GETs.
 *
 * `@kubernetes/client-node` is only used to load the kubeconfig and turn it into TLS options and
 * auth headers (client certificates, tokens, exec plugins, proxies). It is imported dynamically
 * here, so `metahooks serve` never loads it (it costs about 1 s and 60 MB at start-up). Objects are
 * never passed through its ObjectSerializer: that drops unknown fields and turns timestamps into
 * Dates; we read the wire JSON as is.
 *
 * @packageDocumentation
 */
import http from "node:http";
import https from "node:https";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";

/** What explain needs from the API: GET a path, get JSON back (or `undefined` on 404). */
export interface KubeReader {
  /**
   * @param path - an API path such as `/apis/batch/v1/namespaces/ns/jobs`
   * @param query - query parameters (e.g. `labelSelector`)
   * @returns the parsed JSON body, or `undefined` when the API answers 404
   * @throws Error with the API's status and message on any other non-2xx answer
   */
  get(path: string, query?: Record<string, string>): Promise<unknown>;
  /** The API server URL, for messages. */
  server: string;
  /** The kubeconfig context's namespace (what kubectl uses without `-n`), if it names one. */
  namespace?: string;
}

/** Where to find the kubeconfig. */
export interface KubeconfigOptions {
  /** A kubeconfig file; otherwise `$KUBECONFIG`, `~/.kube/config` or in-cluster config. */
  kubeconfig?: string;
  /** A context name other than the current one. */
  context?: string;
}

/** The API base path of an apiVersion: `v1` → `/api/v1`, `batch/v1` → `/apis/batch/v1`. */
function apiBasePath(apiVersion: string): string {
  return apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

/** The path of a namespaced collection or object. */
export function resourcePath(apiVersion: string, resource: string, namespace: string, name?: string): string {
  const base = `${apiBasePath(apiVersion)}/namespaces/${encodeURIComponent(namespace)}/${resource}`;
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
}

/**
 * What went wrong loading a kubeconfig, without any of its content. A YAML error from the loader
 * (js-yaml) quotes the lines around the error, and a kubeconfig's lines are tokens and keys, so
 * only its reason and position are kept. The loader's other errors name fields
 * (`clusters[0].cluster is missing`), never values.
 * @param source - the file, or where the default lookup reads from
 */
export function describeKubeconfigError(err: unknown, source: string): string {
  const e = err as { name?: unknown; reason?: unknown; mark?: { line?: unknown; column?: unknown } | null; message?: unknown };
  if (e?.name === "YAMLException") {
    const reason = typeof e.reason === "string" ? e.reason : "not valid YAML";
    const at = typeof e.mark?.line === "number" && typeof e.mark.column === "number" ? ` at line ${e.mark.line + 1}, column ${e.mark.column + 1}` : "";
    return `kubeconfig ${source} is not valid YAML: ${reason}${at}`;
  }
  const message = typeof e?.message === "string" ? e.message.split("\n")[0]! : String(err);
  return `kubeconfig ${source}: ${message}`;
}

/**
 * Loads the kubeconfig and returns a reader for its current (or given) context.
 * @throws Error when no kubeconfig can be loaded or it has no cluster
 */
export async function loadKubeReader(options: KubeconfigOptions = {}): Promise<KubeReader> {
  // client-node falls back to http://localhost:8080 when it finds no configuration at all, which
  // surfaces as a baffling "connection refused"; say what is missing instead.
  const missing = missingKubeconfig(process.env, options, existsSync);
  if (missing) throw new Error(missing);
  const { KubeConfig } = await import("@kubernetes/client-node");
  const kc = new KubeConfig();
  try {
    if (options.kubeconfig) kc.loadFromFile(options.kubeconfig);
    else kc.loadFromDefault();
  } catch (err) {
    throw new Error(describeKubeconfigError(err, options.kubeconfig ?? "(KUBECONFIG or ~/.kube/config)"));
  }
  if (options.context) kc.setCurrentContext(options.context);
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error(`kubeconfig has no cluster for context ${JSON.stringify(kc.getCurrentContext())}`);
  const server = cluster.server.replace(/\/+$/, "");
  const namespace = kc.getContextObject(kc.getCurrentContext())?.namespace || undefined;
  return {
    server,
    ...(namespace ? { namespace } : {}),
    async get(path, query) {
      const url = new URL(server + path);
      for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
      const opts: https.RequestOptions = { method: "GET", headers: { Accept: "application/json" } };
      // Sets ca/cert/key/servername, the Authorization header and the (proxy) agent.
      await kc.applyToHTTPSOptions(opts);
      return getJson(url, opts);
    },
  };
}

/** Where a pod's service account token is mounted (in-cluster configuration). */
const IN_CLUSTER_TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token";

/**
 * Why no kubeconfig can be loaded, or `undefined` when one of the usual sources exists: the
 * `--kubeconfig` file, a `KUBECONFIG` file, `~/.kube/config`, or in-cluster configuration
 * (`KUBERNETES_SERVICE_HOST` and a service account token).
 * @param exists - the file test (tests replace it)
 */
export function missingKubeconfig(env: Record<string, string | undefined>, options: KubeconfigOptions, exists: (path: string) => boolean): string | undefined {
  if (options.kubeconfig) return exists(options.kubeconfig) ? undefined : `the kubeconfig file ${JSON.stringify(options.kubeconfig)} does not exist`;
  if (env.KUBECONFIG) {
    const files = env.KUBECONFIG.split(delimiter).filter(Boolean);
    return files.some(exists) ? undefined : `no file named in KUBECONFIG exists (${files.join(delimiter)})`;
  }
  const home = env.HOME || env.USERPROFILE || homedir();
  if (exists(join(home, ".kube", "config"))) return undefined;
  if (env.KUBERNETES_SERVICE_HOST && exists(IN_CLUSTER_TOKEN)) return undefined;
  return `no kubeconfig found: pass --kubeconfig <file>, set KUBECONFIG, or create ${join(home, ".kube", "config")} (or run inside a cluster)`;
}

function getJson(url: URL, opts: https.RequestOptions): Promise<unknown> {
  const transport = url.protocol === "http:" ? http : https;
  return new Promise((resolve, reject) => {
    const req = transport.request(url, { ...opts, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const status = res.statusCode ?? 0;
        if (status === 404) return resolve(undefined);
        let body: unknown;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        if (status < 200 || status > 299) {
          const message = (body as { message?: string } | undefined)?.message ?? text.slice(0, 200);
          return reject(new Error(`GET ${url.pathname}: HTTP ${status}: ${message}`));
        }
        if (body === undefined) return reject(new Error(`GET ${url.pathname}: the answer is not JSON`));
        resolve(body);
      });
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`GET ${url.pathname}: timed out after 30 s`)));
    req.on("error", (err) => reject(new Error(`GET ${url.pathname}: ${err.message}`)));
    req.end();
  });
}
