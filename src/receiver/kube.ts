/**
 * The receiver's only access to the Kubernetes API: list CIBuilds in one namespace, read one key
 * of a named Secret, and merge-patch one annotation of a CIBuild. Nothing else is read or written
 * (the chart's RBAC grants exactly this).
 *
 * `@kubernetes/client-node` loads the kubeconfig (in-cluster ServiceAccount in the chart) and
 * turns it into TLS options and auth headers; requests are plain JSON, so CIBuild objects are read
 * as sent, unknown fields included.
 *
 * @packageDocumentation
 */
import http from "node:http";
import https from "node:https";
import type { KubeObject } from "../metacontroller/contract.ts";
import { CIBUILD_API_VERSION, CIBUILD_PLURAL } from "../controllers/cibuild/schema.ts";

function resourcePath(apiVersion: string, resource: string, namespace: string, name?: string): string {
  const base = `${apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`}/namespaces/${encodeURIComponent(namespace)}/${resource}`;
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
}

/** What the receiver needs from the API. */
export interface ReceiverKube {
  /** The CIBuilds of one namespace. */
  listCIBuilds(namespace: string): Promise<KubeObject[]>;
  /**
   * One key of a Secret.
   * @returns undefined when the Secret or key does not exist or may not be read (404/403)
   */
  readSecretKey(namespace: string, name: string, key: string): Promise<Buffer | undefined>;
  /** Sets one annotation on a CIBuild (JSON merge patch of `metadata.annotations` only). */
  annotateCIBuild(namespace: string, name: string, key: string, value: string): Promise<void>;
}

/** A non-2xx API answer. */
export class KubeApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

type Send = (method: string, path: string, body?: { contentType: string; data: string }) => Promise<unknown>;

/** The API over a request function (tests pass one for a fake server). */
export function receiverKubeOver(send: Send): ReceiverKube {
  return {
    async listCIBuilds(namespace) {
      const list = (await send("GET", resourcePath(CIBUILD_API_VERSION, CIBUILD_PLURAL, namespace))) as { items?: unknown };
      return Array.isArray(list?.items) ? (list.items as KubeObject[]) : [];
    },
    async readSecretKey(namespace, name, key) {
      try {
        const secret = (await send("GET", resourcePath("v1", "secrets", namespace, name))) as { data?: Record<string, unknown> };
        const value = secret?.data?.[key];
        return typeof value === "string" ? Buffer.from(value, "base64") : undefined;
      } catch (err) {
        if (err instanceof KubeApiError && (err.status === 404 || err.status === 403)) return undefined;
        throw err;
      }
    },
    async annotateCIBuild(namespace, name, key, value) {
      const data = JSON.stringify({ metadata: { annotations: { [key]: value } } });
      await send("PATCH", resourcePath(CIBUILD_API_VERSION, CIBUILD_PLURAL, namespace, name), { contentType: "application/merge-patch+json", data });
    },
  };
}

/**
 * The API from the kubeconfig (`$KUBECONFIG`, `~/.kube/config`, or the in-cluster ServiceAccount).
 * @throws Error when no kubeconfig can be loaded
 */
export async function loadReceiverKube(kubeconfig?: string): Promise<ReceiverKube> {
  const { KubeConfig } = await import("@kubernetes/client-node");
  const kc = new KubeConfig();
  if (kubeconfig) kc.loadFromFile(kubeconfig);
  else kc.loadFromDefault();
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error("kubeconfig has no cluster");
  const server = cluster.server.replace(/\/+$/, "");
  return receiverKubeOver(async (method, path, body) => {
    const url = new URL(server + path);
    const headers: Record<string, string> = { Accept: "application/json" };
    if (body) headers["Content-Type"] = body.contentType;
    const opts: https.RequestOptions = { method, headers };
    await kc.applyToHTTPSOptions(opts);
    return requestJson(url, opts, body?.data);
  });
}

function requestJson(url: URL, opts: https.RequestOptions, data: string | undefined): Promise<unknown> {
  const transport = url.protocol === "http:" ? http : https;
  return new Promise((resolve, reject) => {
    const req = transport.request(url, { ...opts, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 299) {
          let message = `HTTP ${status}`;
          try {
            const m = (JSON.parse(text) as { message?: unknown }).message;
            if (typeof m === "string") message = `${message}: ${m.slice(0, 300)}`;
          } catch {
            // not JSON
          }
          reject(new KubeApiError(status, message));
          return;
        }
        try {
          resolve(JSON.parse(text));
        } catch {
          reject(new KubeApiError(status, "the API answered with a body that is not JSON"));
        }
      });
    });
    req.on("timeout", () => req.destroy(new Error("the API did not answer within 10 s")));
    req.on("error", reject);
    if (data !== undefined) req.write(data);
    req.end();
  });
}
