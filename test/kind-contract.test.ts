// A third parent kind is one folder: the widget fixture kind (test/fixtures/kinds/widget/) is
// registered next to the real kinds and is served, validated, defaulted, measured, explained,
// documented in --help and rendered into manifests, with no change anywhere else.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import request from "supertest";
import { parse } from "yaml";
import { createApp } from "../src/http/app.ts";
import { configureControllers, controllers } from "../src/controllers/registry.ts";
import { HOOK_TIMEOUT } from "../src/controllers/define-kind.ts";
import { renderManifests } from "../src/crd/manifests.ts";
import { helpText } from "../src/cli/help.ts";
import { formatExplanation } from "../src/explain/summary.ts";
import { runHook } from "../src/metacontroller/run-hook.ts";
import { silentLogger } from "./helpers/silent-logger.ts";
import { widget, widgetController, widgetReview } from "./fixtures/kinds/widget/index.ts";

const kinds = [...controllers, widgetController];
const NOW = new Date("2026-01-05T12:00:30Z");

function syncBody(name = "w") {
  return { parent: { ...widget({ schedule: "* * * * *" }, name), metadata: { name, namespace: "default", uid: "u1" } }, children: {}, related: {} };
}

test("the fixture kind is served: sync, finalize and customize routes with its own options; decisions are counted", async () => {
  const app = createApp({ controllers: configureControllers({ WIDGET_SUFFIX: "later" }, kinds), logger: silentLogger, clock: () => NOW });
  const sync = await request(app).post("/sync/widget").send(syncBody()).expect(200);
  assert.deepEqual(sync.body.children.map((c: { metadata: { name: string } }) => c.metadata.name), ["w-later"]);
  const fin = await request(app).post("/finalize/widget").send(syncBody()).expect(200);
  assert.equal(fin.body.finalized, true);
  const cust = await request(app).post("/customize/widget").send({ parent: syncBody().parent }).expect(200);
  assert.equal(cust.body.relatedResources[0].resource, "pods");
  // The real kinds are still there, untouched.
  await request(app).post("/sync/cronjob").send({ parent: { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" } } }).expect(422);
  const metrics = await (app.locals.metrics as { registry: { metrics(): Promise<string> } }).registry.metrics();
  assert.match(metrics, /metahooks_decisions_total\{controller="widget",action="create",reason=""\} 1/);
});

test("the fixture kind's options are validated at start-up and listed in --help", () => {
  assert.throws(() => configureControllers({ WIDGET_SUFFIX: "Not Valid" }, kinds), /WIDGET_SUFFIX/);
  const help = helpText(kinds);
  assert.match(help, /widget \(example\.com\/v1 Widget\)/);
  assert.match(help, /Environment \(widget fixture kind\):\n  WIDGET_SUFFIX \(next\)\n +suffix of the Job each widget wants/);
  assert.doesNotMatch(helpText(controllers), /WIDGET/);
});

test("the fixture kind is validated and defaulted by the admission routes from its declaration", async () => {
  const app = createApp({ controllers: configureControllers({}, kinds), logger: silentLogger });
  const denied = await request(app).post("/validate/widget").send(widgetReview("CREATE", widget({ schedule: "" }))).expect(200);
  assert.equal(denied.body.response.allowed, false);
  assert.match(denied.body.response.status.message, /^Widget\.example\.com "w" is invalid: spec\.schedule: must not be empty \(InvalidSchedule\)$/);
  const mutated = await request(app).post("/mutate/widget").send(widgetReview("CREATE", widget({ schedule: "x" }))).expect(200);
  const ops = JSON.parse(Buffer.from(mutated.body.response.patch, "base64").toString("utf8"));
  assert.deepEqual(ops, [
    { op: "add", path: "/spec/mode", value: "Allow" },
    { op: "add", path: "/spec/suspend", value: false },
    { op: "add", path: "/spec/limits", value: { kept: 3, failed: 1 } },
  ]);
});

test("the fixture kind's CRD and CompositeController are generated from its declaration", () => {
  const files = renderManifests("http://hooks.test", kinds);
  const crd = parse(files.get("crds/widgets.example.com.yaml")!);
  const spec = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties;
  assert.equal(spec.mode.description, "Allow or Forbid. Default: Allow.");
  assert.equal(spec.limits.properties.kept.description, "Default: 3.");
  const cc = parse(files.get("controllers/widget.yaml")!);
  assert.deepEqual(cc.spec.parentResource, { apiVersion: "example.com/v1", resource: "widgets" });
  assert.deepEqual(cc.spec.childResources, [
    { apiVersion: "batch/v1", resource: "jobs" },
    { apiVersion: "v1", resource: "configmaps", updateStrategy: { method: "InPlace" } },
  ]);
  assert.deepEqual(Object.keys(cc.spec.hooks), ["sync", "finalize", "customize"]);
  assert.deepEqual(cc.spec.hooks.customize, { webhook: { url: "http://hooks.test/customize/widget", timeout: HOOK_TIMEOUT }, version: "v1" });
  assert.ok(parse(files.get("kustomization.yaml")!).resources.includes("controllers/widget.yaml"));
});

test("the fixture kind is explained with its own section", () => {
  const [configured] = configureControllers({}, [widgetController]);
  const req = syncBody();
  const result = runHook(configured!.def, "sync", req, NOW, configured!.options);
  const text = formatExplanation({ def: configured!.def, parent: req.parent as never, children: {}, response: result.response, decisions: result.decisions, finalizing: false, now: NOW });
  assert.match(text, /^Widget default\/w \(generation \?\)/);
  assert.match(text, /\nWidget: +1 child\(ren\) to create, status \{"observed":true\}\n/);
  assert.match(text, /would create: Job\/w-next/);
});

test("nothing outside the fixture folder names the fixture kind", () => {
  const hits: string[] = [];
  for (const file of readdirSync("src", { recursive: true }).map(String)) {
    if (!file.endsWith(".ts")) continue;
    if (/widget/i.test(readFileSync(join("src", file), "utf8"))) hits.push(file);
  }
  assert.deepEqual(hits, []);
});
