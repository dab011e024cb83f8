/**
 * The admission webhooks called by a real kube-apiserver: `metahooks serve` with its HTTPS
 * admission listener on loopback (certificate from a CA generated for this run), registered with
 * the Validating/MutatingWebhookConfiguration the chart renders, pointed at that listener by URL
 * with the CA as caBundle. An invalid CronJob and CIBuild are denied with our reason; the
 * defaults of the mutating webhook are stored.
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { renderChart } from "../helpers/helm.ts";
import { cronJobController } from "../../src/controllers/cronjob/index.ts";
import { ciBuildController } from "../../src/controllers/cibuild/index.ts";
import { createNamespace, createObject, getObject, kubeRequest, type KubeObject, requireE2eHarness } from "./helpers/kube.ts";
import { installOurCrds } from "./helpers/setup.ts";
import { startService, type RunningService } from "./helpers/service.ts";

requireE2eHarness();
const LABEL = "metahooks-e2e/admission";
let ns = "";
let service: RunningService | undefined;
const registered: Array<{ kind: string; name: string }> = [];

before(async () => {
  installOurCrds();
  ns = await createNamespace("e2e-admission", { [LABEL]: "on" });
  const pki = process.env.METAHOOKS_E2E_PKI!;
  service = await startService(
    { ADMISSION_TLS_CERT_FILE: join(pki, "webhook.crt"), ADMISSION_TLS_KEY_FILE: join(pki, "webhook.key") },
    { admission: true },
  );
  const caBundle = readFileSync(join(pki, "webhook-ca.crt")).toString("base64");
  const rendered = renderChart({
    set: {
      "admissionWebhooks.enabled": "true",
      "admissionWebhooks.certManager.enabled": "false",
      "admissionWebhooks.secretName": "unused",
      "admissionWebhooks.caBundle": caBundle,
    },
  }).filter((d) => d.kind === "ValidatingWebhookConfiguration" || d.kind === "MutatingWebhookConfiguration");
  assert.equal(rendered.length, 2, "the chart renders both webhook configurations");
  for (const config of rendered) {
    // The chart's own rules, reaching our listener by URL instead of the in-cluster Service, and
    // only for this file's namespace.
    const webhooks = (config.webhooks as any[]).map((w) => ({
      ...w,
      clientConfig: { url: `${service!.admissionUrl}${w.clientConfig.service.path}`, caBundle: w.clientConfig.caBundle },
      namespaceSelector: { matchLabels: { [LABEL]: "on" } },
    }));
    const name = `e2e-${config.kind.toLowerCase()}`;
    const res = await createObject({ ...config, metadata: { name }, webhooks } as KubeObject);
    assert.equal(res.status, 201, `${config.kind}: ${res.body?.message}`);
    registered.push({ kind: config.kind, name });
  }
  // The apiserver picks up new webhook configurations asynchronously: wait until a write is denied.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await createObject(invalidCronJob("probe"), { dryRun: true });
    if (res.status !== 201) break;
    if (Date.now() > deadline) throw new Error("the webhooks were never called");
    await new Promise((r) => setTimeout(r, 250));
  }
});

after(async () => {
  for (const { kind, name } of registered) {
    await kubeRequest("DELETE", `/apis/admissionregistration.k8s.io/v1/${kind.toLowerCase()}s/${name}`);
  }
  await service?.stop();
});

const jobTemplate = { spec: { template: { spec: { containers: [{ name: "c", image: "busybox" }], restartPolicy: "OnFailure" } } } };

/** Passes the CRD's schema and CEL rules; only the hook's validation knows "61" is no minute. */
function invalidCronJob(name: string): KubeObject {
  return { apiVersion: "batch.tutorial.kubebuilder.io/v1", kind: "CronJob", metadata: { name, namespace: ns }, spec: { schedule: "61 * * * *", jobTemplate } };
}

test("an invalid CronJob is denied by our validating webhook with our reason", async () => {
  const res = await createObject(invalidCronJob("bad-schedule"));
  assert.equal(res.status, 422, JSON.stringify(res.body));
  assert.match(res.body.message, /admission webhook "cronjob\.validate\.metahooks\.io" denied the request/);
  assert.match(res.body.message, /CronJob\.batch\.tutorial\.kubebuilder\.io "bad-schedule" is invalid: spec\.schedule: .*\(InvalidSchedule\)/);
  assert.equal(res.body.reason, "Invalid");
  assert.deepEqual(res.body.details?.causes?.map((c: { field: string }) => c.field), ["spec.schedule"]);
});

test("an invalid CIBuild is denied by our validating webhook with our reason", async () => {
  // No repository and no image: the CRD leaves "required" to the webhook (the seed's scaffold sample must apply without it).
  const res = await createObject({ apiVersion: "cicd.cicd.com/v1alpha1", kind: "CIBuild", metadata: { name: "no-repo", namespace: ns }, spec: { SCMBranch: "main" } });
  assert.equal(res.status, 422, JSON.stringify(res.body));
  assert.match(res.body.message, /admission webhook "cibuild\.validate\.metahooks\.io" denied the request/);
  assert.match(res.body.message, /\(MissingRepoURL\)/);
});

test("the mutating webhook's CronJob defaults are stored", async () => {
  const spec = { schedule: "*/5 * * * *", jobTemplate };
  const res = await createObject({ apiVersion: "batch.tutorial.kubebuilder.io/v1", kind: "CronJob", metadata: { name: "defaults", namespace: ns }, spec });
  assert.equal(res.status, 201, res.body?.message);
  const stored = await getObject("batch.tutorial.kubebuilder.io/v1", "CronJob", ns, "defaults");
  const expected = cronJobController.admission!.defaultSpec(structuredClone(spec));
  assert.notDeepEqual(expected, spec, "the CronJob kind has defaults to write");
  assert.deepEqual(stored.body.spec, expected);
});

test("the mutating webhook's CIBuild defaults are stored", async () => {
  const spec = { source: { git: { url: "https://git.example.com/app.git" } }, output: { image: "registry.example.com/app:1" } };
  const res = await createObject({ apiVersion: "cicd.cicd.com/v1alpha1", kind: "CIBuild", metadata: { name: "defaults", namespace: ns }, spec });
  assert.equal(res.status, 201, res.body?.message);
  const stored = await getObject("cicd.cicd.com/v1alpha1", "CIBuild", ns, "defaults");
  const expected = ciBuildController.admission!.defaultSpec(structuredClone(spec));
  assert.notDeepEqual(expected, spec, "the CIBuild kind has defaults to write");
  assert.deepEqual(stored.body.spec, expected);
});
