import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { renderManifests } from "../../src/crd/manifests.ts";
import { structuralViolations } from "../../src/crd/structural.ts";
import { controllers } from "../../src/controllers/registry.ts";

test("metacontroller/ matches the zod schemas (run `npm run generate` after a schema change)", () => {
  const rendered = renderManifests();
  const onDisk = readdirSync("metacontroller", { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".yaml"))
    .sort();
  assert.deepStrictEqual(onDisk, [...rendered.keys()].sort(), "generated file set differs");
  for (const [path, content] of rendered) {
    assert.equal(readFileSync(join("metacontroller", path), "utf8"), content, `${path} drifted from its zod schema`);
  }
});

test("every generated CRD schema is structural and enables the status subresource", () => {
  for (const def of controllers) {
    const crd = def.crd() as any;
    for (const version of crd.spec.versions) {
      assert.deepStrictEqual(version.subresources?.status, {}, `${def.name}: status subresource`);
      const problems = structuralViolations(version.schema.openAPIV3Schema);
      assert.deepStrictEqual(problems, [], `${def.name}: non-structural schema`);
    }
  }
});

test("the kustomization lists every CRD and CompositeController", () => {
  const kustomization = parse(readFileSync("metacontroller/kustomization.yaml", "utf8"));
  assert.equal(kustomization.resources.length, controllers.length * 2);
  for (const r of kustomization.resources) assert.ok(readFileSync(join("metacontroller", r), "utf8").length > 0);
});

test("the structural checker rejects what the apiserver rejects", () => {
  assert.notDeepStrictEqual(structuralViolations({ type: "object", properties: { a: {} } }), []);
  assert.notDeepStrictEqual(structuralViolations({ type: ["string", "null"] }), []);
  assert.notDeepStrictEqual(structuralViolations({ type: "object", additionalProperties: false }), []);
  assert.deepStrictEqual(structuralViolations({ type: "object", properties: { a: { "x-kubernetes-int-or-string": true } } }), []);
});
