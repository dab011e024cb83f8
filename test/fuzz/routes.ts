/**
 * Shared material of the fuzz suite: every hook route of every registered controller, a valid
 * request per kind to mutate, observed children, and the checks every answer must pass.
 */
import assert from "node:assert/strict";
import { after, before } from "node:test";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { createApp } from "../../src/http/app.ts";
import { configureControllers, type ConfiguredController } from "../../src/controllers/registry.ts";
import { CustomizeResponseSchema, SyncResponseSchema } from "../../src/metacontroller/contract.ts";
import { runHook, type HookName } from "../../src/metacontroller/run-hook.ts";
import { silentLogger } from "../helpers/silent-logger.ts";

export const NOW = new Date("2026-01-05T12:00:30Z");

/** A route of the app under test. */
export interface Route {
  controller: ConfiguredController;
  hook: HookName;
  path: string;
}

export const configured = configureControllers({});

/** Every hook route, from the registry (new kinds are fuzzed without touching this suite). */
export const routes: Route[] = configured.flatMap((c) =>
  (c.def.hasCustomize ? (["sync", "finalize", "customize"] as const) : (["sync", "finalize"] as const)).map((hook) => ({
    controller: c,
    hook,
    path: `/${hook}/${c.def.name}`,
  })),
);

/** A known-valid spec per kind; kinds not listed get `{}` (still fuzzed, mostly as invalid). */
const VALID_SPECS: Record<string, unknown> = {
  cronjob: {
    schedule: "*/1 * * * *",
    concurrencyPolicy: "Allow",
    jobTemplate: { spec: { template: { spec: { containers: [{ name: "c", image: "busybox" }], restartPolicy: "OnFailure" } } } },
  },
  cibuild: {
    SCMRepoURL: "https://github.com/example/app.git",
    SCMBranch: "main",
    imageDestination: "registry.example.com/app:1.0",
  },
};

const RESOURCE_KINDS: Record<string, string> = {
  jobs: "Job",
  deployments: "Deployment",
  services: "Service",
  configmaps: "ConfigMap",
  secrets: "Secret",
  serviceaccounts: "ServiceAccount",
  pods: "Pod",
  persistentvolumeclaims: "PersistentVolumeClaim",
};

/** `Kind.group/version` keys of the children map, from the kind's CompositeController. */
export function childKeys(c: ConfiguredController): { key: string; apiVersion: string; kind: string }[] {
  const cc = c.def.compositeController("http://metahooks.test:8080") as {
    spec: { childResources?: { apiVersion: string; resource: string }[] };
  };
  return (cc.spec.childResources ?? []).map(({ apiVersion, resource }) => {
    const kind = RESOURCE_KINDS[resource] ?? resource.charAt(0).toUpperCase() + resource.slice(1, -1);
    const group = apiVersion.includes("/") ? apiVersion.split("/")[0] : "";
    const version = apiVersion.includes("/") ? apiVersion.split("/")[1] : apiVersion;
    return { key: group ? `${kind}.${group}/${version}` : `${kind}.${version}`, apiVersion, kind };
  });
}

/** A valid parent of the route's kind. */
export function validParent(c: ConfiguredController): Record<string, any> {
  return {
    apiVersion: c.def.apiVersion,
    kind: c.def.kind,
    metadata: { name: "hello", namespace: "default", uid: "u-1", generation: 2, creationTimestamp: "2026-01-05T11:00:00Z" },
    spec: structuredClone(VALID_SPECS[c.def.name] ?? {}),
  };
}

/**
 * `n` observed children per child kind, owned by the parent and not finished (a Job with a start
 * time and no terminal condition), named like the kind's own children (`hello-<unix minutes>`).
 */
export function observedChildren(c: ConfiguredController, n: number): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  const baseMinutes = Math.floor(NOW.getTime() / 60_000) - 1;
  for (const { key, apiVersion, kind } of childKeys(c)) {
    const map: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) {
      const minutes = baseMinutes - i;
      const name = `hello-${minutes}`;
      map[name] = {
        apiVersion,
        kind,
        metadata: {
          name,
          namespace: "default",
          uid: `child-${i}`,
          creationTimestamp: new Date(minutes * 60_000).toISOString().replace(".000", ""),
          annotations: { "batch.kubernetes.io/cronjob-scheduled-timestamp": new Date(minutes * 60_000).toISOString().replace(".000", "") },
          ownerReferences: [{ apiVersion: c.def.apiVersion, kind: c.def.kind, name: "hello", uid: "u-1", controller: true, blockOwnerDeletion: true }],
        },
        spec: { template: { spec: { containers: [{ name: "c", image: "busybox" }], restartPolicy: "OnFailure" } } },
        status: { active: 1, startTime: new Date(minutes * 60_000 + 5000).toISOString().replace(".000", "") },
      };
    }
    out[key] = map;
  }
  return out;
}

/** A complete valid request body for a route. */
export function validRequest(route: Route, children = 2): Record<string, any> {
  const parent = validParent(route.controller);
  if (route.hook === "customize") return { controller: {}, parent };
  return { controller: {}, parent, children: observedChildren(route.controller, children) };
}

/**
 * One app for the whole test file: started before its first test, closed after its last.
 * `url` is read inside the tests (it exists only once `before` ran).
 */
export function useFuzzApp(bodyLimitBytes: number): { readonly url: string } {
  let app: { url: string; close(): Promise<void> } | undefined;
  before(async () => {
    app = await startFuzzApp(bodyLimitBytes);
  });
  after(async () => {
    await app?.close();
  });
  return {
    get url() {
      if (!app) throw new Error("the fuzz app is not started yet (read url inside a test)");
      return app.url;
    },
  };
}

/** The app under test on a loopback port, with a small body limit so "huge" is cheap to send. */
export async function startFuzzApp(bodyLimitBytes = 256 * 1024): Promise<{ url: string; close(): Promise<void> }> {
  const app = createApp({ controllers: configured, logger: silentLogger, clock: () => NOW, bodyLimitBytes, maxConcurrentHooks: 1000 });
  const server: Server = app.listen(0, "127.0.0.1");
  await new Promise<void>((r) => server.once("listening", () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** One answer, read in full. */
export interface FuzzAnswer {
  status: number;
  contentType: string;
  text: string;
}

export async function post(url: string, body: string | Uint8Array, contentType = "application/json"): Promise<FuzzAnswer> {
  const res = await fetch(url, { method: "POST", body: body as BodyInit, headers: { "Content-Type": contentType } });
  return { status: res.status, contentType: res.headers.get("content-type") ?? "", text: await res.text() };
}

/**
 * The invariant of every answer: 200 with a valid response for the hook, or a 4xx/5xx JSON error
 * `{error, message, requestId}`.
 * @returns the parsed 200 body, or undefined for an error answer
 */
export function checkAnswer(route: Route, answer: FuzzAnswer): any {
  assert.match(answer.contentType, /^application\/json/, `${route.path} answered ${answer.status} without JSON`);
  const body = JSON.parse(answer.text);
  if (answer.status === 200) {
    const schema = route.hook === "customize" ? CustomizeResponseSchema : SyncResponseSchema;
    const parsed = schema.safeParse(body);
    assert.ok(parsed.success, `${route.path} answered 200 with an invalid response: ${answer.text.slice(0, 300)}`);
    return body;
  }
  assert.ok(answer.status >= 400 && answer.status < 600, `${route.path} answered ${answer.status}`);
  assert.equal(typeof body.error, "string", `error body without "error": ${answer.text.slice(0, 300)}`);
  assert.equal(typeof body.message, "string");
  assert.equal(typeof body.requestId, "string");
  return undefined;
}

/**
 * Whether a request's parent spec is invalid for its kind: the kind's admission validation (the
 * same rules as its sync hook) finds a problem, or the hook reports an `invalid` decision.
 */
export function specIsInvalid(route: Route, request: any): boolean {
  const def = route.controller.def;
  try {
    if (def.admission && def.admission.validate(request.parent).length > 0) return true;
  } catch {
    // a validator that throws on garbage says nothing either way
  }
  try {
    const result = runHook(def, route.hook, request, NOW, route.controller.options);
    return result.decisions.some((d) => d.action === "invalid");
  } catch {
    return false;
  }
}

/** `Kind/namespace/name` of every observed child in a request. */
export function observedKeys(request: any): string[] {
  const parentNamespace = request?.parent?.metadata?.namespace || "";
  const keys: string[] = [];
  for (const group of Object.values((request?.children ?? {}) as Record<string, Record<string, any>>)) {
    for (const child of Object.values(group ?? {})) {
      // Only real objects count (a fuzzed `{"__proto__": …}` entry is not a child Metacontroller
      // could send, and the contract schema ignores it).
      if (typeof child?.kind !== "string" || typeof child?.metadata?.name !== "string") continue;
      // Metacontroller puts a child without (or with an empty) namespace in the parent's.
      keys.push(`${child?.kind}/${child?.metadata?.namespace || parentNamespace}/${child?.metadata?.name}`);
    }
  }
  return keys;
}

/** `Kind/namespace/name` of every desired child in a response. */
export function desiredKeys(body: any, parentNamespace: string): Set<string> {
  return new Set(
    ((body?.children ?? []) as any[]).map((c) => `${c?.kind}/${c?.metadata?.namespace || parentNamespace}/${c?.metadata?.name}`),
  );
}
