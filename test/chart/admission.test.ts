import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ValidatingWebhookConfiguration } from "kubernetes-models/admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration";
import { MutatingWebhookConfiguration } from "kubernetes-models/admissionregistration.k8s.io/v1/MutatingWebhookConfiguration";
import { controllers } from "../../src/controllers/registry.ts";
import { admissionPaths } from "../../src/admission/routes.ts";
import { lintChart, renderChart, runHelm, stageChart, templateChart, TEST_IMAGE_REPOSITORY, type KubeDoc } from "../helpers/helm.ts";
import { assertValidRenderedObject } from "../helpers/chart-objects.ts";

const NS = "hooks";
const FULLNAME = "release-metahooks";
const ADMISSION_KINDS = ["ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"];
const CA = Buffer.from("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n").toString("base64");

function byKind(docs: KubeDoc[], kind: string): KubeDoc[] {
  return docs.filter((d) => d.kind === kind);
}

/** Hours in a cert-manager duration made of `h` and `m` parts (what the chart's values use). */
function hours(duration: string): number {
  let total = 0;
  for (const [, n, unit] of duration.matchAll(/(\d+)([hm])/g)) total += unit === "h" ? Number(n) : Number(n) / 60;
  return total;
}

function one(docs: KubeDoc[], kind: string): KubeDoc {
  const found = byKind(docs, kind);
  assert.equal(found.length, 1, `expected one ${kind}, got ${found.length}`);
  return found[0]!;
}

function container(docs: KubeDoc[]): any {
  return one(docs, "Deployment").spec.template.spec.containers[0];
}

function env(docs: KubeDoc[]): Map<string, string> {
  return new Map(container(docs).env.map((e: { name: string; value: string }) => [e.name, e.value]));
}

/** The kinds that get webhooks: every registered kind whose code serves the admission routes. */
const kindsWithAdmission = controllers.filter((c) => c.admission).map((c) => c.name).sort();

/** Checks what both TLS modes share; returns the two webhook configurations. */
function assertWebhooks(docs: KubeDoc[]): { validating: KubeDoc; mutating: KubeDoc } {
  const validating = one(docs, "ValidatingWebhookConfiguration");
  const mutating = one(docs, "MutatingWebhookConfiguration");
  new ValidatingWebhookConfiguration(validating as any).validate();
  new MutatingWebhookConfiguration(mutating as any).validate();
  const service = one(docs, "Service");
  const webhookPort = service.spec.ports.find((p: any) => p.name === "webhook");
  assert.ok(webhookPort, "the Service exposes the webhook port");
  const served = admissionPaths(controllers.map((def) => ({ def, options: undefined })));
  for (const [config, verb] of [[validating, "validate"], [mutating, "mutate"]] as const) {
    assert.equal(config.metadata.namespace, undefined, "webhook configurations are cluster-scoped");
    assert.deepEqual(config.webhooks.map((w: any) => w.name.split(".")[0]).sort(), kindsWithAdmission);
    for (const w of config.webhooks) {
      const kind = w.name.split(".")[0];
      const def = controllers.find((c) => c.name === kind)!;
      assert.equal(w.name, `${kind}.${verb}.metahooks.io`);
      assert.equal(w.sideEffects, "None");
      assert.deepEqual(w.admissionReviewVersions, ["v1"]);
      assert.equal(w.failurePolicy, "Fail");
      assert.equal(w.timeoutSeconds, 5);
      // Narrow: only the kind's own resource (never `*/status`), only CREATE and UPDATE.
      const [group, version] = def.apiVersion.split("/");
      const plural = (def.crd() as any).spec.names.plural;
      assert.deepEqual(w.rules, [{ apiGroups: [group], apiVersions: [version], resources: [plural], operations: ["CREATE", "UPDATE"], scope: "Namespaced" }]);
      assert.deepEqual(w.clientConfig.service, { name: FULLNAME, namespace: NS, port: webhookPort.port, path: `/${verb}/${kind}` });
      assert.ok(served.includes(w.clientConfig.service.path), `the service serves ${w.clientConfig.service.path}`);
    }
  }
  const c = container(docs);
  assert.equal(c.ports.find((p: any) => p.name === "webhook")?.containerPort, 9443);
  const e = env(docs);
  assert.equal(e.get("ADMISSION_PORT"), "9443");
  assert.equal(e.get("ADMISSION_TLS_CERT_FILE"), "/var/run/metahooks/webhook-tls/tls.crt");
  assert.equal(e.get("ADMISSION_TLS_KEY_FILE"), "/var/run/metahooks/webhook-tls/tls.key");
  assert.ok(c.volumeMounts.some((m: any) => m.name === "webhook-tls" && m.mountPath === "/var/run/metahooks/webhook-tls" && m.readOnly));
  // The apiserver's address is cluster-specific: the webhook port is open, the hook port is not.
  const policy = one(docs, "NetworkPolicy");
  const open = policy.spec.ingress.filter((r: any) => r.from === undefined);
  assert.deepEqual(open, [{ ports: [{ port: 9443, protocol: "TCP" }] }]);
  for (const doc of docs) if (!ADMISSION_KINDS.includes(doc.kind) && !doc.apiVersion.startsWith("cert-manager.io/")) assertValidRenderedObject(doc, NS);
  return { validating, mutating };
}

function secretVolume(docs: KubeDoc[]): string {
  return one(docs, "Deployment").spec.template.spec.volumes.find((v: any) => v.name === "webhook-tls").secret.secretName;
}

describe("chart: admission webhooks", () => {
  test("off by default: no webhook configurations, certificates, ports or env", () => {
    const docs = renderChart();
    for (const kind of [...ADMISSION_KINDS, "Certificate", "Issuer"]) assert.equal(byKind(docs, kind).length, 0, kind);
    assert.equal(container(docs).ports.some((p: any) => p.name === "webhook"), false);
    assert.equal(env(docs).has("ADMISSION_TLS_CERT_FILE"), false);
    assert.equal(one(docs, "Service").spec.ports.some((p: any) => p.name === "webhook"), false);
  });

  test("cert-manager mode: SelfSigned Issuer -> CA Certificate -> CA Issuer -> serving Certificate, the CA injected into both configurations", () => {
    const docs = renderChart({ set: { "admissionWebhooks.enabled": "true" } });
    const { validating, mutating } = assertWebhooks(docs);
    const issuers = byKind(docs, "Issuer");
    assert.equal(issuers.length, 2);
    const selfSigned = issuers.find((i) => "selfSigned" in i.spec)!;
    const caIssuer = issuers.find((i) => "ca" in i.spec)!;
    assert.deepEqual(selfSigned.spec, { selfSigned: {} });
    const certs = byKind(docs, "Certificate");
    assert.equal(certs.length, 2);
    const caCert = certs.find((c) => c.spec.isCA === true)!;
    const cert = certs.find((c) => c.spec.isCA !== true)!;
    // The SelfSigned Issuer signs only the CA; the CA Issuer serves the CA's Secret and signs the leaf.
    assert.deepEqual(caCert.spec.issuerRef, { name: selfSigned.metadata.name, kind: "Issuer", group: "cert-manager.io" });
    assert.deepEqual(caIssuer.spec, { ca: { secretName: caCert.spec.secretName } });
    assert.notEqual(caCert.spec.secretName, cert.spec.secretName);
    assert.ok(hours(caCert.spec.duration) >= 10 * hours(cert.spec.duration), "the CA outlives many leaf renewals");
    assert.equal(caCert.spec.privateKey.rotationPolicy, "Never", "a CA renewal keeps the key its leaves were signed with");
    for (const doc of [...issuers, ...certs]) assert.equal(doc.metadata.namespace, NS);
    assert.deepEqual(cert.spec.issuerRef, { name: caIssuer.metadata.name, kind: "Issuer", group: "cert-manager.io" });
    assert.equal(cert.apiVersion, "cert-manager.io/v1");
    assert.equal(cert.metadata.namespace, NS);
    assert.deepEqual(cert.spec.dnsNames, [`${FULLNAME}.${NS}.svc`, `${FULLNAME}.${NS}.svc.cluster.local`]);
    assert.equal(secretVolume(docs), cert.spec.secretName);
    for (const config of [validating, mutating]) {
      assert.equal((config.metadata as any).annotations["cert-manager.io/inject-ca-from"], `${NS}/${cert.metadata.name}`);
      for (const w of config.webhooks) assert.equal(w.clientConfig.caBundle, undefined, "cert-manager injects the CA");
    }
    assert.equal(mutating.webhooks[0].reinvocationPolicy, "Never");
  });

  test("cert-manager mode with an existing ClusterIssuer creates no Issuer", () => {
    const docs = renderChart({
      values: [{ admissionWebhooks: { enabled: true, certManager: { issuerRef: { name: "corp-ca", kind: "ClusterIssuer" } } } }],
    });
    assert.equal(byKind(docs, "Issuer").length, 0);
    assert.deepEqual(one(docs, "Certificate").spec.issuerRef, { name: "corp-ca", kind: "ClusterIssuer", group: "cert-manager.io" });
  });

  test("user-supplied mode: the given Secret is served and the given caBundle is in every webhook", () => {
    const docs = renderChart({
      values: [{ admissionWebhooks: { enabled: true, certManager: { enabled: false }, secretName: "my-webhook-tls", caBundle: CA } }],
    });
    const { validating, mutating } = assertWebhooks(docs);
    assert.equal(byKind(docs, "Certificate").length + byKind(docs, "Issuer").length, 0);
    assert.equal(secretVolume(docs), "my-webhook-tls");
    for (const config of [validating, mutating]) {
      assert.equal((config.metadata as any).annotations, undefined);
      for (const w of config.webhooks) assert.equal(w.clientConfig.caBundle, CA);
    }
  });

  test("user-supplied mode without a Secret or caBundle fails with a clear message", () => {
    for (const extra of [{ secretName: "s" }, { caBundle: CA }]) {
      const result = templateChart({ values: [{ admissionWebhooks: { enabled: true, certManager: { enabled: false }, ...extra } }] });
      assert.notEqual(result.status, 0);
      assert.match(result.stderr, /needs secretName .* and caBundle/);
    }
  });

  test("failurePolicy, per-type overrides, selectors, excluded kinds and turning one configuration off", () => {
    const docs = renderChart({
      values: [
        {
          admissionWebhooks: {
            enabled: true,
            failurePolicy: "Ignore",
            timeoutSeconds: 3,
            validating: { failurePolicy: "Fail" },
            objectSelector: { matchLabels: { "metahooks.io/validate": "true" } },
            namespaceSelector: { matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system"] }] },
          },
        },
      ],
    });
    const validating = one(docs, "ValidatingWebhookConfiguration");
    const mutating = one(docs, "MutatingWebhookConfiguration");
    for (const w of validating.webhooks) assert.equal(w.failurePolicy, "Fail");
    for (const w of mutating.webhooks) {
      assert.equal(w.failurePolicy, "Ignore");
      assert.equal(w.timeoutSeconds, 3);
      assert.deepEqual(w.objectSelector, { matchLabels: { "metahooks.io/validate": "true" } });
      assert.equal(w.namespaceSelector.matchExpressions[0].operator, "NotIn");
    }
    const noMutating = renderChart({ values: [{ admissionWebhooks: { enabled: true, mutating: { enabled: false }, excludeKinds: ["cronjob"] } }] });
    assert.equal(byKind(noMutating, "MutatingWebhookConfiguration").length, 0);
    const left = byKind(noMutating, "ValidatingWebhookConfiguration").flatMap((c) => c.webhooks.map((w: any) => w.name));
    assert.deepEqual(left, kindsWithAdmission.filter((k) => k !== "cronjob").map((k) => `${k}.validate.metahooks.io`));
  });

  test("the values schema rejects an unknown failurePolicy and lint --strict passes with webhooks on", () => {
    const bad = templateChart({ set: { "admissionWebhooks.enabled": "true", "admissionWebhooks.failurePolicy": "Maybe" } });
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /failurePolicy/);
    const lint = lintChart({ "admissionWebhooks.enabled": "true" });
    assert.equal(lint.status, 0, lint.stdout + lint.stderr);
  });

  test("NOTES say the webhooks are on, where TLS comes from, and warn without cert-manager", () => {
    const install = (extra: string[]) => runHelm(["install", "release", stageChart(), "--dry-run=client", "--namespace", NS, "--set", `image.repository=${TEST_IMAGE_REPOSITORY}`, "--set", "admissionWebhooks.enabled=true", ...extra]);
    const plain = install([]);
    assert.equal(plain.status, 0, plain.stderr);
    assert.match(plain.stdout, /Admission webhooks are on/);
    assert.match(plain.stdout, /kubectl -n hooks get certificate release-metahooks-webhook/);
    assert.match(plain.stdout, /does not serve cert-manager\.io\/v1/);
    const withCertManager = install(["--api-versions", "cert-manager.io/v1"]);
    assert.doesNotMatch(withCertManager.stdout, /does not serve cert-manager/);
    const off = runHelm(["install", "release", stageChart(), "--dry-run=client", "--namespace", NS, "--set", `image.repository=${TEST_IMAGE_REPOSITORY}`]);
    assert.doesNotMatch(off.stdout, /Admission webhooks/);
  });
});
