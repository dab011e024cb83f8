/**
 * Our CRDs on a real kube-apiserver: installed from the chart's YAML files by kubectl (which reads
 * YAML the 1.1 way, as helm does), every example object accepted and kept field for field, every
 * invalid example rejected by the apiserver's own OpenAPI or CEL validation with the rule's
 * message, and the printer columns shown by `kubectl get`.
 */
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { join, relative, resolve } from "node:path";
import { createNamespace, createObject, getObject, type KubeObject, requireE2eHarness } from "./helpers/kube.ts";
import { asStored, CHART_CRD_DIR, installOurCrds, missingOrChanged, readYamlDocs, yamlFiles } from "./helpers/setup.ts";
import { kubeRequest, objectPath } from "./helpers/kube.ts";
import { kubectl, mustSucceed } from "./helpers/tools.ts";

requireE2eHarness();
let ns = "";

before(async () => {
  installOurCrds();
  ns = await createNamespace("e2e-crds");
});

test("our CRDs are stored exactly as their YAML files mean them (kubectl's YAML 1.1 reading changes nothing)", async () => {
  for (const file of yamlFiles(CHART_CRD_DIR)) {
    for (const crd of readYamlDocs(file)) {
      const stored = await getObject("apiextensions.k8s.io/v1", "CustomResourceDefinition", undefined, crd.metadata.name!);
      assert.equal(stored.status, 200, `${crd.metadata.name} not found`);
      assert.deepEqual(missingOrChanged(crd.spec, stored.body.spec, ".spec"), [], `${relative(".", file)}: the stored CRD differs from the file`);
    }
  }
});

/** Every object of our kinds (and the Secrets beside them) in examples/ and the seed samples. */
function exampleFiles(): string[] {
  const dirs = ["examples/cronjob", "examples/cibuild", "test/fixtures/seed-samples/cronjob", "test/fixtures/seed-samples/cibuild"];
  return dirs.flatMap((dir) => yamlFiles(resolve(dir)));
}

test("every example object is accepted with strict field validation and read back with every field it set", async () => {
  const files = exampleFiles();
  assert.ok(files.length >= 10, `expected the examples and seed samples, found ${files.length} files`);
  let count = 0;
  for (const file of files) {
    for (const [i, doc] of readYamlDocs(file).entries()) {
      // Each file gets its own name so the seed copy of a sample does not collide with ours.
      const name = `${relative(".", file).replace(/[^a-z0-9]+/gi, "-").toLowerCase().slice(-50).replace(/^-+/, "")}-${i}`;
      const obj: KubeObject = { ...doc, metadata: { ...doc.metadata, name, namespace: ns } };
      if (file.endsWith("cibuild-scaffold.yaml")) continue; // checked on its own below
      const created = await createObject(obj);
      assert.equal(created.status, 201, `${relative(".", file)} (${doc.kind} ${doc.metadata.name}) rejected: ${created.body?.message}`);
      const stored = await getObject(obj.apiVersion, obj.kind, ns, name);
      const { metadata: _metadata, ...content } = asStored(obj);
      assert.deepEqual(missingOrChanged(content, stored.body), [], `${relative(".", file)}: fields were dropped or changed`);
      assert.deepEqual(missingOrChanged(doc.metadata.labels ?? {}, stored.body.metadata.labels ?? {}), [], `${relative(".", file)}: labels`);
      count++;
    }
  }
  assert.ok(count >= 10);
});

/**
 * The seed operator's scaffold sample sets only kubebuilder's placeholder field `spec.foo`, which
 * our CRD does not declare. kubectl's default (strict field validation) therefore rejects it,
 * naming the field; with `--validate=warn` it applies with a warning and the field pruned (and
 * the hook then reports it Invalid: no repository, no image).
 */
test("the seed's scaffold sample: rejected under strict validation naming spec.foo, applied with a warning otherwise", async () => {
  const [doc] = readYamlDocs(resolve("test/fixtures/seed-samples/cibuild/cibuild-scaffold.yaml"));
  const obj = { ...doc!, metadata: { name: "scaffold", namespace: ns } };
  const strict = await createObject(obj);
  assert.equal(strict.status, 400, JSON.stringify(strict.body));
  assert.match(strict.body.message, /unknown field "spec\.foo"/);
  const warn = await kubeRequest("POST", await objectPath(obj.apiVersion, obj.kind, ns), { body: obj, query: { fieldValidation: "Warn" } });
  assert.equal(warn.status, 201, JSON.stringify(warn.body));
  // The Warning header quotes its text: 299 - "unknown field \"spec.foo\"".
  assert.ok(warn.warnings.some((w) => /unknown field \\?"spec\.foo\\?"/.test(w)), JSON.stringify(warn.warnings));
  assert.deepEqual(warn.body.spec, {});
});

const jobTemplate = { spec: { template: { spec: { containers: [{ name: "c", image: "busybox" }], restartPolicy: "OnFailure" } } } };
const cronJob = (spec: Record<string, unknown>) => ({ apiVersion: "batch.tutorial.kubebuilder.io/v1", kind: "CronJob", spec: { schedule: "* * * * *", jobTemplate, ...spec } });
const legacy = { SCMRepoURL: "https://git.example.com/a.git", imageDestination: "registry.example.com/a:1" };
const structured = { source: { git: { url: "https://git.example.com/a.git" } }, output: { image: "registry.example.com/a:1" } };
const ciBuild = (spec: Record<string, unknown>) => ({ apiVersion: "cicd.cicd.com/v1alpha1", kind: "CIBuild", spec });

/**
 * Invalid objects and the message the apiserver must answer with: every CEL rule's own message
 * (the CRD carries it, the README lists the rules), and the OpenAPI schema's enum and required
 * checks. The last test below makes sure no CEL rule is left without an example here.
 */
const invalidExamples: Array<{ name: string; object: { apiVersion: string; kind: string; spec: unknown }; message: string }> = [
  { name: "negative deadline", object: cronJob({ startingDeadlineSeconds: -1 }), message: "spec.startingDeadlineSeconds must be >= 0" },
  { name: "negative success history", object: cronJob({ successfulJobsHistoryLimit: -3 }), message: "spec.successfulJobsHistoryLimit must be >= 0" },
  { name: "negative failure history", object: cronJob({ failedJobsHistoryLimit: -1 }), message: "spec.failedJobsHistoryLimit must be >= 0" },
  { name: "TZ= prefix", object: cronJob({ schedule: "TZ=Europe/Berlin 0 * * * *" }), message: "spec.schedule must not start with TZ= or CRON_TZ=; set spec.timeZone instead" },
  { name: "time zone Local", object: cronJob({ timeZone: "Local" }), message: "spec.timeZone must be an IANA time zone name such as Europe/Berlin (not empty, not Local)" },
  { name: "unknown concurrency policy", object: cronJob({ concurrencyPolicy: "Sometimes" }), message: 'spec.concurrencyPolicy: Unsupported value: "Sometimes"' },
  { name: "restartPolicy Always", object: cronJob({ jobTemplate: { spec: { template: { spec: { containers: [{ name: "c", image: "busybox" }], restartPolicy: "Always" } } } } }), message: 'restartPolicy: Unsupported value: "Always"' },
  { name: "no schedule", object: { apiVersion: "batch.tutorial.kubebuilder.io/v1", kind: "CronJob", spec: { jobTemplate } }, message: "spec.schedule: Required value" },
  { name: "conflicting repo URLs", object: ciBuild({ ...legacy, source: { git: { url: "https://git.example.com/b.git" } } }), message: "spec.SCMRepoURL and spec.source.git.url are both set and differ (ConflictingFields); set only one" },
  { name: "conflicting revisions", object: ciBuild({ ...legacy, SCMBranch: "main", source: { git: { revision: "dev" } } }), message: "spec.SCMBranch and spec.source.git.revision are both set and differ (ConflictingFields); set only one" },
  { name: "conflicting clone secrets", object: ciBuild({ ...legacy, SCMSecret: "s", source: { git: { cloneSecret: "t" } } }), message: "spec.SCMSecret and spec.source.git.cloneSecret are both set and differ (ConflictingFields); set only one" },
  { name: "conflicting context dirs", object: ciBuild({ ...legacy, subContext: "app", source: { contextDir: "web" } }), message: "spec.subContext and spec.source.contextDir are both set and differ (ConflictingFields); set only one" },
  { name: "conflicting images", object: ciBuild({ ...structured, imageDestination: "registry.example.com/b:1" }), message: "spec.imageDestination and spec.output.image are both set and differ (ConflictingFields); set only one" },
  { name: "credentials in source.git.url", object: ciBuild({ ...structured, source: { git: { url: "https://user:token@git.example.com/a.git" } } }), message: "spec.source.git.url must not contain credentials; use spec.source.git.cloneSecret (CredentialsInURL)" },
  { name: "credentials in SCMRepoURL", object: ciBuild({ ...legacy, SCMRepoURL: "https://user:pw@github.com/org/repo.git" }), message: "spec.SCMRepoURL must not contain credentials; use spec.source.git.cloneSecret (CredentialsInURL)" },
  { name: "digest in output.image", object: ciBuild({ ...structured, output: { image: "registry.example.com/a@sha256:0123" } }), message: "spec.output.image must be repository[:tag] without a digest (InvalidImageReference)" },
  { name: "digest in imageDestination", object: ciBuild({ ...legacy, imageDestination: "kind-registry:5000/a@sha256:0123" }), message: "spec.imageDestination must be repository[:tag] without a digest (InvalidImageReference)" },
  { name: "'..' in contextDir", object: ciBuild({ ...structured, source: { ...structured.source, contextDir: "a/../../etc" } }), message: "spec.source.contextDir must be a relative path without '..' segments (InvalidContextDir)" },
  { name: "absolute subContext", object: ciBuild({ ...legacy, subContext: "/abs" }), message: "spec.subContext must be a relative path without '..' segments (InvalidContextDir)" },
  { name: "'..' dockerfile", object: ciBuild({ ...legacy, build: { dockerfile: ".." } }), message: "spec.build.dockerfile must be a relative path without '..' segments (InvalidDockerfilePath)" },
  { name: "unknown build strategy", object: ciBuild({ ...legacy, build: { strategy: "docker" } }), message: 'spec.build.strategy: Unsupported value: "docker"' },
];

for (const example of invalidExamples) {
  test(`the apiserver rejects an invalid ${example.object.kind}: ${example.name}`, async () => {
    const name = `invalid-${example.name.replace(/[^a-z0-9]+/gi, "-").toLowerCase().replace(/-$/, "")}`;
    const res = await createObject({ ...example.object, metadata: { name, namespace: ns } } as KubeObject);
    assert.equal(res.status, 422, `accepted (or failed otherwise): ${res.status} ${JSON.stringify(res.body)}`);
    assert.ok(res.body.message.includes(example.message), `message ${JSON.stringify(res.body.message)} lacks ${JSON.stringify(example.message)}`);
  });
}

test("every CEL rule of our CRDs has an invalid example above", () => {
  const messages = yamlFiles(CHART_CRD_DIR).flatMap((file) =>
    readYamlDocs(file).flatMap((crd: any) =>
      (crd.spec.versions as any[]).flatMap((v) => (v.schema.openAPIV3Schema.properties.spec["x-kubernetes-validations"] ?? []).map((r: { message: string }) => r.message)),
    ),
  );
  assert.ok(messages.length > 0);
  const covered = new Set(invalidExamples.map((e) => e.message));
  assert.deepEqual(messages.filter((m) => !covered.has(m)), []);
});

test("kubectl get shows the printer columns", () => {
  const cronjobs = mustSucceed(kubectl(["get", "cronjobs.batch.tutorial.kubebuilder.io", "-n", ns]), "kubectl get cronjobs");
  const header = cronjobs.split("\n")[0]!.trim().split(/\s{2,}/);
  assert.deepEqual(header, ["NAME", "SCHEDULE", "SUSPEND", "ACTIVE", "LAST SCHEDULE", "AGE"]);
  assert.match(cronjobs, /\*\/1 \* \* \* \*/);
  const cibuilds = mustSucceed(kubectl(["get", "cibuilds", "-n", ns]), "kubectl get cibuilds");
  const crd = readYamlDocs(join(CHART_CRD_DIR, "cibuilds.cicd.cicd.com.yaml"))[0] as any;
  const columns = (crd.spec.versions[0].additionalPrinterColumns as Array<{ name: string; priority?: number }>)
    .filter((c) => !c.priority)
    .map((c) => c.name.toUpperCase());
  assert.deepEqual(cibuilds.split("\n")[0]!.trim().split(/\s{2,}/), ["NAME", ...columns]);
});
