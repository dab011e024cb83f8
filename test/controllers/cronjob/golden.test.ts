import { test } from "node:test";
import assert from "node:assert/strict";
import { assertGolden, loadGoldenCases } from "../../helpers/golden.ts";
import { assertValidKubeObject } from "../../helpers/k8s-schema.ts";
import { runHook, type HookName } from "../../../src/metacontroller/run-hook.ts";
import type { SyncResponse } from "../../../src/metacontroller/contract.ts";
import { cronJobController } from "../../../src/controllers/cronjob/index.ts";

const cases = loadGoldenCases("cronjob");

// c1…c9 are the upstream CronJob bug classes each kept as fixtures (test/fixtures/cronjob/c<N>-*):
// outage, resume after suspend/deadline, DST fall-back, DST spring-forward, starting deadline,
// a vanished Job, history limits, long names, Replace with two running Jobs.
test("there are golden CronJob fixtures for the main paths and every bug class c1-c9", () => {
  const names = cases.map((c) => c.name);
  for (const id of ["c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9"]) {
    assert.ok(names.some((n) => n.startsWith(`${id}-`)), `no fixture for ${id}`);
  }
  assert.ok(cases.length >= 30);
});

for (const c of cases) {
  test(`golden: ${c.name}`, () => {
    const first = runHook(cronJobController, c.hook as "sync" | "finalize", c.request, c.now, undefined);
    const again = runHook(cronJobController, c.hook as "sync" | "finalize", structuredClone(c.request), new Date(c.now), undefined);
    assert.equal(JSON.stringify(again.response), JSON.stringify(first.response), "same request and now must give byte-identical JSON");
    for (const child of (first.response as SyncResponse).children) assertValidKubeObject(child);
    assertGolden(c.dir, "response.json", first.response);
    assertGolden(c.dir, "decisions.json", first.decisions);
  });
}
