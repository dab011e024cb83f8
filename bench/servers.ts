/**
 * The Node servers of the benchmark, each in its own process so the load client (in the parent)
 * does not share their event loop. Started by bench/run.ts with an IPC channel:
 *   tsx bench/servers.ts hook   the real service from dist/ (startService: every feature on, logging at
 *                               `info` to stdout, which the bench points at /dev/null);
 *                               env BENCH_NOW (RFC 3339) fixes its clock
 *   tsx bench/servers.ts echo   a bare node:http server that reads the body, JSON.parses it and
 *                               answers JSON.stringify of it: the floor of any JSON hook
 *
 * Sends `{hookUrl, adminUrl?}` over IPC once listening, then answers the parent's messages:
 *   {op: "heap"}          forced GC (needs --expose-gc), then `{heapUsed, rss}` in bytes
 *   {op: "profile-start"} starts the V8 CPU profiler (sampling every 100 µs)
 *   {op: "profile-stop"}  stops it and answers the self time per step in µs (bench/profile.ts)
 */
import http from "node:http";
import inspector from "node:inspector";
import type { AddressInfo } from "node:net";
import { breakdown, type CpuProfile } from "./profile.ts";

// The service runs as production runs it: the compiled dist/ (`node dist/main.js serve` in the
// image), which bench/run.ts builds first. Through tsx the same code costs more per call (esbuild
// keeps function names with a helper call at every closure it creates).
const dist = (path: string) => new URL(`../dist/${path}`, import.meta.url).href;
const { loadServiceConfig } = (await import(dist("config.js"))) as typeof import("../src/config.ts");
const { startService } = (await import(dist("server.js"))) as typeof import("../src/server.ts");
const { configureControllers } = (await import(dist("controllers/registry.js"))) as typeof import("../src/controllers/registry.ts");

const mode = process.argv[2];
const send = (m: unknown) => process.send?.(m);

if (mode === "hook") {
  const env = {
    PORT: "0",
    ADMIN_PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "info",
    MAX_CONCURRENT_HOOKS: "1000",
  };
  // BENCH_NOW fixes the hook clock, so each fixture is answered in the phase it was written for.
  const now = process.env.BENCH_NOW ? new Date(process.env.BENCH_NOW) : undefined;
  const service = await startService(loadServiceConfig(env), {
    controllers: configureControllers(process.env),
    ...(now ? { clock: () => now } : {}),
  });
  send({ hookUrl: service.hookUrl, adminUrl: service.adminUrl });
} else if (mode === "echo") {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = JSON.stringify(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
      res.end(text);
    });
  });
  server.keepAliveTimeout = 95_000;
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo;
    send({ hookUrl: `http://127.0.0.1:${port}` });
  });
} else {
  process.stderr.write("usage: tsx bench/servers.ts hook|echo (started by bench/run.ts with IPC)\n");
  process.exit(2);
}

let session: inspector.Session | undefined;
const post = <T>(method: string, params?: object) =>
  new Promise<T>((resolve, reject) => session!.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res as T))));

process.on("message", async (msg: { op: string }) => {
  if (msg.op === "heap") {
    const gc = (globalThis as { gc?: () => void }).gc;
    if (gc) {
      gc();
      gc();
    }
    const m = process.memoryUsage();
    send({ op: "heap", heapUsed: gc ? m.heapUsed : NaN, rss: m.rss });
  } else if (msg.op === "profile-start") {
    session = new inspector.Session();
    session.connect();
    await post("Profiler.enable");
    await post("Profiler.setSamplingInterval", { interval: 100 });
    await post("Profiler.start");
    send({ op: "profile-start" });
  } else if (msg.op === "profile-stop") {
    const { profile } = await post<{ profile: CpuProfile }>("Profiler.stop");
    session!.disconnect();
    session = undefined;
    send({ op: "profile-stop", steps: breakdown(profile) });
  }
});
// The parent going away ends us (no orphaned servers after a failed run).
process.on("disconnect", () => process.exit(0));
