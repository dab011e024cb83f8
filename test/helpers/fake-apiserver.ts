/**
 * A tiny fake Kubernetes API server on 127.0.0.1 that serves recorded objects (GET only), and a
 * kubeconfig pointing at it. Enough for read-only clients: object GETs, list GETs with equality
 * and set-based label selectors, 404 Status bodies, and bearer-token checking.
 */
import http from "node:http";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";

/** One stored object and the plural resource it is served under. */
export interface StoredObject {
  resource: string;
  object: Record<string, any>;
}

export const TEST_TOKEN = "test-token-123";

function matchesSelector(labels: Record<string, string>, selector: string): boolean {
  if (!selector) return true;
  // Split on commas outside parentheses.
  const terms = selector.match(/([^,(]+(\([^)]*\))?)+/g) ?? [];
  return terms.every((raw) => {
    const term = raw.trim();
    let m = /^(\S+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
    if (m) {
      const values = m[3]!.split(",").map((v) => v.trim());
      const has = m[1]! in labels && values.includes(labels[m[1]!]!);
      return m[2] === "in" ? has : !has;
    }
    m = /^(\S+?)(==|=|!=)(\S*)$/.exec(term);
    if (m) return m[2] === "!=" ? labels[m[1]!] !== m[3] : labels[m[1]!] === m[3];
    if (term.startsWith("!")) return !(term.slice(1) in labels);
    return term in labels;
  });
}

function apiVersionOfPath(parts: string[]): { apiVersion: string; rest: string[] } | undefined {
  if (parts[0] === "api") return { apiVersion: parts[1]!, rest: parts.slice(2) };
  if (parts[0] === "apis") return { apiVersion: `${parts[1]}/${parts[2]}`, rest: parts.slice(3) };
  return undefined;
}

/** A running fake API server. */
export interface FakeApiServer {
  url: string;
  /** Paths requested, with query strings, in order. */
  requests: string[];
  /** Writes a kubeconfig for this server (token auth) and returns its path. */
  writeKubeconfig(namespace?: string): string;
  close(): Promise<void>;
}

/** RFC 7386 JSON merge patch. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> = target !== null && typeof target === "object" && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** Options of {@link startFakeApiServer}. */
export interface FakeApiServerOptions {
  /** Accept `PATCH` with `application/merge-patch+json` on stored objects (else read-only). */
  writable?: boolean;
  /** Called with each applied patch: `{method, path, contentType, body}`. */
  onWrite?: (write: { method: string; path: string; contentType: string; body: unknown }) => void;
  /** Answer every request to a path starting with one of these with 403 Forbidden. */
  forbidden?: string[];
  /** Awaited before each request is answered (a test holds a caller mid-call with it). */
  hold?: (path: string) => Promise<void> | undefined;
}

/** Starts the fake API server with the given objects. */
export async function startFakeApiServer(objects: StoredObject[], options: FakeApiServerOptions = {}): Promise<FakeApiServer> {
  const requests: string[] = [];
  const server = http.createServer(async (req, res) => {
    requests.push(req.url ?? "");
    await options.hold?.(req.url ?? "");
    const send = (code: number, body: unknown) => {
      res.writeHead(code, { "Content-Type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${TEST_TOKEN}`) {
      return send(401, { kind: "Status", apiVersion: "v1", status: "Failure", message: "Unauthorized", reason: "Unauthorized", code: 401 });
    }
    const url = new URL(req.url ?? "/", "http://x");
    if (options.forbidden?.some((p) => url.pathname.startsWith(p))) {
      return send(403, { kind: "Status", apiVersion: "v1", status: "Failure", reason: "Forbidden", code: 403, message: "forbidden" });
    }
    const writing = req.method === "PATCH" && options.writable;
    if (req.method !== "GET" && !writing) return send(405, { kind: "Status", message: "read-only fake", code: 405 });
    const parsed = apiVersionOfPath(url.pathname.split("/").filter(Boolean).map(decodeURIComponent));
    if (!parsed || parsed.rest[0] !== "namespaces") return send(404, { kind: "Status", message: "not found", code: 404 });
    const [, namespace, resource, name] = parsed.rest;
    const candidates = objects.filter(
      (o) => o.resource === resource && o.object.apiVersion === parsed.apiVersion && o.object.metadata?.namespace === namespace,
    );
    if (writing) {
      const found = name === undefined ? undefined : candidates.find((o) => o.object.metadata.name === name);
      if (!found) return send(404, { kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404, message: "not found" });
      const contentType = String(req.headers["content-type"] ?? "");
      if (!contentType.startsWith("application/merge-patch+json")) return send(415, { kind: "Status", code: 415, message: `unsupported patch type ${contentType}` });
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      found.object = mergePatch(found.object, body) as Record<string, any>;
      found.object.metadata.resourceVersion = String(Number(found.object.metadata.resourceVersion ?? "1") + 1);
      options.onWrite?.({ method: "PATCH", path: url.pathname, contentType, body });
      return send(200, found.object);
    }
    if (name !== undefined) {
      const found = candidates.find((o) => o.object.metadata.name === name);
      if (!found) return send(404, { kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404, message: `${resource} "${name}" not found` });
      return send(200, found.object);
    }
    const selector = url.searchParams.get("labelSelector") ?? "";
    const items = candidates
      .filter((o) => matchesSelector(o.object.metadata.labels ?? {}, selector))
      .map((o) => {
        // Lists of built-in types leave apiVersion and kind out of the items.
        const { apiVersion: _a, kind: _k, ...rest } = o.object;
        return rest;
      });
    const kind = (candidates[0]?.object.kind as string | undefined) ?? "Object";
    send(200, { apiVersion: parsed.apiVersion, kind: `${kind}List`, metadata: { resourceVersion: "1" }, items });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dirs: string[] = [];
  return {
    url,
    requests,
    writeKubeconfig(namespace = "default") {
      const dir = mkdtempSync(join(tmpdir(), "metahooks-kubeconfig-"));
      dirs.push(dir);
      const file = join(dir, "config");
      writeFileSync(
        file,
        [
          "apiVersion: v1",
          "kind: Config",
          "clusters:",
          "- name: fake",
          "  cluster:",
          `    server: ${url}`,
          "    insecure-skip-tls-verify: true",
          "users:",
          "- name: tester",
          "  user:",
          `    token: ${TEST_TOKEN}`,
          "contexts:",
          "- name: fake",
          `  context: {cluster: fake, user: tester, namespace: ${namespace}}`,
          "current-context: fake",
          "",
        ].join("\n"),
      );
      return file;
    },
    async close() {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
