/**
 * Turns a V8 CPU profile (the inspector's `Profiler.stop` result) into time per step: each sample's
 * self time goes to the step of the innermost frame that has a source (built-ins such as
 * `JSON.parse` count to the JavaScript that called them), idle time is left out.
 */

/** The parts of a V8 `Profiler.Profile` this module reads. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  samples?: number[];
  timeDeltas?: number[];
}

/** Steps in the order the breakdown table lists them. */
export const STEPS = [
  "socket write syscalls (on a busy machine: also time preempted)",
  "node:http (socket, HTTP parse and write)",
  "express (routing, middleware, res.json)",
  "body read + JSON.parse",
  "JSON.stringify of the answer",
  "pino-http (request logger)",
  "pino (log line)",
  "prom-client (metrics)",
  "zod (request and response checks)",
  "croner (schedule)",
  "hook (src/controllers)",
  "runHook glue (src/metacontroller)",
  "HTTP layer (src/http, src/server.ts)",
  "other libraries",
  "garbage collection",
  "V8 and native (program)",
  "other",
] as const;

export type Step = (typeof STEPS)[number];

function stepOf(url: string, fn: string): Step {
  if (url.startsWith("node:")) return "node:http (socket, HTTP parse and write)";
  const nm = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (nm) {
    const pkg = nm[1]!;
    if (pkg === "body-parser" || pkg === "raw-body" || pkg === "iconv-lite") return "body read + JSON.parse";
    if (pkg === "express" && /response\.js$/.test(url) && fn === "stringify") return "JSON.stringify of the answer";
    if (["express", "router", "finalhandler", "type-is", "content-type", "media-typer", "mime-types", "mime-db", "on-finished", "depd", "send", "statuses", "http-errors", "parseurl", "path-to-regexp", "encodeurl", "escape-html", "cookie", "fresh", "qs", "debug", "ms", "merge-descriptors", "vary", "etag", "accepts", "negotiator", "proxy-addr", "forwarded", "ipaddr.js", "range-parser", "setprototypeof", "inherits", "unpipe", "ee-first", "bytes"].includes(pkg)) {
      return "express (routing, middleware, res.json)";
    }
    if (pkg === "pino-http") return "pino-http (request logger)";
    if (pkg === "pino" || pkg === "pino-std-serializers" || pkg === "sonic-boom" || pkg === "fast-redact" || pkg === "@pinojs/redact" || pkg === "quick-format-unescaped" || pkg === "atomic-sleep" || pkg === "safe-stable-stringify" || pkg === "on-exit-leak-free" || pkg === "thread-stream") {
      return "pino (log line)";
    }
    if (pkg === "prom-client" || pkg === "tdigest" || pkg === "bintrees") return "prom-client (metrics)";
    if (pkg === "zod") return "zod (request and response checks)";
    if (pkg === "croner") return "croner (schedule)";
    return "other libraries";
  }
  // The listener reads and parses bodies itself (src/http/body.ts) and writes 200 answers with
  // sendJson (src/http/listener.ts).
  if (/\/src\/http\/body\.ts$/.test(url)) return "body read + JSON.parse";
  if (/\/src\/http\/listener\.ts$/.test(url) && fn === "sendJson") return "JSON.stringify of the answer";
  if (/\/src\/controllers\//.test(url) || /\/src\/kube\//.test(url)) return "hook (src/controllers)";
  if (/\/src\/metacontroller\//.test(url)) return "runHook glue (src/metacontroller)";
  if (/\/src\/(http|admission)\//.test(url) || /\/src\/[^/]+\.ts$/.test(url)) return "HTTP layer (src/http, src/server.ts)";
  return "other";
}

/**
 * Self time per step, in microseconds, over the whole profile (idle excluded).
 */
export function breakdown(profile: CpuProfile): Record<Step, number> {
  const out = Object.fromEntries(STEPS.map((s) => [s, 0])) as Record<Step, number>;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const memo = new Map<number, Step | undefined>();
  const classify = (id: number): Step | undefined => {
    if (memo.has(id)) return memo.get(id);
    const n = byId.get(id)!;
    const { functionName: fn, url } = n.callFrame;
    let step: Step | undefined;
    if (fn === "(idle)" || fn === "(root)") step = undefined;
    else if (fn === "(garbage collector)") step = "garbage collection";
    else if (fn === "(program)") step = "V8 and native (program)";
    // The write system calls of a socket: on loopback they also run the receiver's side, and a
    // woken client often takes the core, so wall-clock samples pile up here on a busy machine.
    else if (!url && /^write(v|Buffer|Utf8String|Latin1String|AsciiString)$/.test(fn)) step = "socket write syscalls (on a busy machine: also time preempted)";
    else if (url) step = stepOf(url, fn);
    else {
      const p = parent.get(id);
      step = p === undefined ? "other" : (classify(p) ?? "other");
    }
    memo.set(id, step);
    return step;
  };
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const step = classify(samples[i]!);
    // timeDeltas[i] is the time since the previous sample: the time spent at sample i-1's frame
    // is best approximated by the next delta, but over thousands of samples the shift is noise.
    if (step) out[step] += Math.max(0, deltas[i] ?? 0);
  }
  return out;
}
