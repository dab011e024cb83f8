/**
 * "Nothing slower than linear in input size": each route's parse → hook → serialize path is timed
 * at size n and 8·n and the ratio must stay far below quadratic (64). Only relative comparisons
 * with a generous factor (limit 32 = 4× linear), the fastest of several runs, and up to three
 * attempts, never absolute timings. Sizes start large enough that fixed costs and cache effects do
 * not dominate the small case.
 *
 * The cost is this process's CPU time, not wall time: on a loaded machine (load average 30 on two
 * cores) a run is descheduled for longer than it computes, and wall-time ratios of 36–55 came out
 * of a linear path. CPU time counts only the work done, so other processes no longer enter the
 * ratio, while a quadratic path still spends 64× the CPU at 8× the size.
 */
import { test } from "node:test";
import v8 from "node:v8";
import vm from "node:vm";
import assert from "node:assert/strict";
import { runHook } from "../../src/metacontroller/run-hook.ts";
import { routes, validRequest, observedChildren, NOW, type Route } from "./routes.ts";

const GROWTH = 8;
const LIMIT = 32;
// Runs per size, the fastest counted. CPU time leaves out the waits that made more runs necessary
// with wall time, and each run pays a forced full collection (tens of ms with this heap) that
// dwarfs the small cases, so three runs and up to three attempts keep the file at a few seconds.
const RUNS = 3;

// A collection forced before each timed run keeps garbage left by earlier runs (a large body is
// megabytes) out of the window: otherwise the large case pays for the small ones' garbage, and on
// a busy machine that alone can look superlinear.
v8.setFlagsFromString("--expose-gc");
const collectGarbage = vm.runInNewContext("gc") as () => void;

// This thread's CPU time where node has it (22.x+: process.threadCpuUsage), else the process's:
// the test process runs nothing else meanwhile, so the difference is V8's helper threads (the
// collection above keeps them mostly idle during the window). Microseconds, as getrusage reports.
const cpuUsage: () => NodeJS.CpuUsage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage?.bind(process) ?? (() => process.cpuUsage());

/** CPU microseconds spent by parse → hook → serialize of one request text. */
function once(route: Route, text: string): number {
  collectGarbage();
  const start = cpuUsage();
  try {
    const result = runHook(route.controller.def, route.hook, JSON.parse(text), NOW, route.controller.options);
    JSON.stringify(result.response);
  } catch {
    // errors are answers too; their cost counts the same
  }
  const end = cpuUsage();
  return end.user - start.user + (end.system - start.system);
}

function fastest(route: Route, text: string): number {
  once(route, text);
  return Math.min(...Array.from({ length: RUNS }, () => once(route, text)));
}

function ratio(route: Route, small: string, large: string): number {
  return fastest(route, large) / Math.max(1, fastest(route, small));
}

function assertLinear(route: Route, what: string, build: (n: number) => string, n: number): void {
  const small = build(n);
  const large = build(n * GROWTH);
  let r = Infinity;
  for (let attempt = 0; attempt < 3 && r >= LIMIT; attempt++) r = Math.min(r, ratio(route, small, large));
  assert.ok(r < LIMIT, `${route.path}: ${what} ×${GROWTH} cost ×${r.toFixed(1)} (limit ${LIMIT}; linear ≈ ${GROWTH})`);
}

const syncRoutes = routes.filter((r) => r.hook !== "customize");

for (const route of syncRoutes) {
  test(`${route.path}: cost grows linearly with observed children`, () => {
    assertLinear(route, "observed children", (n) => JSON.stringify({ ...validRequest(route, 0), children: observedChildren(route.controller, n) }), 400);
  });

  test(`${route.path}: cost grows linearly with string lengths in the spec and metadata`, () => {
    for (const field of ["schedule", "timeZone", "concurrencyPolicy"]) {
      assertLinear(
        route,
        `spec.${field} length`,
        (n) => {
          const req = validRequest(route);
          req.parent.spec[field] = "* ".repeat(n);
          return JSON.stringify(req);
        },
        500,
      );
    }
    assertLinear(
      route,
      "annotation length",
      (n) => {
        const req = validRequest(route);
        req.parent.metadata.annotations = { note: "x".repeat(n * 10) };
        return JSON.stringify(req);
      },
      500,
    );
  });

  test(`${route.path}: cost grows linearly with nesting depth inside observed children`, () => {
    assertLinear(
      route,
      "nesting depth",
      (n) => {
        const req = validRequest(route, 1);
        const text = JSON.stringify(req);
        return text.replace('"status":{"active":1', `"status":{"deep":${'{"a":'.repeat(n)}1${"}".repeat(n)},"active":1`);
      },
      50,
    );
  });
}

test("the linearity check catches a quadratic hook", () => {
  // The check flags quadratic work once it is comparable to the linear work at the small size
  // (ratio (8L + 64Q) / (L + Q) ≥ 32 needs Q ≥ 0.75 L). Object spreads per pair were not enough:
  // the large case runs long enough to be optimised, and the optimised code makes a spread much
  // cheaper than the small case's unoptimised one, so three, six and even twelve spreads per pair
  // came out at ×27–32 on a slower machine. Serializing both objects of each pair cannot be
  // optimised away: at 70 and 560 children the ratio was ×38–68 there. Like the real checks, the
  // best of three attempts counts.
  const base = syncRoutes.find((r) => r.hook === "sync")!;
  const quadratic: Route = {
    ...base,
    controller: {
      ...base.controller,
      def: {
        ...base.controller.def,
        sync: (request) => {
          const all = Object.values(request.children ?? {}).flatMap((m) => Object.values(m ?? {}));
          let pairs = 0;
          for (const a of all) for (const b of all) if (JSON.stringify(a.metadata) < JSON.stringify(b.metadata)) pairs++;
          return { response: { status: { pairs }, children: [] }, decisions: [] };
        },
      },
    },
  };
  const build = (n: number) => JSON.stringify({ ...validRequest(quadratic, 0), children: observedChildren(quadratic.controller, n) });
  const small = build(70);
  const large = build(70 * GROWTH);
  let r = 0;
  for (let attempt = 0; attempt < 3 && r < LIMIT; attempt++) r = Math.max(r, ratio(quadratic, small, large));
  assert.ok(r >= LIMIT, `a quadratic hook passed the linearity check (×${r.toFixed(1)})`);
});
