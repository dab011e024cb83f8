import { test } from "node:test";
import assert from "node:assert/strict";
import { assertGolden, loadGoldenCases } from "../../helpers/golden.ts";
import { assertValidKubeObject } from "../../helpers/k8s-schema.ts";
import { runHook, type HookName } from "../../../src/metacontroller/run-hook.ts";
import { ciBuildController } from "../../../src/controllers/cibuild/index.ts";
import { OPTIONS } from "./world.ts";

const cases = loadGoldenCases("cibuild");

test("there is a golden case for every phase transition", () => {
  const names = cases.map((c) => c.name);
  for (const required of [
    "fresh",
    "building",
    "succeeded-deploy",
    "ready",
    "failed-clone",
    "failed-build",
    "deadline",
    "spec-change-while-building",
    "deploy-only-change",
    "rebuild-token",
    "suspend-running",
    "retention",
    "long-name-fresh",
    "finalize-with-children",
    "finalize-done",
  ]) {
    assert.ok(names.includes(required), `missing golden case ${required}`);
  }
  assert.ok(names.filter((n) => n.startsWith("invalid-")).length >= 14, "one invalid case per reason");
});

for (const c of cases) {
  test(`golden: ${c.name}`, () => {
    const first = runHook(ciBuildController, c.hook as HookName, c.request, c.now, OPTIONS).response;
    const again = runHook(ciBuildController, c.hook as HookName, structuredClone(c.request), c.now, OPTIONS).response;
    assert.equal(JSON.stringify(again), JSON.stringify(first), "same request and clock must give byte-identical answers");
    assertGolden(c.dir, "response.json", first);
    if ("children" in first) for (const child of first.children) assertValidKubeObject(child);
  });
}
