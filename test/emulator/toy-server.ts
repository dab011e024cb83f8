/**
 * A tiny hook server for the emulator's own tests: `handler` gets the hook path and request body
 * and returns the HTTP answer. Not our service — it lets the tests play a correct hook, a
 * misbehaving one, or a failing one.
 *
 * @packageDocumentation
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Obj } from "../../src/emulator/store.ts";

/** What a toy hook answers. `body` is JSON-encoded unless `raw` is given. */
export interface ToyAnswer {
  status?: number;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
}

/** A started toy server. */
export interface ToyServer {
  baseUrl: () => string | undefined;
  calls: Array<{ path: string; body: Obj }>;
  close: () => Promise<void>;
}

/** Starts a toy hook server on 127.0.0.1 (ephemeral port). */
export async function startToyServer(handler: (path: string, body: Obj) => ToyAnswer): Promise<ToyServer> {
  const calls: ToyServer["calls"] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Obj;
      calls.push({ path: req.url ?? "", body });
      let answer: ToyAnswer;
      try {
        answer = handler(req.url ?? "", body);
      } catch (err) {
        answer = { status: 500, body: { error: String(err) } };
      }
      res.writeHead(answer.status ?? 200, { "content-type": "application/json", ...(answer.headers ?? {}) });
      res.end(answer.raw ?? JSON.stringify(answer.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl: () => url,
    calls,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A CompositeController for the toy `widgets.example.com/v1` parent with ConfigMap children. */
export function toyController(overrides: { name?: string; finalize?: boolean; customize?: boolean; version?: "v1" | "v2"; method?: string; children?: Obj[]; generateSelector?: boolean } = {}): Obj {
  const version = overrides.version ?? "v1";
  const hook = (path: string) => ({ webhook: { url: `http://toy${path}`, timeout: "5s" }, version });
  return {
    apiVersion: "metacontroller.k8s.io/v1alpha1",
    kind: "CompositeController",
    metadata: { name: overrides.name ?? "widget-controller" },
    spec: {
      generateSelector: overrides.generateSelector ?? true,
      parentResource: { apiVersion: "example.com/v1", resource: "widgets" },
      childResources: overrides.children ?? [
        { apiVersion: "v1", resource: "configmaps", ...(overrides.method ? { updateStrategy: { method: overrides.method } } : {}) },
      ],
      hooks: {
        sync: hook("/sync"),
        ...(overrides.finalize ? { finalize: hook("/finalize") } : {}),
        ...(overrides.customize ? { customize: hook("/customize") } : {}),
      },
    },
  };
}

/** Resource table entry for the toy parent. */
export const TOY_RESOURCES = { widgets: { kind: "Widget", namespaced: true } };

/** A toy parent. */
export function widget(name: string, spec: Obj = { size: 1 }, namespace = "default"): Obj {
  return { apiVersion: "example.com/v1", kind: "Widget", metadata: { name, namespace }, spec };
}
