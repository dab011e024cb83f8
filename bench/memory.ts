/**
 * `npm run bench:memory`: does the chart's default memory limit survive the worst case?
 *
 * The worst case is MAX_CONCURRENT_HOOKS (32, the default) clients each sending a body just under
 * BODY_LIMIT_BYTES (8 MiB) at once, again and again, as Metacontroller retries (honouring
 * `Retry-After`). The service runs as the image runs it (`node dist/main.js serve`, compiled
 * here into .tmp/bench-dist) with the environment the chart renders (real helm, default values):
 * the same NODE_OPTIONS heap flag, derived from `resources.limits.memory`. Peak RSS (VmHWM) is
 * compared with that limit; answers are counted by status (200 and 429 expected; 503 or a crash
 * would be the failure).
 *
 * Env: BENCH_MEMORY_CLIENTS (default 32), BENCH_MEMORY_SUCCESSES (successes per client, default 3),
 * BENCH_OUT (default bench/RESULTS.md). Linux only (reads /proc). About a minute.
 */
import { execFileSync, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import { createInterface } from "node:readline";
import { renderChart } from "../test/helpers/helm.ts";
import { cronJobRequest } from "./fixtures.ts";
import { withSection } from "./results-file.ts";

const CLIENTS = Number(process.env.BENCH_MEMORY_CLIENTS ?? 32);
const SUCCESSES = Number(process.env.BENCH_MEMORY_SUCCESSES ?? 3);
const OUT = process.env.BENCH_OUT ?? new URL("./RESULTS.md", import.meta.url).pathname;
const ROOT = new URL("..", import.meta.url).pathname;

/** Bytes of a Kubernetes memory quantity as the chart accepts it (bytes, Mi, Gi, M, G). */
function quantityBytes(q: string): number {
  const m = /^(\d+)(Mi|Gi|M|G)?$/.exec(q);
  if (!m) throw new Error(`unsupported quantity ${q}`);
  const unit = { Mi: 2 ** 20, Gi: 2 ** 30, M: 1e6, G: 1e9 }[m[2] ?? ""] ?? 1;
  return Number(m[1]) * unit;
}

function chartContainer(): { env: Record<string, string>; limitBytes: number } {
  const deployment = renderChart().find((d) => d.kind === "Deployment") as any;
  const container = deployment.spec.template.spec.containers[0];
  const env: Record<string, string> = {};
  for (const e of container.env ?? []) if (typeof e.value === "string") env[e.name] = e.value;
  return { env, limitBytes: quantityBytes(String(container.resources.limits.memory)) };
}

function statusOf(pid: number): { rss: number; hwm: number } {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB$`, "m").exec(text)?.[1] ?? NaN) * 1024;
  return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
}

/** The largest cronjob sync request (finished Jobs, as Metacontroller sends them) under `limit`. */
function bodyUnder(limit: number): { text: string; jobs: number } {
  let lo = 1;
  let hi = 10_000;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (Buffer.byteLength(JSON.stringify(cronJobRequest(mid))) <= limit - 1024) lo = mid;
    else hi = mid - 1;
  }
  return { text: JSON.stringify(cronJobRequest(lo)), jobs: lo };
}

function post(url: string, body: string, agent: http.Agent): Promise<{ status: number; retryAfter: number }> {
  return new Promise((resolve) => {
    const req = http.request(url, { method: "POST", agent, headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, retryAfter: Number(res.headers["retry-after"] ?? 0) }));
    });
    req.on("error", () => resolve({ status: 0, retryAfter: 1 }));
    req.end(body);
  });
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const { env: chartEnv, limitBytes } = chartContainer();
  const heapFlag = chartEnv.NODE_OPTIONS ?? "";
  execFileSync(process.execPath, [new URL("../node_modules/typescript/bin/tsc", import.meta.url).pathname, "-p", "tsconfig.build.json", "--outDir", ".tmp/bench-dist"], { cwd: ROOT, stdio: "inherit" });
  const bodyLimit = Number(chartEnv.BODY_LIMIT_BYTES ?? 8 * 1024 * 1024);
  const { text: big, jobs } = bodyUnder(bodyLimit);
  const small = JSON.stringify(cronJobRequest(1));

  const child = spawn(process.execPath, [...heapFlag.split(" ").filter(Boolean), ".tmp/bench-dist/main.js", "serve"], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...chartEnv, NODE_OPTIONS: "", PORT: "0", ADMIN_PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", NODE_ENV: "production" },
  });
  const hookUrl = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.on("line", (line) => {
      const parsed = JSON.parse(line) as { msg?: string; hookUrl?: string };
      if (parsed.msg === "metahooks listening" && parsed.hookUrl) {
        rl.removeAllListeners("line");
        child.stdout!.resume();
        resolve(parsed.hookUrl);
      }
    });
    child.once("exit", (code) => reject(new Error(`serve exited with ${code}`)));
  });
  let exited: string | undefined;
  child.once("exit", (code, signal) => (exited = `exit ${code ?? ""}${signal ?? ""}`));
  const idle = statusOf(child.pid!);

  let peakRss = 0;
  const sampler = setInterval(() => {
    try {
      peakRss = Math.max(peakRss, statusOf(child.pid!).rss);
    } catch {
      // the process is gone; reported below
    }
  }, 10);

  const counts: Record<string, number> = {};
  const smallCounts: Record<string, number> = {};
  const count = (into: Record<string, number>, status: number) => (into[status === 0 ? "connection error" : String(status)] = (into[status === 0 ? "connection error" : String(status)] ?? 0) + 1);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS + 4 });
  const started = Date.now();
  let done = false;
  // Small calls alongside: the service keeps answering ordinary parents.
  const smallLoop = (async () => {
    while (!done) {
      const r = await post(`${hookUrl}/sync/cronjob`, small, agent);
      count(smallCounts, r.status);
      await new Promise((res) => setTimeout(res, 50));
    }
  })();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      let ok = 0;
      for (let attempt = 0; attempt < 40 && ok < SUCCESSES && !exited; attempt++) {
        const r = await post(`${hookUrl}/sync/cronjob`, big, agent);
        count(counts, r.status);
        if (r.status === 200) ok++;
        else await new Promise((res) => setTimeout(res, Math.max(0.2, r.retryAfter) * 1000));
      }
    }),
  );
  done = true;
  await smallLoop;
  const seconds = (Date.now() - started) / 1000;
  clearInterval(sampler);
  const after = exited ? { rss: NaN, hwm: NaN } : statusOf(child.pid!);
  agent.destroy();
  child.kill("SIGTERM");

  const mib = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`;
  const lines = [
    "## Memory under the worst case (`npm run bench:memory`)",
    "",
    `Run of bench/memory.ts, ${startedAt.toISOString()}, Node ${process.version}, ${os.cpus().length} CPUs, load average before ${os.loadavg().map((l) => l.toFixed(2)).join(" / ")}.`,
    "",
    `- Service: \`node ${heapFlag} dist/main.js serve\` (compiled sources), environment from the chart's default values rendered by helm (${Object.keys(chartEnv).filter((k) => !k.endsWith("_IMAGE")).join(", ")}); MAX_CONCURRENT_HOOKS, MAX_INFLIGHT_BYTES and REQUEST_TIMEOUT_MS at their defaults.`,
    `- Chart memory limit: ${mib(limitBytes)}; heap flag from it: \`${heapFlag || "(none)"}\`.`,
    `- Load: ${CLIENTS} clients at once, each sending a ${mib(Buffer.byteLength(big))} cronjob sync request (${jobs} observed Jobs, just under BODY_LIMIT_BYTES) until ${SUCCESSES} succeeded, waiting \`Retry-After\` after each refusal; meanwhile one client sends a small sync call every 50 ms.`,
    "",
    "| measure | value |",
    "|---|---:|",
    `| RSS idle | ${mib(idle.rss)} |`,
    `| peak RSS (VmHWM) | ${mib(exited ? peakRss : after.hwm)} |`,
    `| peak RSS / chart limit | ${(((exited ? peakRss : after.hwm) / limitBytes) * 100).toFixed(0)} % |`,
    `| RSS after the run | ${mib(after.rss)} |`,
    `| duration | ${seconds.toFixed(1)} s |`,
    `| large calls by status | ${Object.entries(counts).map(([k, v]) => `${k}: ${v}`).join(", ")} |`,
    `| small calls by status | ${Object.entries(smallCounts).map(([k, v]) => `${k}: ${v}`).join(", ")} |`,
    `| process | ${exited ? `DIED (${exited})` : "alive"} |`,
    "",
    verdict(exited ? peakRss : after.hwm, limitBytes, exited, counts),
    "",
  ];
  const section = lines.join("\n");
  process.stdout.write(section + "\n");
  writeFileSync(OUT, withSection(OUT, { begin: BEGIN, end: END }, section, "last"));
  if (exited) process.exitCode = 1;
}

function verdict(peak: number, limit: number, exited: string | undefined, counts: Record<string, number>): string {
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const timeouts = counts["503"] ?? 0;
  const share = total ? ((timeouts / total) * 100).toFixed(1) : "0";
  if (exited || peak >= limit || counts["connection error"]) return "Verdict: NOT within the limit (see the table).";
  return (
    `Verdict: the peak stays at ${((peak / limit) * 100).toFixed(0)} % of the chart's limit and the process lives; overload is answered 429 with Retry-After. ` +
    `503 (time budget): ${timeouts} of ${total} large calls (${share} %), calls whose body was complete but waited behind other 8 MiB parses past HOOK_TIME_BUDGET_MS; compare the load average above.`
  );
}

const BEGIN = "<!-- npm run bench:memory: begin (generated by bench/memory.ts; edit outside these markers) -->";
const END = "<!-- npm run bench:memory: end -->";


await main();
