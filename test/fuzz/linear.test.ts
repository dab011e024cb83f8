/**
 * "Nothing slower than linear in input size": each sync route's parse → hook → serialize path is
 * timed at size n and 16·n and the ratio must stay far below quadratic (256). Only relative
 * comparisons with generous factors (limit 64 = 4× linear) and medians of several runs, never
 * absolute timings; a noisy neighbour gets one re-measurement.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { runHook } from "../../src/metacontroller/run-hook.ts";
import { routes, validRequest, observedChildren, NOW, type Route } from "./routes.ts";

const GROWTH = 16;
const LIMIT = 64;

function once(route: Route, text: string): number {
  const start = process.hrtime.bigint();
  try {
    const result = runHook(route.controller.def, route.hook, JSON.parse(text), NOW, route.controller.options);
    JSON.stringify(result.response);
  } catch {
    // errors are answers too; their cost counts the same
  }
  return Number(process.hrtime.bigint() - start);
}

function median(route: Route, text: string): number {
  once(route, text);
  once(route, text);
  const runs = Array.from({ length: 7 }, () => once(route, text)).sort((a, b) => a - b);
  return runs[3]!;
}

function ratio(route: Route, small: string, large: string): number {
  return median(route, large) / Math.max(1, median(route, small));
}

function assertLinear(route: Route, what: string, build: (n: number) => string, n: number): void {
  let r = ratio(route, build(n), build(n * GROWTH));
  if (r >= LIMIT) r = ratio(route, build(n), build(n * GROWTH));
  assert.ok(r < LIMIT, `${route.path}: ${what} ×${GROWTH} cost ×${r.toFixed(1)} (limit ${LIMIT}; linear ≈ ${GROWTH})`);
}

const syncRoutes = routes.filter((r) => r.hook !== "customize");

for (const route of syncRoutes) {
  test(`${route.path}: cost grows linearly with observed children`, () => {
    assertLinear(route, "observed children", (n) => JSON.stringify({ ...validRequest(route, 0), children: observedChildren(route.controller, n) }), 100);
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
  const base = syncRoutes.find((r) => r.hook === "sync")!;
  const quadratic: Route = {
    ...base,
    controller: {
      ...base.controller,
      def: {
        ...base.controller.def,
        sync: (request, now, options) => {
          const all = Object.values(request.children ?? {}).flatMap((m) => Object.values(m ?? {}));
          let pairs = 0;
          for (const a of all) for (const b of all) if ({ ...a.metadata }.name === b.metadata.name) pairs++;
          const result = base.controller.def.sync(request, now, options);
          return { ...result, decisions: pairs < 0 ? [] : result.decisions };
        },
      },
    },
  };
  const build = (n: number) => JSON.stringify({ ...validRequest(quadratic, 0), children: observedChildren(quadratic.controller, n) });
  assert.ok(ratio(quadratic, build(100), build(100 * GROWTH)) >= LIMIT, "a quadratic hook passed the linearity check");
});
