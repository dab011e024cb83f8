import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { parseAllDocuments } from "yaml";
import { renderChartFiles, renderManifests, toYaml } from "../../src/crd/manifests.ts";

/** Every document of a YAML text as JSON values, read as YAML `version`. */
function readAs(text: string, version: "1.1" | "1.2"): unknown[] {
  return parseAllDocuments(text, { version }).map((doc) => {
    if (doc.errors.length > 0) throw new Error(doc.errors[0]!.message);
    return doc.toJSON();
  });
}

// Strings a YAML 1.1 reader (helm, kubectl: go-yaml v2) or a 1.2 reader types differently.
const HOSTILE = ["off", "On", "YES", "no", "y", "N", "~", "null", "Null", "true", "0x1f", "0o17", "017", "1_000", "1:20", "12e3", "-.inf", ".NaN", "2001-12-14", "<<", "=", "0b101", "+12"];

test("every generated manifest reads the same under YAML 1.1 and 1.2 (helm and kubectl read 1.1)", () => {
  const files = [
    ...[...renderManifests()].map(([path, text]) => [`metacontroller/${path}`, text] as const),
    ...[...renderChartFiles()].map(([path, text]) => [`charts/metahooks/${path}`, text] as const),
  ];
  assert.ok(files.length >= 6);
  for (const [path, text] of files) {
    assert.deepStrictEqual(readAs(text, "1.1"), readAs(text, "1.2"), `${path} reads differently under YAML 1.1`);
  }
});

test("the files on disk read the same under YAML 1.1 and 1.2 (chart templates and values included)", () => {
  const dirs = ["metacontroller", "charts/metahooks"];
  let checked = 0;
  for (const dir of dirs) {
    for (const file of readdirSync(dir, { recursive: true }).map(String)) {
      // Templates are Go templates, not YAML; the rendered chart is checked in test/chart.
      if (!file.endsWith(".yaml") || file.startsWith("templates")) continue;
      const text = readFileSync(join(dir, file), "utf8");
      assert.deepStrictEqual(readAs(text, "1.1"), readAs(text, "1.2"), `${dir}/${file}`);
      checked++;
    }
  }
  assert.ok(checked >= 8, `only ${checked} files checked`);
});

test("the CIBuild CRD keeps `off` a string for a YAML 1.1 reader", () => {
  const text = renderManifests().get("crds/cibuilds.cicd.cicd.com.yaml")!;
  const [crd] = readAs(text, "1.1") as any[];
  const git = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.source.properties.git;
  assert.deepStrictEqual(git.properties.submodules.enum, ["off", "shallow", "recursive"]);
});

test("toYaml: any string value reads back as itself under YAML 1.1 and 1.2", () => {
  fc.assert(
    fc.property(fc.dictionary(fc.oneof(fc.constantFrom(...HOSTILE), fc.string()), fc.oneof(fc.constantFrom(...HOSTILE), fc.string(), fc.array(fc.constantFrom(...HOSTILE)))), (object) => {
      const text = toYaml(object);
      const [v11] = readAs(text, "1.1");
      const [v12] = readAs(text, "1.2");
      const expected = JSON.parse(JSON.stringify(object)); // fast-check's dictionaries have no prototype
      assert.deepStrictEqual(v11, expected);
      assert.deepStrictEqual(v12, expected);
    }),
    { numRuns: 300 },
  );
});
