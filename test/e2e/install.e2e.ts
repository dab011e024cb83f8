/**
 * Installing the project the ways the README tells users to, on a real kube-apiserver with
 * Metacontroller's real CRDs: `kubectl apply -k metacontroller/` and `helm install` of the chart
 * with default values, with auth + TLS + hook v2, and with admission webhooks and a user-supplied
 * CA. Every object must pass strict field validation (the apiserver rejects unknown fields instead
 * of pruning them) and read back with every field it was sent with.
 */
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { stageChart, TEST_IMAGE_REPOSITORY } from "../helpers/helm.ts";
import { getObject, kubeRequest, kubeconfigPath, type KubeObject, requireE2eHarness } from "./helpers/kube.ts";
import { asStored, CHART_CRD_DIR, installMetacontrollerCrds, missingOrChanged, readYamlDocs, yamlFiles } from "./helpers/setup.ts";
import { helm, kubectl, mustSucceed } from "./helpers/tools.ts";

requireE2eHarness();

function parseManifest(text: string): KubeObject[] {
  return parseAllDocuments(text)
    .map((d) => d.toJSON() as KubeObject | null)
    .filter((d): d is KubeObject => d !== null && typeof d === "object" && "kind" in d);
}

/** Reads every object back and lists the fields the apiserver dropped or changed. */
async function droppedFields(objects: KubeObject[], namespace?: string): Promise<string[]> {
  const problems: string[] = [];
  for (const obj of objects) {
    const ns = obj.metadata.namespace ?? namespace;
    const res = await getObject(obj.apiVersion, obj.kind, ns, obj.metadata.name!);
    if (res.status !== 200) {
      problems.push(`${obj.kind} ${obj.metadata.name}: not found (${res.status})`);
      continue;
    }
    const { metadata: _m, ...content } = asStored(obj);
    problems.push(...missingOrChanged(content, res.body).map((p) => `${obj.kind} ${obj.metadata.name}${p}`));
  }
  return problems;
}

/**
 * Server-side apply of `objects` as a dry run with strict field validation: proves the apiserver
 * knows every field (helm's own apply may prune unknown fields with only a warning).
 */
function strictDryRun(manifest: string, namespace: string): void {
  const dir = mkdtempSync(join(kubeconfigPath(), "..", "manifest-"));
  const file = join(dir, "manifest.yaml");
  writeFileSync(file, manifest);
  mustSucceed(
    kubectl(["apply", "--server-side", "--force-conflicts", "--field-manager=metahooks-e2e-check", "--dry-run=server", "--validate=strict", "-n", namespace, "-f", file]),
    "strict server-side dry run of the installed manifest",
  );
}

before(() => {
  installMetacontrollerCrds();
});

test("Metacontroller's real CRDs install and are served", async () => {
  for (const plural of ["compositecontrollers", "decoratorcontrollers", "controllerrevisions"]) {
    // Just after Established the apiserver may still answer 429 while the new resource's
    // storage initializes; a client retries.
    let res = await kubeRequest("GET", `/apis/metacontroller.k8s.io/v1alpha1/${plural}`);
    for (let i = 0; i < 40 && res.status === 429; i++) {
      await new Promise((r) => setTimeout(r, 250));
      res = await kubeRequest("GET", `/apis/metacontroller.k8s.io/v1alpha1/${plural}`);
    }
    assert.equal(res.status, 200, `${plural}: ${res.status}`);
  }
});

test("kubectl apply -k metacontroller/ is accepted with strict field validation and keeps every field", async () => {
  const rendered = mustSucceed(kubectl(["kustomize", "metacontroller/"]), "kubectl kustomize");
  mustSucceed(kubectl(["apply", "--validate=strict", "-k", "metacontroller/"]), "kubectl apply -k metacontroller/");
  mustSucceed(kubectl(["wait", "--for=condition=Established", "--timeout=60s", "crd/cronjobs.batch.tutorial.kubebuilder.io", "crd/cibuilds.cicd.cicd.com"]), "wait for CRDs");
  try {
    assert.deepEqual(await droppedFields(parseManifest(rendered)), []);
  } finally {
    // Hand the CompositeControllers over to the helm releases below (same names).
    kubectl(["delete", "--ignore-not-found", "-f", "metacontroller/controllers/"]);
  }
});

/**
 * Deletes our CRDs (and with them every object of our kinds) and waits until they are gone, so
 * each `helm install` meets a cluster without them, as on a user's first install: the chart
 * renders the CRDs as templates, and helm refuses to adopt CRDs another tool (or another
 * release, since `helm uninstall` keeps them) created.
 */
async function removeOurCrds(): Promise<void> {
  const names = yamlFiles(CHART_CRD_DIR).flatMap((f) => readYamlDocs(f).map((d) => d.metadata.name!));
  for (const name of names) await kubeRequest("DELETE", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
  for (const name of names) {
    const deadline = Date.now() + 60_000;
    while ((await kubeRequest("GET", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`)).status !== 404) {
      if (Date.now() > deadline) throw new Error(`CRD ${name} not deleted after 60 s`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** Installs the chart, checks it, uninstalls it again (the CompositeControllers are cluster-wide). */
async function installChart(release: string, values: Record<string, unknown>): Promise<void> {
  const namespace = `e2e-helm-${release}`;
  await removeOurCrds();
  const valuesFile = join(mkdtempSync(join(kubeconfigPath(), "..", "values-")), "values.json");
  // No image is published, so the chart has no default repository (any will do: no Pod runs).
  writeFileSync(valuesFile, JSON.stringify({ image: { repository: TEST_IMAGE_REPOSITORY }, ...values }));
  const install = helm(["install", "metahooks", stageChart(), "-n", namespace, "--create-namespace", "-f", valuesFile]);
  try {
    assert.equal(install.status, 0, `helm install (${release}) failed:\n${install.stderr}`);
    const manifest = mustSucceed(helm(["get", "manifest", "metahooks", "-n", namespace]), "helm get manifest");
    strictDryRun(manifest, namespace);
    assert.deepEqual(await droppedFields(parseManifest(manifest), namespace), []);
    const ccs = parseManifest(manifest).filter((o) => o.kind === "CompositeController");
    assert.deepEqual(ccs.map((c) => c.metadata.name).sort(), ["cibuild-controller", "cronjob-controller"]);
  } finally {
    helm(["uninstall", "metahooks", "-n", namespace]);
  }
}

test("helm install with default values", async () => {
  await installChart("default", {});
  // helm created the CRDs from the chart: they must mean what their files say (YAML 1.2 reading).
  for (const file of yamlFiles(CHART_CRD_DIR)) {
    for (const crd of readYamlDocs(file)) {
      const stored = await getObject("apiextensions.k8s.io/v1", "CustomResourceDefinition", undefined, crd.metadata.name!);
      assert.deepEqual(missingOrChanged(crd.spec, stored.body.spec, ".spec"), [], `${crd.metadata.name} as helm installed it`);
    }
  }
});

test("helm install with auth, TLS and hook v2", async () => {
  await installChart("auth-tls-v2", {
    auth: { enabled: true },
    tls: { enabled: true, secretName: "metahooks-tls" },
    controllers: { cronjob: { hookVersion: "v2" }, cibuild: { hookVersion: "v2" } },
  });
});

test("helm install with admission webhooks and a user-supplied CA", async () => {
  const caBundle = readFileSync(join(process.env.METAHOOKS_E2E_PKI!, "webhook-ca.crt")).toString("base64");
  await installChart("admission", {
    admissionWebhooks: {
      enabled: true,
      certManager: { enabled: false },
      secretName: "metahooks-webhook-tls",
      caBundle,
      // No namespace carries this label, so the (unreachable) in-cluster webhook never blocks
      // the other e2e files' writes while the release exists.
      namespaceSelector: { matchLabels: { "metahooks-e2e/helm-webhooks": "on" } },
    },
  });
});
