/**
 * Hostile input at every hook route (enumerated from the registry). Invariants: the process never
 * crashes; every answer is 200 with a valid response or a 4xx/5xx JSON error; an invalid parent
 * spec never drops an observed child. Run counts are bounded so `npm test` stays fast; set
 * FUZZ_RUNS to go deeper locally.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  routes,
  validRequest,
  useFuzzApp,
  post,
  checkAnswer,
  specIsInvalid,
  observedKeys,
  desiredKeys,
  type Route,
} from "./routes.ts";

const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const LIMIT = 256 * 1024;
const app = useFuzzApp(LIMIT);

assert.ok(routes.length >= 2, "no routes found in the registry");

// ---------------------------------------------------------------------------------------------
// Arbitraries

const POLLUTION_KEYS = ["__proto__", "constructor", "prototype", "hasOwnProperty", "toString", "valueOf"];

/** Numbers that break naive arithmetic: negatives, zero, huge, tiny, non-integers. */
const absurdNumber = fc.oneof(
  fc.constantFrom(-1, 0, -0, 1e308, -1e308, 5e-324, 2 ** 53, 2 ** 53 + 2, -(2 ** 31), 2 ** 31, 2 ** 63, 0.5, -3600, 1e21, 123456789012),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Strings of every unpleasant shape, including unicode names and control characters. */
const nastyString = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "héllo-wörld",
    "日本語",
    "💥🔥",
    "a".repeat(300),
    "-leading-dash",
    "UPPER",
    "dots.in.name",
    "../../etc/passwd",
    "\u202e\u200b",
    "null",
    "true",
    "1e308",
    ...POLLUTION_KEYS,
  ),
);

/** An object whose keys are prototype-pollution names (own properties, as JSON.parse makes them). */
const pollutedObject = fc.dictionary(fc.constantFrom(...POLLUTION_KEYS), fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant({ polluted: true })), {
  minKeys: 1,
});

/** Any value of the wrong type for a field. */
const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  absurdNumber,
  nastyString,
  fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 4 }),
  fc.jsonValue({ maxDepth: 3 }),
  pollutedObject,
  fc.constant({}),
  fc.constant([]),
);

/** Cron expressions of every wrong (and some right) shape. */
const scheduleValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "* * * *",
    "* * * * * *",
    "* * * * * * *",
    "*/0 * * * *",
    "60 * * * *",
    "-1 * * * *",
    "1- * * * *",
    "5-1 * * * *",
    "* * 31 2 *",
    "* * 30 2 *",
    "0 0 29 2 *",
    "* * * * 7",
    "* * * * 8",
    "* * * 13 *",
    "99999999999999999999 * * * *",
    "@every -1s",
    "@every 0s",
    "@every 1ms",
    "@every 100000h",
    "@every",
    "@reboot",
    "@yearly",
    "@hourly",
    "@nope",
    "TZ=UTC * * * * *",
    "CRON_TZ=Europe/Berlin 0 * * * *",
    "? ? ? ? ?",
    "L * * * *",
    "0 0 L * *",
    "0 0 * * 5#3",
    "0 0 1W * *",
    "* * * JAN-DEC MON-SUN",
    "*/1 * * * *",
    "0,,1 * * * *",
    "0/5 * * * *",
    "*/5/5 * * * *",
    "\t*\t*\t*\t*\t*",
    "* * * * *\n* * * * *",
  ),
  fc
    .array(fc.oneof(fc.constantFrom("*", "?", "*/2", "0", "59", "1-5", "1,2,3", "MON", "jan", "L", "#", "/", "-", ","), fc.string({ maxLength: 4 })), {
      minLength: 0,
      maxLength: 8,
    })
    .map((f) => f.join(" ")),
  weirdValue,
);

/** Time zone names of every wrong (and some right) shape. */
const zoneValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    "UTC",
    "Etc/UTC",
    "America/New_York",
    "Asia/Kathmandu",
    "Mars/Phobos",
    "",
    " ",
    "utc",
    "Local",
    "local",
    "+05:00",
    "GMT+5",
    "Etc/GMT+25",
    "Europe/Berlin ",
    "../../etc/localtime",
    "America/New_York\u0000",
    "a".repeat(500),
  ),
  weirdValue,
);

/** All paths of a JSON value (objects and arrays), root excluded. */
function pathsOf(value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      const key = Array.isArray(value) ? Number(k) : k;
      out.push([...prefix, key]);
      pathsOf(v, [...prefix, key], out);
    }
  }
  return out;
}

/** Sets a path with `defineProperty`, so `__proto__` becomes an own key as in JSON.parse. */
function setPath(root: any, path: (string | number)[], value: unknown, mode: "set" | "delete"): void {
  let node = root;
  for (const key of path.slice(0, -1)) {
    if (node === null || typeof node !== "object") return;
    node = node[key];
  }
  const last = path[path.length - 1]!;
  if (node === null || typeof node !== "object") return;
  if (mode === "delete") {
    if (Array.isArray(node) && typeof last === "number") node.splice(last, 1);
    else delete node[last];
  } else {
    Object.defineProperty(node, last, { value, enumerable: true, writable: true, configurable: true });
  }
}

/** A mutation of a valid request: one or a few fields deleted or replaced by weird values. */
function mutatedRequest(route: Route): fc.Arbitrary<any> {
  const base = validRequest(route);
  const paths = pathsOf(base);
  const specFields = ["schedule", "timeZone", "startingDeadlineSeconds", "concurrencyPolicy", "suspend", "successfulJobsHistoryLimit", "failedJobsHistoryLimit", "jobTemplate", ...Object.keys(base.parent.spec ?? {})];
  const mutation = fc.oneof(
    fc.record({ path: fc.constantFrom(...paths), mode: fc.constantFrom<"set" | "delete">("set", "delete"), value: weirdValue }),
    fc.record({ path: fc.constantFrom(...specFields).map((f) => ["parent", "spec", f]), mode: fc.constant<"set">("set"), value: weirdValue }),
    fc.record({ path: fc.constant(["parent", "spec", "schedule"]), mode: fc.constant<"set">("set"), value: scheduleValue }),
    fc.record({ path: fc.constant(["parent", "spec", "timeZone"]), mode: fc.constant<"set">("set"), value: zoneValue }),
    fc.record({
      path: fc.constantFrom(["parent", "metadata", "name"], ["parent", "metadata", "namespace"], ["parent", "metadata", "uid"]),
      mode: fc.constant<"set">("set"),
      value: nastyString,
    }),
    fc.record({ path: fc.constantFrom(...POLLUTION_KEYS).chain((k) => fc.constantFrom(["parent", k], ["parent", "spec", k], ["children", k], [k], ["parent", "metadata", k])), mode: fc.constant<"set">("set"), value: fc.oneof(weirdValue, pollutedObject) }),
  );
  return fc.array(mutation, { minLength: 1, maxLength: 3 }).map((ms) => {
    const request = structuredClone(base);
    for (const m of ms) setPath(request, [...m.path], m.value, m.mode);
    return request;
  });
}

// ---------------------------------------------------------------------------------------------
// Properties

for (const route of routes) {
  test(`${route.path}: mutated requests answer 200 with a valid response or a JSON error; an invalid spec keeps every observed child`, async () => {
    let invalidSeen = 0;
    await fc.assert(
      fc.asyncProperty(mutatedRequest(route), async (request) => {
        const answer = await post(app.url + route.path, JSON.stringify(request));
        const body = checkAnswer(route, answer);
        if (body && route.hook === "sync" && specIsInvalid(route, request)) {
          invalidSeen++;
          const desired = desiredKeys(body, request.parent?.metadata?.namespace || "");
          for (const key of observedKeys(request)) assert.ok(desired.has(key), `invalid spec dropped observed child ${key}`);
        }
        assert.equal(({} as any).polluted, undefined, "Object.prototype was polluted");
      }),
      { numRuns: RUNS * 4 },
    );
    // The property above must have exercised the invalid-spec invariant at least once for kinds
    // that validate specs (the placeholder kinds accept everything).
    if (route.hook === "sync" && route.controller.def.admission) assert.ok(invalidSeen > 0, "no invalid spec was generated");
  });

  test(`${route.path}: arbitrary JSON and malformed text never crash and answer a JSON error or a valid 200`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.json(),
          fc.string(),
          fc.string({ unit: "binary" }),
          fc.json().map((j) => j.slice(0, Math.max(0, j.length - 1))),
          fc.constantFrom("", "{", "}", "[", "null", "true", "0", '""', "{}", "[]", '{"parent":null}', '{"parent":{}}', "\u0000", "\ufeff{}", '{"a":1,"a":2}', "NaN", "1e99999", "-", '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}'),
        ),
        async (text) => {
          checkAnswer(route, await post(app.url + route.path, text));
        },
      ),
      { numRuns: RUNS * 2 },
    );
    assert.equal(({} as any).polluted, undefined, "Object.prototype was polluted");
  });
}

test("prototype-pollution keys at every level never reach Object.prototype", async () => {
  for (const route of routes) {
    const text = JSON.stringify(validRequest(route)).replace(
      /^\{/,
      '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},',
    );
    checkAnswer(route, await post(app.url + route.path, text));
    const req = validRequest(route);
    const spec = JSON.stringify(req.parent.spec).replace(/^\{/, '{"__proto__":{"polluted":"yes"},');
    const withSpec = JSON.stringify(req).replace(JSON.stringify(req.parent.spec), spec);
    checkAnswer(route, await post(app.url + route.path, withSpec));
  }
  assert.equal(({} as any).polluted, undefined, "Object.prototype was polluted");
  assert.equal((Object.prototype as any).polluted, undefined);
});

test("huge bodies answer 413 JSON before parsing; bodies under the limit are parsed", async () => {
  const route = routes[0]!;
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 2 * LIMIT }), fc.constantFrom("json", "garbage"), async (size, shape) => {
      const base = JSON.stringify(validRequest(route));
      const text = shape === "json" ? base.replace(/^\{/, `{"pad":"${"x".repeat(Math.max(0, size - base.length - 10))}",`) : "x".repeat(size);
      const answer = await post(app.url + route.path, text);
      checkAnswer(route, answer);
      if (Buffer.byteLength(text) > LIMIT) assert.equal(answer.status, 413);
      else assert.notEqual(answer.status, 413);
    }),
    { numRuns: RUNS },
  );
  // A 20 MiB body is refused on every route without buffering it.
  const huge = new Uint8Array(20 * 1024 * 1024).fill(0x20);
  for (const r of routes) {
    const answer = await post(app.url + r.path, huge);
    checkAnswer(r, answer);
    assert.equal(answer.status, 413, r.path);
  }
});

test("deep nesting anywhere answers without crashing", async () => {
  for (const route of routes) {
    for (const depth of [1_000, 100_000]) {
      const arrays = "[".repeat(depth) + "]".repeat(depth);
      const objects = '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
      // Nested as a body, inside the parent's spec, inside an observed child's spec (re-emitted).
      const req = validRequest(route);
      const text = JSON.stringify(req);
      const bodies = [arrays, objects, text.replace('"spec":{', `"spec":{"deep":${objects},`)];
      if (req.children) {
        bodies.push(text.replace('"status":{"active":1', `"status":{"deep":${arrays},"active":1`));
      }
      for (const body of bodies) {
        if (Buffer.byteLength(body) > LIMIT) continue;
        checkAnswer(route, await post(app.url + route.path, body));
      }
    }
  }
  const health = await fetch(`${app.url}/healthz`);
  assert.equal(health.status, 200, "the service still answers");
});

test("wrong content types and encodings answer 4xx JSON", async () => {
  const route = routes[0]!;
  const body = JSON.stringify(validRequest(route));
  for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1", "application/json; charset=utf-16", "multipart/form-data; boundary=x"]) {
    const answer = await post(app.url + route.path, body, type);
    checkAnswer(route, answer);
  }
  const gz = await fetch(app.url + route.path, { method: "POST", body, headers: { "Content-Type": "application/json", "Content-Encoding": "br-nope" } });
  assert.ok(gz.status >= 400 && gz.status < 500);
  assert.match(gz.headers.get("content-type") ?? "", /^application\/json/);
});

test("explicit hostile shapes on every route: unknown kinds, missing metadata, absurd numbers, unicode names", async () => {
  const shapes: [string, (r: any) => void][] = [
    ["unknown kind", (r) => (r.parent.kind = "Unknown")],
    ["unknown apiVersion", (r) => (r.parent.apiVersion = "nope/v0")],
    ["no metadata", (r) => delete r.parent.metadata],
    ["metadata null", (r) => (r.parent.metadata = null)],
    ["no name", (r) => delete r.parent.metadata.name],
    ["unicode name", (r) => (r.parent.metadata.name = "ĥéllo-wörld-日本-💥")],
    ["long name", (r) => (r.parent.metadata.name = "a".repeat(10_000))],
    ["no spec", (r) => delete r.parent.spec],
    ["spec array", (r) => (r.parent.spec = [])],
    ["negative deadline", (r) => (r.parent.spec.startingDeadlineSeconds = -1)],
    ["1e308 limits", (r) => Object.assign(r.parent.spec, { successfulJobsHistoryLimit: 1e308, failedJobsHistoryLimit: 1e308 })],
    ["fractional limits", (r) => Object.assign(r.parent.spec, { successfulJobsHistoryLimit: 0.5, failedJobsHistoryLimit: -0 })],
    ["generation 1e308", (r) => (r.parent.metadata.generation = 1e308)],
    ["children null", (r) => (r.children = null)],
    ["children array", (r) => (r.children = [])],
    ["child group null", (r) => (r.children = { "Job.batch/v1": null })],
    ["child without metadata", (r) => (r.children = { "Job.batch/v1": { x: { apiVersion: "batch/v1", kind: "Job" } } })],
    ["status garbage", (r) => (r.parent.status = { active: "yes", lastScheduleTime: "yesterday", conditions: [null, 1, "x"] })],
    ["deletionTimestamp garbage", (r) => (r.parent.metadata.deletionTimestamp = "not-a-time")],
    ["finalizing string", (r) => (r.finalizing = "true")],
  ];
  for (const route of routes) {
    for (const [name, change] of shapes) {
      const req = validRequest(route);
      try {
        change(req);
      } catch {
        continue; // the shape does not apply to this request
      }
      const answer = await post(app.url + route.path, JSON.stringify(req));
      try {
        const body = checkAnswer(route, answer);
        if (body && route.hook === "sync" && specIsInvalid(route, req)) {
          const desired = desiredKeys(body, req.parent?.metadata?.namespace || "");
          for (const key of observedKeys(req)) assert.ok(desired.has(key), `invalid spec dropped observed child ${key}`);
        }
      } catch (err) {
        throw new Error(`${route.path} ${name}: ${(err as Error).message}`);
      }
    }
  }
});
