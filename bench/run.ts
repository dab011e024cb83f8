/**
 * `npm run bench`: the hook service side by side with the floor of any JSON hook (a bare
 * node:http parse+stringify echo) and a minimal Python hook (bench/python-hook.py), each in its
 * own process, driven by a microsecond-resolution load client (bench/load.ts). Writes its section
 * of bench/RESULTS.md:
 *   - p50/p99/mean latency and server CPU per request at 0, 5, 10, 100 and 1000 observed Jobs,
 *     with 1 and with 10 connections, and the ratios to the echo;
 *   - throughput at 10 connections for small requests, per core (requests per server CPU-second);
 *   - heap after forced GC and RSS over 100k requests;
 *   - a CPU-profile breakdown (µs per request per step) of the hook service;
 *   - CLI start-up; schedule evaluation cost.
 * Servers are measured in alternating rounds so drift in a shared machine's load hits them alike.
 * About four minutes on an idle 2-core machine (most of it the 100k-request heap run).
 *
 * Env: BENCH_SECONDS (per server per round, default 1), BENCH_ROUNDS (default 2),
 * BENCH_HEAP_REQUESTS (default 100000), BENCH_OUT (default bench/RESULTS.md),
 * BENCH_BEFORE (a checkout of another revision with this bench/ copied in: its hook is measured
 * too, as "before"), BENCH_SIZES (comma list, default 0,5,10,100,1000).
 */
import { fork, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { cronJobRequest, NOW } from "./fixtures.ts";
import { cibuildScenarios } from "./cibuild.ts";
import { measure, percentile, type LoadResult } from "./load.ts";
import { STEPS, type Step } from "./profile.ts";
import { scheduleCost, type ScheduleCost } from "./schedule.ts";
import { withSection } from "./results-file.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 1);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const HEAP_REQUESTS = Number(process.env.BENCH_HEAP_REQUESTS ?? 100_000);
const OUT = process.env.BENCH_OUT ?? new URL("./RESULTS.md", import.meta.url).pathname;
const BEFORE = process.env.BENCH_BEFORE;
const SIZES = (process.env.BENCH_SIZES ?? "0,5,10,100,1000").split(",").map(Number);
const ROOT = new URL("..", import.meta.url).pathname;
const TICK_US = 1e6 / 100; // /proc/<pid>/stat counts CPU in clock ticks (USER_HZ = 100 on Linux)
/** Hook calls per slot of an every-minute CronJob in the emulated loop (`npm run demo`: 8,642 calls for 1,440 slots). */
const SYNCS_PER_SLOT = 6;

interface Server {
  name: string;
  child: ChildProcess;
  hookUrl: string;
  /** the path to POST to, relative to hookUrl, for a route (echo and Python take any path) */
  route: (path: string) => string;
}

async function startNode(name: string, mode: "hook" | "echo", dir: string, now?: string): Promise<Server> {
  const child = fork(`${dir}/bench/servers.ts`, [mode], {
    cwd: dir,
    execArgv: ["--import", "tsx", "--expose-gc"],
    // Log lines go to /dev/null: pino formats and writes every line, as in production.
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    env: { ...process.env, NODE_ENV: "production", ...(now ? { BENCH_NOW: now } : {}) },
  });
  const hello = await new Promise<{ hookUrl: string }>((resolve, reject) => {
    child.once("message", (m) => resolve(m as { hookUrl: string }));
    child.once("exit", (code) => reject(new Error(`${name} server exited with ${code}`)));
  });
  return { name, child, hookUrl: hello.hookUrl, route: mode === "hook" ? (p) => p : () => "/" };
}

async function startPython(now: Date): Promise<Server | undefined> {
  const child = spawn("python3", [new URL("./python-hook.py", import.meta.url).pathname, String(now.getTime() / 1000)], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once("line", resolve);
      child.once("error", reject);
      child.once("exit", (code) => reject(new Error(`python hook exited with ${code}`)));
    });
    return { name: "python", child, hookUrl: (JSON.parse(line) as { hookUrl: string }).hookUrl, route: () => "/" };
  } catch (err) {
    process.stderr.write(`python hook not measured: ${(err as Error).message}\n`);
    return undefined;
  }
}

function ask<T>(s: Server, op: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { op?: string }) => {
      if (m.op !== op) return;
      s.child.off("message", on);
      resolve(m as T);
    };
    s.child.on("message", on);
    s.child.send({ op });
  });
}

/** CPU time (user + system) of a process so far, in microseconds. */
function cpuUs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_US;
}

interface Sample {
  requests: number;
  seconds: number;
  latenciesUs: number[];
  failures: number;
  cpuUs: number;
}

function merge(a: Sample | undefined, b: Sample): Sample {
  if (!a) return b;
  return {
    requests: a.requests + b.requests,
    seconds: a.seconds + b.seconds,
    latenciesUs: [...a.latenciesUs, ...b.latenciesUs].sort((x, y) => x - y),
    failures: a.failures + b.failures,
    cpuUs: a.cpuUs + b.cpuUs,
  };
}

async function sample(s: Server, path: string, body: string, connections: number, seconds: number, minRequests: number): Promise<Sample> {
  const url = s.hookUrl + s.route(path);
  const before = cpuUs(s.child.pid!);
  const r: LoadResult = await measure(url, body, { connections, seconds, minRequests, maxSeconds: Math.max(seconds * 6, 10) });
  const cpu = cpuUs(s.child.pid!) - before;
  return { requests: r.requests, seconds: r.seconds, latenciesUs: r.latenciesUs, failures: r.failures, cpuUs: cpu };
}

interface Stat {
  p50: number;
  p99: number;
  mean: number;
  rps: number;
  cpuPerReq: number;
  perCore: number;
  requests: number;
  failures: number;
}

function stat(x: Sample): Stat {
  const mean = x.latenciesUs.reduce((s, v) => s + v, 0) / Math.max(1, x.latenciesUs.length);
  return {
    p50: percentile(x.latenciesUs, 50),
    p99: percentile(x.latenciesUs, 99),
    mean,
    rps: x.requests / x.seconds,
    cpuPerReq: x.cpuUs / x.requests,
    perCore: x.requests / (x.cpuUs / 1e6),
    requests: x.requests,
    failures: x.failures,
  };
}

/** Measures every server on one body, alternating servers each round. */
async function compare(servers: Server[], path: string, body: string, connections: number, minRequests: number): Promise<Map<string, Stat>> {
  const acc = new Map<string, Sample>();
  for (const s of servers) await sample(s, path, body, connections, 0.3, 5); // warm-up (JIT, sockets)
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? servers : [...servers].reverse();
    for (const s of order) acc.set(s.name, merge(acc.get(s.name), await sample(s, path, body, connections, SECONDS, minRequests)));
  }
  return new Map([...acc].map(([k, v]) => [k, stat(v)]));
}

const log = (s: string) => process.stderr.write(`${s}\n`);
const f = (n: number, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : "–");
const x = (n: number) => (Number.isFinite(n) ? `×${n.toFixed(2)}` : "–");

interface SizeResult {
  jobs: number;
  bytes: number;
  byConns: Map<number, Map<string, Stat>>;
}

/** Compiles `dir`'s src/ to dist/ (`npm run build`): the service is measured as production runs it. */
function build(dir: string): void {
  const result = spawnSync(process.execPath, ["scripts/build.mjs"], { cwd: dir, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`npm run build failed in ${dir}`);
}

async function main(): Promise<void> {
  build(ROOT);
  if (BEFORE) build(BEFORE);
  const startedAt = new Date();
  const loadBefore = os.loadavg();
  const cronNow = NOW.toISOString();
  const echo = await startNode("echo", "echo", ROOT);
  const hook = await startNode("metahooks", "hook", ROOT, cronNow);
  const servers: Server[] = [echo, hook];
  const before = BEFORE ? await startNode("before", "hook", BEFORE, cronNow) : undefined;
  if (before) servers.push(before);
  const python = await startPython(NOW);
  if (python) servers.push(python);
  const extra: Server[] = [];
  try {
    // Sanity: every server answers 200 to every body, else we would be timing error paths.
    const bodies = new Map(SIZES.map((n) => [n, JSON.stringify(cronJobRequest(n))]));
    for (const s of servers) {
      for (const [n, body] of bodies) {
        const res = await fetch(s.hookUrl + s.route("/sync/cronjob"), { method: "POST", body, headers: { "content-type": "application/json" } });
        const text = await res.text();
        if (res.status !== 200) throw new Error(`${s.name}, ${n} Jobs: answered ${res.status}: ${text.slice(0, 300)}`);
      }
    }

    // Warm every server on every small body first (JIT, inline caches, first-call set-ups), so the
    // first measured row is not also the warm-up of the whole process.
    for (const s of servers) for (const [n, body] of bodies) if (n <= 10) await sample(s, "/sync/cronjob", body, 1, 1, 200);

    const sizes: SizeResult[] = [];
    for (const [n, body] of bodies) {
      const byConns = new Map<number, Map<string, Stat>>();
      for (const c of [1, 10]) {
        const m = await compare(servers, "/sync/cronjob", body, c, n >= 1000 ? 10 : 50);
        byConns.set(c, m);
        log(`${n} Jobs, ${c} conn: ` + [...m].map(([k, v]) => `${k} p50 ${f(v.p50)} µs p99 ${f(v.p99)} µs cpu ${f(v.cpuPerReq)} µs/req`).join(" | "));
      }
      sizes.push({ jobs: n, bytes: Buffer.byteLength(body), byConns });
    }

    // CIBuild: one connection, hook against the echo (Python has no CIBuild hook).
    const cib: { name: string; bytes: number; stats: Map<string, Stat> }[] = [];
    for (const sc of cibuildScenarios()) {
      const h = await startNode(`cibuild ${sc.now}`, "hook", ROOT, sc.now);
      extra.push(h);
      const named = { ...h, name: "metahooks" };
      const stats = await compare([echo, named], sc.path, sc.body, 1, 50);
      cib.push({ name: sc.name, bytes: Buffer.byteLength(sc.body), stats });
      log(`${sc.name}: ${[...stats].map(([k, v]) => `${k} p50 ${f(v.p50)} µs`).join(" | ")}`);
      h.child.kill("SIGTERM");
    }

    // CPU profile of the hook (and of "before") at 5 and 100 Jobs, one connection.
    const profiles: { server: string; jobs: number; requests: number; steps: Record<Step, number> }[] = [];
    for (const n of [5, 100].filter((k) => bodies.has(k))) {
      for (const s of [hook, ...(before ? [before] : [])]) {
        await ask(s, "profile-start");
        const r = await sample(s, "/sync/cronjob", bodies.get(n)!, 1, 2 * SECONDS, n >= 100 ? 100 : 1000);
        const { steps } = await ask<{ steps: Record<Step, number> }>(s, "profile-stop");
        // The profiler samples wall time: a thread preempted in the middle of a step (a busy
        // machine) makes every step look longer. Scaling the shares to the CPU the process was
        // really given in the window turns them into CPU time per step.
        const sampled = STEPS.reduce((t, st) => t + steps[st], 0);
        const scale = sampled > 0 ? Math.min(1, r.cpuUs / sampled) : 1;
        for (const st of STEPS) steps[st] *= scale;
        profiles.push({ server: s.name, jobs: n, requests: r.requests, steps });
        log(`profile ${s.name} ${n} Jobs: ${r.requests} requests`);
      }
    }

    // Heap after forced GC and RSS, every fifth of HEAP_REQUESTS (5 Jobs, 10 connections).
    const heap: { requests: number; heapUsed: number; rss: number }[] = [];
    const heapBody = JSON.stringify(cronJobRequest(5));
    let done = 0;
    const h0 = await ask<{ heapUsed: number; rss: number }>(hook, "heap");
    heap.push({ requests: 0, heapUsed: h0.heapUsed, rss: h0.rss });
    const step = Math.ceil(HEAP_REQUESTS / 5);
    let heapSeconds = 0;
    while (done < HEAP_REQUESTS) {
      const r = await measure(hook.hookUrl + "/sync/cronjob", heapBody, { connections: 10, seconds: 0, minRequests: step, maxRequests: step, maxSeconds: 600 });
      done += r.requests;
      heapSeconds += r.seconds;
      const h = await ask<{ heapUsed: number; rss: number }>(hook, "heap");
      heap.push({ requests: done, heapUsed: h.heapUsed, rss: h.rss });
      log(`heap after ${done} requests: ${f(h.heapUsed / 2 ** 20, 1)} MiB, RSS ${f(h.rss / 2 ** 20, 1)} MiB`);
    }

    const cli = cliStartup();
    const schedule = await scheduleCost();
    const loadAfter = os.loadavg();
    const section = report({ startedAt, loadBefore, loadAfter, sizes, servers: servers.map((s) => s.name), cib, profiles, heap, heapSeconds, cli, schedule });
    writeFileSync(OUT, withSection(OUT, { begin: BEGIN, end: END }, section, "first"));
    log(`wrote ${OUT}`);
  } finally {
    for (const s of [...servers, ...extra]) s.child.kill("SIGTERM");
  }
}

/** Median wall time of the CLI answering one sync request, and of `node -e 0` for reference. */
function cliStartup(): { cliMs: number; nodeMs: number } {
  const time = (args: string[], input?: Buffer) => {
    const runs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = process.hrtime.bigint();
      const r = spawnSync(process.execPath, args, { cwd: ROOT, input, stdio: ["pipe", "ignore", "ignore"] });
      if (r.status !== 0) return NaN;
      runs.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    return runs.sort((a, b) => a - b)[1]!;
  };
  const request = readFileSync(`${ROOT}/examples/cronjob/sync-request.json`);
  return {
    cliMs: time(["bin/metahooks.js", "sync", "cronjob", "--now", "2026-01-05T12:00:30Z"], request),
    nodeMs: time(["-e", "0"]),
  };
}

const BEGIN = "<!-- npm run bench: begin (generated by bench/run.ts; edit outside these markers) -->";
const END = "<!-- npm run bench: end -->";


function machine(): string[] {
  const cpu = os.cpus()[0]?.model ?? "unknown";
  return [
    `- CPU: ${cpu}; \`nproc\` = ${os.availableParallelism()}; memory ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    `- Node ${process.version}, ${pythonVersion()}, on ${os.type()} ${os.release()} (${process.arch})`,
  ];
}

function pythonVersion(): string {
  const r = spawnSync("python3", ["--version"], { encoding: "utf8" });
  return (r.stdout || r.stderr || "python3 unavailable").trim();
}

function report(r: {
  startedAt: Date;
  loadBefore: number[];
  loadAfter: number[];
  sizes: SizeResult[];
  servers: string[];
  cib: { name: string; bytes: number; stats: Map<string, Stat> }[];
  profiles: { server: string; jobs: number; requests: number; steps: Record<Step, number> }[];
  heap: { requests: number; heapUsed: number; rss: number }[];
  heapSeconds: number;
  cli: { cliMs: number; nodeMs: number };
  schedule: ScheduleCost | undefined;
}): string {
  const L: string[] = [];
  const others = r.servers.filter((s) => s !== "echo");
  L.push("## Service under load (`npm run bench`)", "");
  L.push(`Fresh run of \`npm run bench\` (bench/run.ts), ${r.startedAt.toISOString()}.`, "");
  L.push("### Machine and method", "", ...machine());
  L.push(
    `- Load average (1/5/15 min) before: ${r.loadBefore.map((v) => v.toFixed(2)).join(" / ")}, after: ${r.loadAfter.map((v) => v.toFixed(2)).join(" / ")}. ` +
      "Client, servers and anything else running share the cores: compare rows of one run with each other (same body, alternating rounds), not with other machines.",
    `- Servers, each its own process: **echo** — bare \`node:http\` that reads the body, \`JSON.parse\`s it and answers \`JSON.stringify\` of it (the floor of any JSON hook on this runtime); ` +
      "**metahooks** — `startService` from the compiled `dist/` (as `node dist/main.js serve` runs in the image; `npm run build` first) with every feature on (express, pino at `info` writing one line per call to stdout → /dev/null, prom-client metrics, request and response checks); " +
      (r.servers.includes("before") ? "**before** — the same service from the revision in `BENCH_BEFORE`; " : "") +
      "**python** — bench/python-hook.py, a minimal hook like Metacontroller's Python examples (stdlib `http.server.HTTPServer`, one request at a time, HTTP/1.0 so one connection per call; `json`; keeps the observed Jobs, builds one; no validation).",
    `- Load: bench/load.ts, a closed-loop client on raw sockets (µs timer), keep-alive where the server allows it. Per body and connection count: 0.3 s warm-up each, then ${ROUNDS} rounds × ${SECONDS} s per server in alternating order.`,
    "- Latency is the client's round trip (request written → last byte read). CPU is the server process' user+system time (`/proc/<pid>/stat`, 10 ms ticks) divided by the requests served: it does not count waiting for a core, so it is the steadier number on a shared machine.",
    "",
  );

  L.push("### Summary: service time relative to the echo, one connection", "");
  L.push("p50 latency ratio to the echo at 1 connection, server CPU per request ratio in brackets (lower is better; the echo is ×1).", "");
  L.push(`| observed Jobs | body | ${others.join(" | ")} |`);
  L.push(`|---:|---:|${others.map(() => "---:").join("|")}|`);
  for (const s of r.sizes) {
    const m = s.byConns.get(1)!;
    const e = m.get("echo")!;
    L.push(`| ${s.jobs} | ${f(s.bytes / 1024, 1)} KiB | ${others.map((o) => (m.get(o) ? `${x(m.get(o)!.p50 / e.p50)} (${x(m.get(o)!.cpuPerReq / e.cpuPerReq)})` : "–")).join(" | ")} |`);
  }
  L.push("");
  L.push("Goals: metahooks faster than the Python hook at every size; within ×1.6 of the echo at 10 Jobs and ×1.1 at 100 and 1000.", "");
  for (const s of r.sizes) {
    const m = s.byConns.get(1)!;
    const e = m.get("echo")!;
    const h = m.get("metahooks")!;
    const p = m.get("python");
    const bits = [`${s.jobs} Jobs: metahooks p50 ${f(h.p50)} µs`];
    if (p) bits.push(`python ${f(p.p50)} µs → ${h.p50 < p.p50 ? "faster" : "NOT faster"} than Python (CPU ${f(h.cpuPerReq)} vs ${f(p.cpuPerReq)} µs/req)`);
    const limit = s.jobs === 10 ? 1.6 : s.jobs >= 100 ? 1.1 : undefined;
    if (limit) bits.push(`echo ratio ${x(h.p50 / e.p50)} (CPU ${x(h.cpuPerReq / e.cpuPerReq)}) vs goal ×${limit} → ${h.p50 / e.p50 <= limit ? "met" : "NOT met"}`);
    L.push(`- ${bits.join("; ")}.`);
  }
  L.push("");

  L.push("### Latency per size", "");
  L.push(
    "µs; CPU = server CPU µs per request; req/s is the wall-clock rate of this run (shared machine). " +
      "\"failed\" counts answers other than 200: with ten 3.3 MiB bodies at once metahooks answers some with 429 and `Retry-After`, " +
      "because they exceed its budget of request bytes in flight (MAX_INFLIGHT_BYTES, by default 2 × BODY_LIMIT_BYTES = 16 MiB), as designed.",
    "",
  );
  for (const s of r.sizes) {
    L.push(`**${s.jobs} observed Jobs** (${f(s.bytes / 1024, 1)} KiB request)`, "");
    L.push("| server | conns | p50 | p99 | mean | CPU/req | req/s | p50 / echo | p99 / echo | CPU / echo | requests |");
    L.push("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (const [c, m] of s.byConns) {
      const e = m.get("echo")!;
      for (const [name, v] of m) {
        L.push(`| ${name} | ${c} | ${f(v.p50)} | ${f(v.p99)} | ${f(v.mean)} | ${f(v.cpuPerReq)} | ${f(v.rps)} | ${x(v.p50 / e.p50)} | ${x(v.p99 / e.p99)} | ${x(v.cpuPerReq / e.cpuPerReq)} | ${v.requests}${v.failures ? ` (${v.failures} failed)` : ""} |`);
      }
    }
    L.push("");
  }

  L.push("### Throughput per core, 10 connections, small requests", "");
  L.push("Requests per second of server CPU (one core fully used by the server process), and the wall-clock rate of this run.", "");
  L.push(`| observed Jobs | ${r.servers.map((n) => `${n} req/CPU-s`).join(" | ")} | ${r.servers.map((n) => `${n} req/s`).join(" | ")} |`);
  L.push(`|---:|${r.servers.map(() => "---:").join("|")}|${r.servers.map(() => "---:").join("|")}|`);
  for (const s of r.sizes.filter((k) => k.jobs <= 10)) {
    const m = s.byConns.get(10)!;
    L.push(`| ${s.jobs} | ${r.servers.map((n) => f(m.get(n)?.perCore ?? NaN)).join(" | ")} | ${r.servers.map((n) => f(m.get(n)?.rps ?? NaN)).join(" | ")} |`);
  }
  L.push("");

  L.push("### Capacity per replica (input to the README's capacity model)", "");
  L.push(
    `A replica runs hooks on one core (Node's event loop). Syncs per second per replica = 10⁶ / (server CPU µs per sync at 10 connections). ` +
      `CronJobs on \`*/1\` per replica assume ${SYNCS_PER_SLOT} syncs per slot (\`npm run demo\`: the slot's wake-up, then each change Metacontroller sees) and the replica at half a core.`,
    "",
  );
  L.push("| observed Jobs | CPU µs per sync | syncs/s per replica | CronJobs on `*/1` per replica at 50 % CPU |", "|---:|---:|---:|---:|");
  for (const s of r.sizes) {
    const h = s.byConns.get(10)!.get("metahooks")!;
    const perSecond = 1e6 / h.cpuPerReq;
    L.push(`| ${s.jobs} | ${f(h.cpuPerReq)} | ${f(perSecond)} | ${f((0.5 * perSecond * 60) / SYNCS_PER_SLOT)} |`);
  }
  L.push("");

  if (r.cib.length) {
    L.push("### CIBuild sync, one connection", "");
    L.push("| scenario | body | metahooks p50 / p99 µs | echo p50 / p99 µs | p50 / echo | CPU / echo |", "|---|---:|---:|---:|---:|---:|");
    for (const c of r.cib) {
      const h = c.stats.get("metahooks")!;
      const e = c.stats.get("echo")!;
      L.push(`| ${c.name} | ${f(c.bytes / 1024, 1)} KiB | ${f(h.p50)} / ${f(h.p99)} | ${f(e.p50)} / ${f(e.p99)} | ${x(h.p50 / e.p50)} | ${x(h.cpuPerReq / e.cpuPerReq)} |`);
    }
    L.push("");
  }

  L.push("### Where the time goes (CPU profile)", "");
  L.push(
    "V8 CPU profile of the service process (inspector, 100 µs sampling, one connection), self time per step divided by the requests served in the window, scaled to the CPU time the process was given in that window (the profiler samples wall time, which a busy machine stretches). " +
      "Built-ins count to the JavaScript that called them (`JSON.parse` to the listener's body reader, `JSON.stringify` to `sendJson`, or to body-parser and express' `res.json` in older revisions). The profiler itself adds a little to every step.",
    "",
  );
  const cols = r.profiles.map((p) => `${p.server}, ${p.jobs} Jobs`);
  L.push(`| step (µs per request) | ${cols.join(" | ")} |`, `|---|${cols.map(() => "---:").join("|")}|`);
  for (const st of STEPS) {
    if (r.profiles.every((p) => p.steps[st] / p.requests < 0.5)) continue;
    L.push(`| ${st} | ${r.profiles.map((p) => f(p.steps[st] / p.requests, 1)).join(" | ")} |`);
  }
  L.push(`| **total (not idle)** | ${r.profiles.map((p) => `**${f(STEPS.reduce((t, st) => t + p.steps[st], 0) / p.requests, 1)}**`).join(" | ")} |`);
  L.push("");

  L.push("### Memory", "");
  L.push(`Heap after a forced GC (\`--expose-gc\`, two \`gc()\` calls) and RSS of the service process, every ${f(r.heap[1]?.requests ?? 0)} requests (cronjob sync, 5 Jobs, 10 connections; ${f(r.heapSeconds, 0)} s in all):`, "");
  L.push("| requests | heapUsed after GC | RSS |", "|---:|---:|---:|");
  for (const h of r.heap) L.push(`| ${h.requests} | ${f(h.heapUsed / 2 ** 20, 2)} MiB | ${f(h.rss / 2 ** 20, 1)} MiB |`);
  const first = r.heap[1] ?? r.heap[0]!;
  const last = r.heap[r.heap.length - 1]!;
  const growth = last.heapUsed - first.heapUsed;
  L.push("", `Heap growth from the first to the last checkpoint: ${growth >= 0 ? "+" : ""}${f(growth / 1024, 0)} KiB → ${Math.abs(growth) < 1024 * 1024 ? "flat (under 1 MiB)" : "GROWING"}. RSS moves with the allocator and is reported, not judged.`, "");

  L.push("### CLI start-up", "");
  L.push(`\`metahooks sync cronjob\` answering examples/cronjob/sync-request.json: ${f(r.cli.cliMs)} ms wall (median of 3; TypeScript through tsx, or dist/ when built), against ${f(r.cli.nodeMs)} ms for \`node -e 0\`.`, "");

  L.push("### Schedule evaluation", "");
  if (r.schedule) {
    L.push(r.schedule.description, "");
    L.push("| case | µs per call (median of runs) |", "|---|---:|");
    for (const c of r.schedule.cases) L.push(`| ${c.name} | ${f(c.microseconds, 2)} |`);
    L.push("", `Ratio year/minute: ${f(r.schedule.ratio, 2)}.`, "");
  }
  return `${L.join("\n")}\n`;
}

await main();
process.exit(0);
