import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { lintChart, renderChart, templateChart, type KubeDoc } from "../helpers/helm.ts";
import { assertValidRenderedObject } from "../helpers/chart-objects.ts";

const NS = "hooks";

const byKind = (docs: KubeDoc[], kind: string) => docs.filter((d) => d.kind === kind);
const one = (docs: KubeDoc[], kind: string) => {
  const found = byKind(docs, kind);
  assert.equal(found.length, 1, `expected one ${kind}, got ${found.length}`);
  return found[0]!;
};

describe("chart: the push receiver", () => {
  test("off by default: no RBAC, no Ingress, no receiver port, no API token", () => {
    const docs = renderChart({ namespace: NS });
    assert.deepEqual(byKind(docs, "ClusterRole"), []);
    assert.deepEqual(byKind(docs, "Ingress"), []);
    const pod = one(docs, "Deployment").spec.template.spec;
    assert.equal(pod.automountServiceAccountToken, false);
    assert.ok(!pod.containers[0].env.some((e: any) => e.name === "RECEIVER_PORT"));
  });

  test("on: port, env, Service port, least RBAC bound to the pods' ServiceAccount, NetworkPolicy rule, Ingress for /push only", () => {
    const docs = renderChart({
      namespace: NS,
      values: [{ receiver: { enabled: true, ingress: { enabled: true, className: "nginx", hosts: ["hooks.example.com"], tls: [{ hosts: ["hooks.example.com"], secretName: "hooks-tls" }] } } }],
    });
    for (const doc of docs) assertValidRenderedObject(doc, NS);
    const pod = one(docs, "Deployment").spec.template.spec;
    assert.equal(pod.automountServiceAccountToken, true);
    const c = pod.containers[0];
    assert.deepEqual(c.ports.find((p: any) => p.name === "receiver"), { name: "receiver", containerPort: 8090, protocol: "TCP" });
    assert.equal(c.env.find((e: any) => e.name === "RECEIVER_PORT").value, "8090");
    assert.ok(one(docs, "Service").spec.ports.some((p: any) => p.name === "receiver" && p.port === 8090));
    const role = one(docs, "ClusterRole");
    assert.deepEqual(role.rules, [
      { apiGroups: ["cicd.cicd.com"], resources: ["cibuilds"], verbs: ["list", "patch"] },
      { apiGroups: [""], resources: ["secrets"], verbs: ["get"], resourceNames: ["cibuild-webhook"] },
    ]);
    const binding = one(docs, "ClusterRoleBinding");
    assert.deepEqual(binding.subjects, [{ kind: "ServiceAccount", name: pod.serviceAccountName, namespace: NS }]);
    assert.equal(binding.roleRef.name, role.metadata.name);
    const policy = one(docs, "NetworkPolicy");
    assert.ok(policy.spec.ingress.some((r: any) => r.ports?.some((p: any) => p.port === 8090)));
    const ingress = one(docs, "Ingress");
    assert.deepEqual(ingress.spec.rules[0].http.paths.map((p: any) => [p.path, p.backend.service.port.name]), [["/push", "receiver"]]);
    assert.equal(ingress.spec.ingressClassName, "nginx");
  });

  test("secretNames: [] drops resourceNames (documented as get on every Secret); from restricts the NetworkPolicy", () => {
    const docs = renderChart({ namespace: NS, values: [{ receiver: { enabled: true, secretNames: [], networkPolicy: { from: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "ingress-nginx" } } }] } } }] });
    assert.equal(one(docs, "ClusterRole").rules[1].resourceNames, undefined);
    const rule = one(docs, "NetworkPolicy").spec.ingress.find((r: any) => r.ports?.some((p: any) => p.port === 8090));
    assert.deepEqual(rule.from, [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "ingress-nginx" } } }]);
  });

  test("a receiver port that collides with another listener is refused; lint passes with the receiver on", () => {
    const r = templateChart({ set: { "receiver.enabled": "true", "receiver.port": "8080" } });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /receiver.port must differ/);
    assert.equal(lintChart({ "receiver.enabled": "true", "receiver.ingress.enabled": "true" }).status, 0);
  });
});
