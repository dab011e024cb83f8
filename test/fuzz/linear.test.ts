/**
 * "Nothing slower than linear in input size": each route's parse → hook → serialize path is timed
 * at size n and 8·n and the ratio must stay far below quadratic (64). Only relative comparisons
 * with a generous factor (limit 32 = 4× linear), the fastest of several runs (the least disturbed
 * by other processes), and up to three attempts, never absolute timings. Sizes start large enough
 * that fixed costs and cache effects do not dominate the small case.
 */
import { test } from "node:test";
import v8 from "node:v8";
import vm from "node:vm";
import assert from "node:assert/strict";
import { runHook } from "../../src/metacontroller/run-hook.ts";
import { routes, validRequest, observedChildren, NOW, type Route } from "./routes.ts";

const GROWTH = 8;
const LIMIT = 32;

// A collection forced before each timed run keeps garbage left by earlier runs (a large body is
// megabytes) out of the window: otherwise the large case pays for the small ones' garbage, and on
// a busy machine that alone can look superlinear.
v8.setFlagsFromString("--expose-gc");
const collectGarbage = vm.runInNewContext("gc") as () => void;

function once(route: Route, text: string): number {
  collectGarbage();
  const start = process.hrtime.bigint();
  try {
    const result = runHook(route.controller.def, route.hook, JSON.parse(text), NOW, route.controller.options);
    JSON.stringify(result.response);
  } catch {
    // errors are answers too; their cost counts the same
  }
  return Number(process.hrtime.bigint() - start);
}

function fastest(route: Route, text: string): number {
  once(route, text);
  return Math.min(...Array.from({ length: 5 }, () => once(route, text)));
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
  // (ratio (8L + 64Q) / (L + Q) ≥ 32 needs Q ≥ 0.75 L); this hook's pair cost is about that.
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
          for (const a of all) for (const b of all) if ({ ...a.metadata, ...b.metadata }.name === a.metadata.name) pairs++;
          return { response: { status: { pairs }, children: [] }, decisions: [] };
        },
      },
    },
  };
  const build = (n: number) => JSON.stringify({ ...validRequest(quadratic, 0), children: observedChildren(quadratic.controller, n) });
  const r = ratio(quadratic, build(100), build(100 * GROWTH));
  assert.ok(r >= LIMIT, `a quadratic hook passed the linearity check (×${r.toFixed(1)})`);
});
