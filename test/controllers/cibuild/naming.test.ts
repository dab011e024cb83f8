import { test } from "node:test";
import fc from "fast-check";
import assert from "node:assert/strict";
import { buildJobName, childNames, computeBuildHash, immutableTag } from "../../../src/controllers/cibuild/naming.ts";
import { boundedName, canonicalJson, isDns1123Label } from "../../../src/kube/names.ts";
import { SEED_SPECS } from "./world.ts";

test("build hashes reproduce the reference values of the seed samples (go c50f2918c7, …)", () => {
  assert.equal(computeBuildHash(SEED_SPECS["build-go"]), "c50f2918c7");
  assert.equal(computeBuildHash(SEED_SPECS["build-ace"]), "a314523ea0");
  assert.equal(computeBuildHash(SEED_SPECS["build-nodejs"]), "8d3d4f6758");
});

test("deploy, retention and suspend never change the build hash; everything else does", () => {
  const go = SEED_SPECS["build-go"]!;
  const base = computeBuildHash(go);
  assert.equal(computeBuildHash({ ...go, deploy: { replicas: 3, port: 80 }, retention: { succeededLimit: 0 }, suspend: true }), base);
  assert.notEqual(computeBuildHash({ ...go, rebuildToken: "x" }), base);
  assert.notEqual(computeBuildHash({ ...go, SCMBranch: "main" }), base);
  assert.notEqual(computeBuildHash({ ...go, build: { dockerfile: "Dockerfile" } }), base, "no defaulting before hashing");
  // Key order of the received spec does not matter (canonical JSON).
  const reordered = Object.fromEntries(Object.entries(go).reverse());
  assert.equal(computeBuildHash(reordered), base);
});

test("canonicalJson sorts keys at every depth and keeps array order", () => {
  assert.equal(canonicalJson({ b: [{ y: 1, x: 2 }, 3], a: "é" }), '{"a":"é","b":[{"x":2,"y":1},3]}');
});

test("canonicalJson writes what the first implementation wrote (build hashes must never change), for any value", () => {
  // The first implementation, kept as the reference: a new one must give byte-identical text.
  const reference = (value: unknown): string => {
    if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
    if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : reference(v))).join(",")}]`;
    const record = value as Record<string, unknown>;
    const entries = Object.keys(record)
      .sort()
      .filter((k) => record[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${reference(record[k])}`);
    return `{${entries.join(",")}}`;
  };
  fc.assert(
    fc.property(fc.anything({ maxDepth: 4 }), (value) => {
      assert.equal(canonicalJson(value), reference(value));
    }),
    { numRuns: 500 },
  );
});

test("boundedName lower-cases, replaces, cuts with a hash suffix, and a replaced character always takes the hashed form", () => {
  assert.match(boundedName("Build_Go.v2"), /^build-go-v2-[0-9a-f]{8}$/);
  // my.app and my-app are both legal names: they must not share children.
  assert.equal(boundedName("my-app"), "my-app");
  assert.notEqual(boundedName("my.app"), boundedName("my-app"));
  assert.notEqual(childNames("my.app").deployment, childNames("my-app").deployment);
  assert.notEqual(buildJobName("my.app", "8d3d4f6758"), buildJobName("my-app", "8d3d4f6758"));
  assert.equal(boundedName("-x-"), "x");
  const long = "a".repeat(70);
  const cut = boundedName(long);
  assert.equal(cut.length, 63);
  assert.match(cut, /^a{54}-[0-9a-f]{8}$/);
  assert.equal(boundedName(long, 52).length, 52);
});

test("derived names are seed-compatible and bounded", () => {
  assert.deepStrictEqual(childNames("build-go"), {
    parentLabel: "build-go",
    appLabel: "app-build-go",
    deployment: "deploy-build-go",
    service: "svc-build-go",
  });
  assert.equal(buildJobName("build-go", "c50f2918c7"), "build-go-c50f2918c7");
  assert.equal(immutableTag("c50f2918c7"), "cibuild-c50f2918c7");
  const name = "x".repeat(253);
  assert.ok(isDns1123Label(buildJobName(name, "0123456789")));
  for (const n of Object.values(childNames(name))) assert.ok(isDns1123Label(n), n);
});
