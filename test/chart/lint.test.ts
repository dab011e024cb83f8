import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { controllers } from "../../src/controllers/registry.ts";
import { CHART_DIR as GENERATED_CHART_DIR, renderChartFiles } from "../../src/crd/manifests.ts";
import { CHART_DIR, copyChartAsCloned, lintChart, runHelm, stageChart, templateChart, TEST_IMAGE_REPOSITORY } from "../helpers/helm.ts";


test("the bundled helm is Helm 4", () => {
  const result = runHelm(["version", "--short"]);
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /^v4\./);
});

test("helm lint --strict passes with default values", () => {
  const result = lintChart();
  assert.equal(result.status, 0, result.stdout + result.stderr);
  assert.doesNotMatch(result.stdout, /\[(WARNING|ERROR)\]/);
});

test("helm lint --strict passes with every optional feature on", () => {
  const result = lintChart({
    "auth.enabled": "true",
    "tls.enabled": "true",
    "tls.secretName": "hooks-tls",
    "serviceMonitor.enabled": "true",
    "build.images.kaniko": "ghcr.io/osscontainertools/kaniko:v1.28.3",
    "controllers.cronjob.hookTimeout": "30s",
    "controllers.cronjob.hookVersion": "v2",
  });
  assert.equal(result.status, 0, result.stdout + result.stderr);
});

test("a wrongly typed value fails lint and names the field and the type", () => {
  const result = lintChart({ replicaCount: "two" });
  assert.notEqual(result.status, 0);
  assert.match(result.stdout + result.stderr, /at '\/replicaCount': got string, want integer/);
});

test("an unknown top-level key fails lint (typos do not pass silently)", () => {
  const result = lintChart({ replicaCont: "3" });
  assert.notEqual(result.status, 0);
  assert.match(result.stdout + result.stderr, /additional properties 'replicaCont' not allowed/);
});

test("bad hook settings fail lint", () => {
  for (const [key, value, field] of [
    ["controllers.cronjob.hookVersion", "v3", "/controllers/cronjob/hookVersion"],
    ["controllers.cronjob.hookTimeout", "10 seconds", "/controllers/cronjob/hookTimeout"],
    ["controllers.nightly.enabled", "true", "/controllers"],
  ] as const) {
    const result = lintChart({ [key]: value });
    assert.notEqual(result.status, 0, `${key}=${value} should fail`);
    assert.ok((result.stdout + result.stderr).includes(`at '${field}'`), `${key}: ${result.stdout}`);
  }
});

test("NOTES.txt tells how to create a first CronJob and see its status", () => {
  const result = runHelm(["install", "rel", stageChart(), "--dry-run=client", "--namespace", "hooks", "--set", `image.repository=${TEST_IMAGE_REPOSITORY}`]);
  assert.equal(result.status, 0, result.stderr);
  const notes = result.stdout.slice(result.stdout.indexOf("NOTES:"));
  assert.match(notes, /kubectl get compositecontrollers/);
  assert.match(notes, /http:\/\/rel-metahooks\.hooks\.svc:8080/);
  // A first object of every kind the chart serves, and how to watch it.
  for (const def of controllers) {
    assert.ok(notes.includes(`apiVersion: ${def.apiVersion}\n   kind: ${def.kind}\n`), `NOTES.txt has no sample ${def.kind}`);
    assert.ok(notes.includes((def.compositeController("http://x") as any).metadata.name), `NOTES.txt names ${def.name}'s CompositeController`);
  }
  assert.match(notes, /kubectl get cronjobs\.batch\.tutorial\.kubebuilder\.io hello/);
});

test("the chart's appVersion is the package version (the image tag the chart pulls by default)", () => {
  const chart = parse(readFileSync(join(CHART_DIR, "Chart.yaml"), "utf8"));
  const pkg = JSON.parse(readFileSync("package.json", "utf8"));
  assert.equal(chart.appVersion, pkg.version);
});

test("the chart's generated files match the code (run `npm run generate` after a change)", () => {
  assert.equal(GENERATED_CHART_DIR, "charts/metahooks");
  const rendered = renderChartFiles();
  const onDisk = ["files/crds", "files/compositecontrollers"].flatMap((dir) =>
    readdirSync(join(CHART_DIR, dir)).map((f) => `${dir}/${f}`),
  );
  assert.deepStrictEqual(onDisk.sort(), [...rendered.keys()].sort(), "generated file set differs");
  for (const [path, content] of rendered) {
    assert.equal(readFileSync(join(CHART_DIR, path), "utf8"), content, `${path} drifted`);
  }
});

test("an admission port that collides with the hook or admin port fails to render with a clear message", () => {
  // helm lint only logs a template's `fail` (INFO); template and install stop on it.
  for (const port of ["8080", "9090"]) {
    const result = templateChart({ set: { "admissionWebhooks.enabled": "true", "admissionWebhooks.port": port } });
    assert.notEqual(result.status, 0, port);
    assert.match(result.stdout + result.stderr, /admissionWebhooks.port must differ/, port);
  }
  assert.equal(templateChart({ set: { "admissionWebhooks.enabled": "true", "admissionWebhooks.port": "9443" } }).status, 0);
});

test("a fresh clone lints and renders with no network and no downloaded or stubbed chart", () => {
  const chart = copyChartAsCloned();
  assert.equal(existsSync(join(chart, "charts")), false, "no subchart directory in a fresh clone");
  assert.equal(existsSync(join(chart, "Chart.lock")), false, "no dependency lock: the chart has no dependencies");
  const chartYaml = parse(readFileSync(join(chart, "Chart.yaml"), "utf8"));
  assert.equal(chartYaml.dependencies, undefined, "Metacontroller is installed with its own chart, not as a dependency");
  // runHelm points every proxy at a closed port: a download attempt would fail these.
  const lint = lintChart({}, chart);
  assert.equal(lint.status, 0, lint.stdout + lint.stderr);
  assert.doesNotMatch(lint.stdout, /\[(WARNING|ERROR)\]/);
  // As a user types it, without any value: lint logs the missing image.repository but passes
  // (only rendering for an install must stop on it).
  const plain = runHelm(["lint", "--strict", chart]);
  assert.equal(plain.status, 0, plain.stdout + plain.stderr);
  assert.match(plain.stderr, /image\.repository is required/);
  const rendered = runHelm(["template", "rel", chart, "--namespace", "hooks", "--set", `image.repository=${TEST_IMAGE_REPOSITORY}`]);
  assert.equal(rendered.status, 0, rendered.stderr);
  assert.match(rendered.stdout, /kind: CompositeController/);
});

test("without image.repository, rendering fails and says how to build and push an image", () => {
  const result = templateChart({ set: { "image.repository": undefined } });
  assert.notEqual(result.status, 0);
  assert.match(result.stderr, /image\.repository is required: no metahooks image is published yet/);
  assert.match(result.stderr, /docker build -t registry\.example\.com\/metahooks:0\.1\.0 \. && docker push/);
  assert.match(result.stderr, /--set image\.repository=/);
  // helm lint only logs a template's `required` as INFO; install and template stop on it.
  const install = runHelm(["install", "rel", stageChart(), "--dry-run=client", "--namespace", "hooks"]);
  assert.notEqual(install.status, 0);
  assert.match(install.stderr, /image\.repository is required/);
});

test("ServiceMonitor durations follow Prometheus' grammar (prometheus-operator's pattern), not Go's", () => {
  for (const ok of ["30s", "1m30s", "1h", "500ms", "2w", "1d12h"]) {
    const result = lintChart({ "serviceMonitor.interval": ok });
    assert.equal(result.status, 0, `${ok}: ${result.stdout}`);
  }
  for (const bad of ["1.5s", "10us", "30sec", "1s1m", "", "-1s"]) {
    const result = lintChart({ "serviceMonitor.scrapeTimeout": bad });
    assert.notEqual(result.status, 0, `${JSON.stringify(bad)} should fail`);
    assert.ok((result.stdout + result.stderr).includes("at '/serviceMonitor/scrapeTimeout'"), bad);
  }
});

test("admissionWebhooks.excludeKinds accepts only kinds the chart serves", () => {
  assert.equal(lintChart({ "admissionWebhooks.excludeKinds[0]": "cibuild" }).status, 0);
  const result = lintChart({ "admissionWebhooks.excludeKinds[0]": "CronJob" });
  assert.notEqual(result.status, 0);
  assert.ok((result.stdout + result.stderr).includes("at '/admissionWebhooks/excludeKinds/0'"), result.stdout);
  const schema = JSON.parse(readFileSync(join(CHART_DIR, "values.schema.json"), "utf8"));
  assert.deepStrictEqual(schema.properties.admissionWebhooks.properties.excludeKinds.items.enum.sort(), controllers.map((d) => d.name).sort());
});

test("`npm run helm -- <args>` (README) runs the tests' helm v4 with the caller's arguments and exit code", () => {
  const version = spawnSync("npm", ["run", "-s", "helm", "--", "version", "--short"], { encoding: "utf8" });
  assert.equal(version.status, 0, version.stderr);
  assert.match(version.stdout, /^v4\.\d+\.\d+/);
  const wrong = spawnSync("npm", ["run", "-s", "helm", "--", "no-such-command"], { encoding: "utf8" });
  assert.notEqual(wrong.status, 0);
  assert.match(wrong.stderr, /unknown command "no-such-command"/);
});
