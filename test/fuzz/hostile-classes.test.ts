/**
 * Generators for the classes of hostile input the first fuzz suite could not produce: deep
 * nesting anywhere in a user-controlled object, compressed bodies (valid, corrupt, bombs), slow
 * (trickled) bodies, odd keys (`__proto__`, `constructor`, `prototype`, non-ASCII, empty) and
 * skewed clocks (status times ahead of and behind `now`). Every route of every kind comes from
 * the registry. FUZZ_RUNS scales the run counts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import zlib from "node:zlib";
import http from "node:http";
import fc from "fast-check";
import { routes, validRequest, useFuzzApp, checkAnswer, observedKeys, desiredKeys, NOW, type Route, type FuzzAnswer } from "./routes.ts";
import { validateAdmission } from "../../src/admission/admission.ts";
import { runHook } from "../../src/metacontroller/run-hook.ts";
import { MAX_NESTING_DEPTH } from "../../src/kube/nesting.ts";

const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const LIMIT = 256 * 1024;
const app = useFuzzApp(LIMIT);

const syncRoutes = routes.filter((r) => r.hook === "sync");

/** POST raw bytes with extra headers; optionally trickled in `chunks` pieces `delayMs` apart. */
function postBytes(url: string, body: Buffer, headers: Record<string, string> = {}, trickle?: { chunks: number; delayMs: number }): Promise<FuzzAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", agent: false, headers: { "Content-Type": "application/json", "Content-Length": String(body.length), ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"] ?? ""), text }));
    });
    req.on("error", reject);
    if (!trickle) {
      req.end(body);
      return;
    }
    const size = Math.max(1, Math.ceil(body.length / trickle.chunks));
    let offset = 0;
    const next = () => {
      if (offset >= body.length) return void req.end();
      req.write(body.subarray(offset, offset + size));
      offset += size;
      setTimeout(next, trickle.delayMs);
    };
    next();
  });
}

// ---------------------------------------------------------------------------------------------
// Deep nesting

/** A nested value `depth` levels deep, each level an object (under an odd key) or an array. */
const deepValue = (minDepth: number, maxDepth: number) =>
  fc.record({
    depth: fc.integer({ min: minDepth, max: maxDepth }),
    shape: fc.constantFrom("object", "array", "mixed"),
    key: fc.constantFrom("a", "__proto__", "constructor", "", "ключ", "💥"),
  }).map(({ depth, shape, key }) => {
    let value: unknown = "leaf";
    for (let i = 0; i < depth; i++) {
      const array = shape === "array" || (shape === "mixed" && i % 2 === 1);
      if (array) value = [value];
      else {
        const o: Record<string, unknown> = {};
        Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
        value = o;
      }
    }
    return { value, depth };
  });

/** Every object and array in a value (root included), as paths. */
function containerPaths(value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (value && typeof value === "object") {
    out.push(prefix);
    for (const [k, v] of Object.entries(value)) containerPaths(v, [...prefix, Array.isArray(value) ? Number(k) : k], out);
  }
  return out;
}

/** Puts `value` under a new key (or appends it) at `path` inside `root`. */
function plant(root: any, path: (string | number)[], value: unknown): void {
  let node = root;
  for (const k of path) node = node[k];
  if (Array.isArray(node)) node.push(value);
  else Object.defineProperty(node, "planted", { value, enumerable: true, writable: true, configurable: true });
}

/** Nesting of the parent once `value` (of `depth`) is planted at `path`. */
function depthAt(path: (string | number)[], depth: number): number {
  return path.length + 1 /* the parent itself */ + depth;
}

for (const route of syncRoutes) {
  test(`${route.path}: nesting past the bound anywhere in the parent answers 200 NestingTooDeep, keeps every child; admission denies with the same reason`, async () => {
    const base = validRequest(route);
    const paths = containerPaths(base.parent);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), deepValue(MAX_NESTING_DEPTH, 3_000), async (path, { value, depth }) => {
        const request = structuredClone(base);
        plant(request.parent, path, value);
        fc.pre(depthAt(path, depth) > MAX_NESTING_DEPTH);
        const answer = await post(route, JSON.stringify(request));
        assert.equal(answer.status, 200, answer.text.slice(0, 300));
        const body = checkAnswer(route, answer);
        const reasons = (body.status.conditions as any[]).filter((c) => c.status === "False").map((c) => c.reason);
        assert.ok(reasons.includes("NestingTooDeep"), `reasons ${reasons}`);
        const desired = desiredKeys(body, request.parent.metadata.namespace);
        for (const key of observedKeys(request)) assert.ok(desired.has(key), `dropped ${key}`);
        if (route.controller.def.admission) {
          const denied = validateAdmission(route.controller.def, admissionReview(route, request.parent));
          assert.equal(denied.review.response.allowed, false);
          assert.equal(denied.review.response.status?.details?.causes[0]?.reason, "NestingTooDeep");
        }
      }),
      { numRuns: RUNS },
    );
  });

  test(`${route.path}: nesting within the bound is never NestingTooDeep`, async () => {
    const base = validRequest(route);
    const paths = containerPaths(base.parent);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), deepValue(1, 60), async (path, { value, depth }) => {
        fc.pre(depthAt(path, depth) <= MAX_NESTING_DEPTH);
        const request = structuredClone(base);
        plant(request.parent, path, value);
        const answer = await post(route, JSON.stringify(request));
        const body = checkAnswer(route, answer);
        if (body) assert.ok(!JSON.stringify(body.status).includes("NestingTooDeep"));
      }),
      { numRuns: RUNS },
    );
  });
}

function admissionReview(route: Route, object: any) {
  const [group, version] = route.controller.def.apiVersion.split("/");
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: { uid: "f-1", kind: { group, version, kind: route.controller.def.kind }, resource: { group, version, resource: "x" }, operation: "CREATE", object },
  };
}

function post(route: Route, text: string): Promise<FuzzAnswer> {
  return postBytes(app.url + route.path, Buffer.from(text));
}

// ---------------------------------------------------------------------------------------------
// Compressed bodies

const ENCODERS: Record<string, (b: Buffer) => Buffer> = {
  gzip: (b) => zlib.gzipSync(b),
  "x-gzip": (b) => zlib.gzipSync(b),
  deflate: (b) => zlib.deflateSync(b),
  br: (b) => zlib.brotliCompressSync(b),
};

/**
 * The same encodings with the cheap settings an attacker would pick for a bomb: run-length
 * gzip/deflate (as small as the default level on repeated bytes) and brotli quality 5 instead of
 * 11 (still a few hundred bytes), a fraction of the CPU of the defaults.
 */
const BOMB_ENCODERS: Record<string, (b: Buffer) => Buffer> = {
  gzip: (b) => zlib.gzipSync(b, { strategy: zlib.constants.Z_RLE }),
  "x-gzip": (b) => zlib.gzipSync(b, { strategy: zlib.constants.Z_RLE }),
  deflate: (b) => zlib.deflateSync(b, { strategy: zlib.constants.Z_RLE }),
  br: (b) => zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } }),
};

const corruption: fc.Arbitrary<Corruption> = fc.oneof(
  fc.constant({ kind: "none" as const }),
  fc.record({ kind: fc.constant("truncate" as const), at: fc.double({ min: 0, max: 0.99, noNaN: true }) }),
  fc.record({ kind: fc.constant("flip" as const), at: fc.double({ min: 0, max: 0.99, noNaN: true }), byte: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ kind: fc.constant("garbage" as const), bytes: fc.uint8Array({ minLength: 0, maxLength: 64 }) }),
);

type Corruption = { kind: "none" } | { kind: "truncate"; at: number } | { kind: "flip"; at: number; byte: number } | { kind: "garbage"; bytes: Uint8Array };

function corrupt(bytes: Buffer, c: Corruption): Buffer {
  if (c.kind === "truncate") return bytes.subarray(0, Math.floor(bytes.length * c.at));
  if (c.kind === "flip") {
    const copy = Buffer.from(bytes);
    const i = Math.floor(copy.length * c.at);
    copy[i] = copy[i]! ^ c.byte;
    return copy;
  }
  if (c.kind === "garbage") return Buffer.from(c.bytes);
  return bytes;
}

for (const route of routes) {
  test(`${route.path}: compressed bodies, valid or corrupt, answer what the plain body answers or a 4xx, never a 5xx`, async () => {
    const plainText = JSON.stringify(validRequest(route));
    const plain = await post(route, plainText);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(ENCODERS)), corruption, async (encoding, c) => {
        const bytes = corrupt(ENCODERS[encoding]!(Buffer.from(plainText)), c);
        const answer = await postBytes(app.url + route.path, bytes, { "Content-Encoding": encoding });
        checkAnswer(route, answer);
        if (c.kind === "none") {
          assert.equal(answer.status, plain.status);
          assert.equal(answer.text.replace(/"requestId":"[^"]*"/, ""), plain.text.replace(/"requestId":"[^"]*"/, ""));
        } else {
          assert.ok(answer.status < 500, `${encoding} ${c.kind}: ${answer.status} ${answer.text}`);
        }
      }),
      { numRuns: RUNS * 2 },
    );
  });
}

test("compression bombs past the limit answer 413 naming the limit and the bytes read", async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...routes), fc.constantFrom(...Object.keys(BOMB_ENCODERS)), fc.integer({ min: LIMIT + 1, max: 40 * LIMIT }), async (route, encoding, size) => {
      const bomb = BOMB_ENCODERS[encoding]!(Buffer.alloc(size, 0x20));
      const answer = await postBytes(app.url + route.path, bomb, { "Content-Encoding": encoding });
      checkAnswer(route, answer);
      assert.equal(answer.status, 413, answer.text);
      const message = JSON.parse(answer.text).message as string;
      assert.match(message, new RegExp(`of at least (\\d+) bytes after decompression \\((\\d+) bytes ${encoding} on the wire\\) exceeds the limit of ${LIMIT} bytes`));
      const read = Number(/of at least (\d+) bytes/.exec(message)![1]);
      assert.ok(read > LIMIT && read <= size, `read ${read} of ${size}`);
    }),
    { numRuns: RUNS },
  );
});

// ---------------------------------------------------------------------------------------------
// Slow bodies

test("trickled bodies answer exactly what a fast upload answers", async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...routes), fc.integer({ min: 2, max: 40 }), fc.integer({ min: 0, max: 15 }), async (route, chunks, delayMs) => {
      const text = Buffer.from(JSON.stringify(validRequest(route)));
      const fast = await postBytes(app.url + route.path, text);
      const slow = await postBytes(app.url + route.path, text, {}, { chunks, delayMs });
      assert.equal(slow.status, fast.status);
      assert.equal(slow.text.replace(/"requestId":"[^"]*"/, ""), fast.text.replace(/"requestId":"[^"]*"/, ""));
    }),
    { numRuns: Math.max(5, Math.floor(RUNS / 2)) },
  );
});

// ---------------------------------------------------------------------------------------------
// Odd keys

const ODD_KEYS = ["__proto__", "constructor", "prototype", "hasOwnProperty", "toString", "", "ключ", "日本", "💥", "a/b", "~0"];

for (const route of syncRoutes) {
  test(`${route.path}: observed children under odd keys are never lost`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.constantFrom(...ODD_KEYS), { minLength: 1, maxLength: 4 }), fc.boolean(), async (keys, invalid) => {
        const request = validRequest(route, keys.length);
        if (invalid) request.parent.spec = { broken: true };
        for (const [group, objects] of Object.entries(request.children as Record<string, Record<string, unknown>>)) {
          const renamed: Record<string, unknown> = {};
          Object.values(objects).forEach((child, i) => Object.defineProperty(renamed, keys[i]!, { value: child, enumerable: true, writable: true, configurable: true }));
          request.children[group] = renamed;
        }
        const answer = await post(route, JSON.stringify(request));
        const body = checkAnswer(route, answer);
        assert.ok(body, `${answer.status} ${answer.text.slice(0, 200)}`);
        // Running Jobs are never pruned; with an invalid spec nothing is dropped at all. Either
        // way each child the request holds must reach the hook: compare with the same request
        // under plain keys.
        const plain = validRequest(route, keys.length);
        if (invalid) plain.parent.spec = { broken: true };
        const expected = checkAnswer(route, await post(route, JSON.stringify(plain)));
        assert.deepEqual([...desiredKeys(body, "default")].sort(), [...desiredKeys(expected, "default")].sort());
        if (invalid) for (const key of observedKeys(request)) assert.ok(desiredKeys(body, "default").has(key), `dropped ${key}`);
      }),
      { numRuns: RUNS },
    );
    assert.equal(({} as any).polluted, undefined);
  });
}

// ---------------------------------------------------------------------------------------------
// Skewed clocks

const cronSync = syncRoutes.find((r) => r.controller.def.name === "cronjob");

if (cronSync) {
  test("CronJob: a status from any point around now never makes a Job for a slot at or before status.lastScheduleTime", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -86_400_000, max: 86_400_000 }),
        fc.integer({ min: -3_600_000, max: 3_600_000 }),
        fc.constantFrom("* * * * *", "*/5 * * * *", "0 * * * *", "@every 2m"),
        fc.constantFrom("Allow", "Forbid", "Replace"),
        fc.boolean(),
        (lastOffset, sinceOffset, schedule, policy, withJobs) => {
          const request = validRequest(cronSync, withJobs ? 2 : 0);
          const last = new Date(NOW.getTime() + lastOffset);
          last.setUTCSeconds(0, 0);
          request.parent.spec.schedule = schedule;
          request.parent.spec.concurrencyPolicy = policy;
          request.parent.status = {
            lastScheduleTime: last.toISOString().replace(".000", ""),
            schedule: { schedule, timeZone: "UTC", since: new Date(NOW.getTime() + sinceOffset).toISOString() },
            conditions: [{ type: "Ready", status: "True", reason: "Active", message: "", lastTransitionTime: new Date(NOW.getTime() + lastOffset).toISOString() }],
          };
          const { response } = runHook(cronSync.controller.def, "sync", request, NOW, undefined) as any;
          const observed = new Set(observedKeys(request).map((k) => k.split("/").pop()));
          for (const child of response.children) {
            if (observed.has(child.metadata.name)) continue;
            const slot = Date.parse(child.metadata.annotations["batch.tutorial.kubebuilder.io/scheduled-at"]);
            assert.ok(slot > last.getTime(), `created ${child.metadata.name} for ${new Date(slot).toISOString()} at or before lastScheduleTime ${last.toISOString()}`);
            assert.ok(slot <= NOW.getTime(), "a Job for a future slot");
          }
          assert.ok(Date.parse(response.status.lastScheduleTime) >= last.getTime(), "lastScheduleTime moved backwards");
          if (response.resyncAfterSeconds !== undefined) {
            const wake = NOW.getTime() + response.resyncAfterSeconds * 1000;
            assert.ok(wake > last.getTime(), "resync before the recorded last schedule time");
          }
          assert.ok(Date.parse(response.status.schedule.since) <= NOW.getTime(), "a schedule record from the future was kept");
        },
      ),
      { numRuns: RUNS * 8 },
    );
  });
}
