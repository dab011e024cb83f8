import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { parse, parseAllDocuments } from "yaml";
import { controllers } from "../../src/controllers/registry.ts";
import { CHART_DIR, renderChart, templateChart, TEST_IMAGE_REPOSITORY, type KubeDoc } from "../helpers/helm.ts";
import { assertValidRenderedObject } from "../helpers/chart-objects.ts";
import { assertValidCompositeController } from "../helpers/upstream-crd.ts";

const NAMESPACE = "hooks";
const FULLNAME = "release-metahooks";

function only(docs: KubeDoc[], kind: string): KubeDoc {
  const found = docs.filter((d) => d.kind === kind);
  assert.equal(found.length, 1, `expected exactly one ${kind}, got ${found.length}`);
  return found[0]!;
}

function envOf(deployment: KubeDoc): Map<string, string> {
  const container = deployment.spec.template.spec.containers[0];
  return new Map(container.env.map((e: { name: string; value: string }) => [e.name, e.value]));
}

/** The code's CompositeController for a kind, with hook URLs built on `base`. */
function codeController(name: string, base: string): any {
  const def = controllers.find((c) => c.name === name)!;
  return structuredClone(def.compositeController(base));
}

/** A CompositeController spec without what the chart sets from values (URL, timeout, version, auth, CA). */
function withoutHookSettings(spec: any): any {
  const copy = structuredClone(spec);
  for (const hook of Object.values<any>(copy.hooks ?? {})) {
    delete hook.version;
    for (const key of ["url", "timeout", "authorization", "caBundle"]) delete hook.webhook[key];
  }
  return copy;
}

const defaults = renderChart();

describe("helm template with default values", () => {
  test("renders the hook service objects plus one CompositeController per controller kind", () => {
    const kinds = defaults.map((d) => d.kind).sort();
    const expected = ["Deployment", "NetworkPolicy", "PodDisruptionBudget", "Service", "ServiceAccount"];
    expected.push(...controllers.map(() => "CompositeController"), ...controllers.map(() => "CustomResourceDefinition"));
    assert.deepStrictEqual(kinds, expected.sort());
  });

  test("every rendered object is valid for its kind", () => {
    for (const doc of defaults) assertValidRenderedObject(doc, NAMESPACE);
  });

  test("the Deployment: 2 replicas, probes on the admin port, hardened pod, no API token", () => {
    const deployment = only(defaults, "Deployment");
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    assert.equal(deployment.spec.replicas, 2);
    assert.equal(pod.automountServiceAccountToken, false);
    assert.deepStrictEqual(pod.securityContext.seccompProfile, { type: "RuntimeDefault" });
    assert.equal(pod.securityContext.runAsNonRoot, true);
    assert.equal(container.securityContext.readOnlyRootFilesystem, true);
    assert.equal(container.securityContext.allowPrivilegeEscalation, false);
    assert.deepStrictEqual(container.securityContext.capabilities.drop, ["ALL"]);
    assert.deepStrictEqual(container.readinessProbe.httpGet, { path: "/readyz", port: "admin" });
    assert.deepStrictEqual(container.livenessProbe.httpGet, { path: "/healthz", port: "admin" });
    const ports = Object.fromEntries(container.ports.map((p: any) => [p.name, p.containerPort]));
    assert.deepStrictEqual(ports, { http: 8080, admin: 9090 });
    assert.ok(pod.terminationGracePeriodSeconds > container.lifecycle.preStop.sleep.seconds);
    assert.ok(container.resources.requests.cpu && container.resources.requests.memory);
    assert.equal(pod.topologySpreadConstraints[0].whenUnsatisfiable, "ScheduleAnyway");
    const env = envOf(deployment);
    assert.equal(env.get("PORT"), "8080");
    assert.equal(env.get("ADMIN_PORT"), "9090");
    assert.equal(env.get("LOG_LEVEL"), "info");
    for (const name of ["GIT_SYNC_IMAGE", "PREPARE_IMAGE", "KANIKO_IMAGE", "BUILDKIT_IMAGE", "AUTH_TOKEN_FILE", "TLS_CERT_FILE"]) {
      assert.equal(env.has(name), false, `${name} is off by default`);
    }
  });

  test("the Service selects the Deployment's pods and exposes the hook and admin ports by name", () => {
    const service = only(defaults, "Service");
    const deployment = only(defaults, "Deployment");
    const podLabels = deployment.spec.template.metadata.labels;
    for (const [k, v] of Object.entries<string>(service.spec.selector)) assert.equal(podLabels[k], v, `selector ${k}`);
    assert.deepStrictEqual(deployment.spec.selector.matchLabels, service.spec.selector);
    const ports = Object.fromEntries(service.spec.ports.map((p: any) => [p.name, [p.port, p.targetPort]]));
    assert.deepStrictEqual(ports, { http: [8080, "http"], admin: [9090, "admin"] });
  });

  test("the PodDisruptionBudget protects the hook pods", () => {
    const pdb = only(defaults, "PodDisruptionBudget");
    assert.deepStrictEqual(pdb.spec.selector.matchLabels, only(defaults, "Deployment").spec.selector.matchLabels);
    assert.equal(pdb.spec.maxUnavailable, 1);
  });

  test("the NetworkPolicy selects the hook pods and admits only Metacontroller on the hook port", () => {
    const policy = only(defaults, "NetworkPolicy");
    const podLabels = only(defaults, "Deployment").spec.template.metadata.labels;
    const selector = policy.spec.podSelector.matchLabels;
    assert.ok(Object.keys(selector).length > 0, "an empty podSelector would select every pod in the namespace");
    for (const [k, v] of Object.entries<string>(selector)) assert.equal(podLabels[k], v, `podSelector ${k} must match the pods`);
    assert.deepStrictEqual(policy.spec.policyTypes, ["Ingress"]);
    const [hookRule, metricsRule] = policy.spec.ingress;
    assert.deepStrictEqual(hookRule.ports, [{ port: 8080, protocol: "TCP" }]);
    assert.equal(hookRule.from.length, 1, "one peer: namespace AND pod selector together");
    const peer = hookRule.from[0];
    assert.deepStrictEqual(peer.namespaceSelector.matchLabels, { "kubernetes.io/metadata.name": "metacontroller" });
    assert.deepStrictEqual(peer.podSelector.matchExpressions[0].values, ["metacontroller", "metacontroller-helm"]);
    assert.deepStrictEqual(metricsRule.ports, [{ port: 9090, protocol: "TCP" }]);
    assert.deepStrictEqual(metricsRule.from[0].namespaceSelector.matchLabels, { "kubernetes.io/metadata.name": "monitoring" });
  });

  test("each CompositeController matches the code's definition apart from the hook settings", () => {
    for (const def of controllers) {
      const expected = codeController(def.name, "http://base.invalid");
      const rendered = defaults.find((d) => d.kind === "CompositeController" && d.metadata.name === expected.metadata.name);
      assert.ok(rendered, `${def.name}: no CompositeController ${expected.metadata.name} (run \`npm run generate\`, and add controllers.${def.name} to values.yaml)`);
      assert.deepStrictEqual(withoutHookSettings(rendered.spec), withoutHookSettings(expected.spec), `${def.name}: chart and code drifted`);
      // Empty hookTimeout/hookVersion keep the code's settings.
      for (const [name, hook] of Object.entries<any>(expected.spec.hooks)) {
        assert.equal(rendered.spec.hooks[name].webhook.timeout, hook.webhook.timeout, `${def.name} ${name} timeout`);
        assert.equal(rendered.spec.hooks[name].version, hook.version, `${def.name} ${name} version`);
      }
    }
  });

  test("every hook URL resolves to the chart's Service name, namespace and hook port", () => {
    const service = only(defaults, "Service");
    const container = only(defaults, "Deployment").spec.template.spec.containers[0];
    const hookPort = service.spec.ports.find((p: any) => p.name === "http");
    const containerPort = container.ports.find((p: any) => p.name === hookPort.targetPort);
    assert.equal(containerPort.containerPort, 8080);
    for (const def of controllers) {
      const base = "http://base.invalid";
      const expected = codeController(def.name, base);
      const rendered = defaults.find((d) => d.kind === "CompositeController" && d.metadata.name === expected.metadata.name)!;
      for (const [name, hook] of Object.entries<any>(rendered.spec.hooks)) {
        const url = new URL(hook.webhook.url);
        assert.equal(url.protocol, "http:");
        assert.equal(url.hostname, `${service.metadata.name}.${service.metadata.namespace}.svc`, `${def.name} ${name} host`);
        assert.equal(service.metadata.namespace, NAMESPACE);
        assert.equal(Number(url.port), hookPort.port, `${def.name} ${name} port`);
        assert.equal(url.pathname, expected.spec.hooks[name].webhook.url.slice(base.length), `${def.name} ${name} path`);
      }
    }
  });

  test("each object's app.kubernetes.io/component says what it is", () => {
    const want: Record<string, string> = {
      Deployment: "hook-server", Service: "hook-server", ServiceAccount: "hook-server", PodDisruptionBudget: "hook-server",
      NetworkPolicy: "hook-server", CompositeController: "composite-controller", CustomResourceDefinition: "crd",
    };
    for (const doc of defaults) assert.equal(doc.metadata.labels?.["app.kubernetes.io/component"], want[doc.kind], doc.kind);
  });

  test("no ServiceMonitor, no Secret and no Metacontroller by default", () => {
    for (const kind of ["ServiceMonitor", "Secret", "ConfigMap"]) assert.equal(defaults.filter((d) => d.kind === kind).length, 0, kind);
  });
});

/** A rendered CRD without what the chart adds (its labels and the keep annotation). */
function withoutChartMetadata(crd: KubeDoc): KubeDoc {
  const copy = structuredClone(crd);
  delete copy.metadata.labels;
  delete (copy.metadata as any).annotations;
  return copy;
}

describe("the chart's CRDs and CompositeController files are generated", () => {
  test("the CRDs are templates: rendered, they equal metacontroller/crds/ plus labels and helm.sh/resource-policy: keep", () => {
    const crds = defaults.filter((d) => d.kind === "CustomResourceDefinition");
    const files = readdirYaml("metacontroller/crds");
    assert.deepStrictEqual(crds.map((c) => `${c.metadata.name}.yaml`).sort(), files);
    for (const crd of crds) {
      // Read the file as YAML 1.1, as helm does.
      const onDisk = parseAllDocuments(readFileSync(join("metacontroller/crds", `${crd.metadata.name}.yaml`), "utf8"), { version: "1.1" }).map((d) => d.toJSON() as KubeDoc)[0]!;
      for (const [k, v] of Object.entries<string>(onDisk.metadata.labels ?? {})) assert.equal(crd.metadata.labels![k], v, `label ${k} kept`);
      assert.deepStrictEqual(withoutChartMetadata(crd), withoutChartMetadata(onDisk), `${crd.metadata.name}: the chart changed the CRD`);
      assert.deepStrictEqual((crd.metadata as any).annotations, { "helm.sh/resource-policy": "keep" });
      assert.equal(crd.metadata.labels!["app.kubernetes.io/component"], "crd");
      assertValidRenderedObject(crd, NAMESPACE);
    }
  });

  test("files/crds/ is byte-identical to metacontroller/crds/, and Helm's never-upgraded crds/ is gone", () => {
    const ours = readdirYaml(join(CHART_DIR, "files/crds"));
    assert.deepStrictEqual(ours, readdirYaml("metacontroller/crds"), "same file names");
    for (const file of ours) {
      assert.equal(readFileSync(join(CHART_DIR, "files/crds", file), "utf8"), readFileSync(join("metacontroller/crds", file), "utf8"), `${file} differs (run \`npm run generate\`)`);
    }
    assert.equal(existsSync(join(CHART_DIR, "crds")), false, "charts/metahooks/crds/ would be installed once and never upgraded");
  });

  test("a disabled kind gets neither its CRD nor its CompositeController (its fixed name may belong to someone else)", () => {
    for (const def of controllers) {
      const docs = renderChart({ set: { [`controllers.${def.name}.enabled`]: "false" } });
      const crdKinds = docs.filter((d) => d.kind === "CustomResourceDefinition").map((d) => d.spec.names.kind.toLowerCase());
      const expected = controllers.filter((c) => c !== def).map((c) => c.name);
      assert.deepStrictEqual(crdKinds.sort(), expected.sort(), `controllers.${def.name}.enabled=false`);
      assert.equal(docs.filter((d) => d.kind === "CompositeController").length, controllers.length - 1);
    }
    const none = renderChart({ set: Object.fromEntries(controllers.map((c) => [`controllers.${c.name}.enabled`, "false"])) });
    assert.equal(none.filter((d) => d.kind === "CustomResourceDefinition").length, 0);
  });

  test("crds.enabled=false renders no CRD; crds.keep=false drops only the keep annotation", () => {
    const off = renderChart({ set: { "crds.enabled": "false" } });
    assert.equal(off.filter((d) => d.kind === "CustomResourceDefinition").length, 0);
    assert.equal(off.filter((d) => d.kind === "CompositeController").length, controllers.length);
    const notKept = renderChart({ set: { "crds.keep": "false" } }).filter((d) => d.kind === "CustomResourceDefinition");
    assert.equal(notKept.length, controllers.length);
    for (const crd of notKept) assert.equal((crd.metadata as any).annotations, undefined);
  });

  test("values.yaml has an entry for every controller kind and only those", () => {
    const values = parse(readFileSync(join(CHART_DIR, "values.yaml"), "utf8"));
    const schema = JSON.parse(readFileSync(join(CHART_DIR, "values.schema.json"), "utf8"));
    for (const def of controllers) {
      assert.equal(values.controllers[def.name]?.enabled, true, `controllers.${def.name}.enabled`);
      assert.ok(schema.properties.controllers.properties[def.name], `values.schema.json controllers.${def.name}`);
    }
  });
});

describe("helm template with toggles", () => {
  for (const def of controllers) {
    test(`controllers.${def.name}.enabled=false removes only its CompositeController`, () => {
      const docs = renderChart({ set: { [`controllers.${def.name}.enabled`]: "false" } });
      const names = docs.filter((d) => d.kind === "CompositeController").map((d) => d.metadata.name);
      const own = codeController(def.name, "").metadata.name;
      assert.equal(names.includes(own), false);
      assert.equal(names.length, controllers.length - 1);
    });
  }

  test("hook timeout and version come from values", () => {
    const set: Record<string, string> = {};
    for (const def of controllers) {
      set[`controllers.${def.name}.hookTimeout`] = "25s";
      set[`controllers.${def.name}.hookVersion`] = "v2";
    }
    const docs = renderChart({ set });
    for (const cc of docs.filter((d) => d.kind === "CompositeController")) {
      for (const hook of Object.values<any>(cc.spec.hooks)) {
        assert.equal(hook.webhook.timeout, "25s");
        assert.equal(hook.version, "v2");
      }
    }
  });

  test("build images reach the service as env, and only when set", () => {
    const docs = renderChart({ set: { "build.images.kaniko": "ghcr.io/osscontainertools/kaniko:v1.28.3", "build.images.gitSync": "registry.k8s.io/git-sync/git-sync:v4.7.1" } });
    const env = envOf(only(docs, "Deployment"));
    assert.equal(env.get("KANIKO_IMAGE"), "ghcr.io/osscontainertools/kaniko:v1.28.3");
    assert.equal(env.get("GIT_SYNC_IMAGE"), "registry.k8s.io/git-sync/git-sync:v4.7.1");
    assert.equal(env.has("BUILDKIT_IMAGE"), false);
    assert.equal(env.has("PREPARE_IMAGE"), false);
  });

  test("build.workspaceSizeLimit reaches the service as BUILD_WORKSPACE_SIZE_LIMIT, only when set; the schema refuses a non-quantity", () => {
    assert.equal(envOf(only(defaults, "Deployment")).has("BUILD_WORKSPACE_SIZE_LIMIT"), false);
    const env = envOf(only(renderChart({ set: { "build.workspaceSizeLimit": "10Gi" } }), "Deployment"));
    assert.equal(env.get("BUILD_WORKSPACE_SIZE_LIMIT"), "10Gi");
    const bad = templateChart({ set: { "build.workspaceSizeLimit": "10 GB" } });
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /workspaceSizeLimit/);
  });

  test("auth: Metacontroller's layout, a content-named Secret it reads, a tokens file the pods reload", () => {
    const token = "s3cret-".padEnd(40, "x");
    const docs = renderChart({ set: { "auth.enabled": "true", "auth.token": token } });
    for (const doc of docs) assertValidRenderedObject(doc, NAMESPACE);
    const secrets = docs.filter((d) => d.kind === "Secret");
    assert.equal(secrets.length, 2);
    const sent = secrets.find((s) => s.metadata.name !== `${FULLNAME}-auth`)!;
    const mounted = secrets.find((s) => s.metadata.name === `${FULLNAME}-auth`)!;
    const hash = createHash("sha256").update(token).digest("hex").slice(0, 10);
    assert.equal(sent.metadata.name, `${FULLNAME}-auth-${hash}`, "the token's hash names the Secret Metacontroller reads");
    assert.equal(sent.immutable, true);
    assert.equal(Buffer.from(sent.data.token, "base64").toString(), token);
    assert.equal(Buffer.from(mounted.data.tokens, "base64").toString(), `${token}\n`);
    const deployment = only(docs, "Deployment");
    const pod = deployment.spec.template.spec;
    const volume = pod.volumes.find((v: any) => v.secret?.secretName === mounted.metadata.name);
    assert.ok(volume, "the pods mount the Secret that is updated in place");
    assert.deepStrictEqual(volume.secret.items, [{ key: "tokens", path: "tokens" }]);
    const mount = pod.containers[0].volumeMounts.find((m: any) => m.name === volume.name);
    assert.equal(envOf(deployment).get("AUTH_TOKEN_FILE"), `${mount.mountPath}/tokens`);
    assert.equal(deployment.spec.template.metadata.annotations, undefined, "no checksum: a rollout would not help a rotation");
    for (const cc of docs.filter((d) => d.kind === "CompositeController")) {
      for (const hook of Object.values<any>(cc.spec.hooks)) {
        assert.deepStrictEqual(hook.webhook.authorization, {
          type: "Bearer",
          secretRef: { name: sent.metadata.name, namespace: NAMESPACE, key: "token" },
        });
        assert.equal(new URL(hook.webhook.url).search, "", "nothing the chart does not name by content, so no ?rev=");
      }
    }
  });

  test("auth.extraTokens are accepted by the pods, never sent by Metacontroller", () => {
    const token = "a".repeat(32);
    const next = "b".repeat(32);
    const docs = renderChart({ values: [{ auth: { enabled: true, token, extraTokens: [next] } }] });
    const mounted = docs.find((d) => d.kind === "Secret" && d.metadata.name === `${FULLNAME}-auth`)!;
    assert.equal(Buffer.from(mounted.data.tokens, "base64").toString(), `${token}\n${next}\n`);
    const sent = docs.find((d) => d.kind === "Secret" && d.metadata.name !== `${FULLNAME}-auth`)!;
    assert.equal(Buffer.from(sent.data.token, "base64").toString(), token);
  });

  test("auth with an existing Secret creates none and references it", () => {
    const docs = renderChart({ set: { "auth.enabled": "true", "auth.existingSecret": "hook-token", "auth.secretKey": "bearer" } });
    for (const doc of docs) assertValidRenderedObject(doc, NAMESPACE);
    assert.equal(docs.filter((d) => d.kind === "Secret").length, 0);
    const deployment = only(docs, "Deployment");
    assert.ok(deployment.spec.template.spec.volumes.some((v: any) => v.secret?.secretName === "hook-token"));
    assert.match(envOf(deployment).get("AUTH_TOKEN_FILE")!, /\/bearer$/);
    const cc = docs.find((d) => d.kind === "CompositeController")!;
    assert.deepStrictEqual((Object.values<any>(cc.spec.hooks)[0]).webhook.authorization, {
      type: "Bearer",
      secretRef: { name: "hook-token", namespace: NAMESPACE, key: "bearer" },
    });
  });

  test("auth.authorization and tls.caBundle replace the default blocks verbatim", () => {
    const authorization = { type: "Bearer", secretRef: { name: "x", namespace: "y", key: "z" } };
    const caBundle = { configMapRef: { name: "trust-bundle", namespace: "cert-manager", key: "ca.crt" } };
    const docs = renderChart({ values: [{ auth: { enabled: true, authorization }, tls: { enabled: true, secretName: "t", caBundle } }] });
    for (const cc of docs.filter((d) => d.kind === "CompositeController")) {
      assertValidCompositeController(cc);
      for (const hook of Object.values<any>(cc.spec.hooks)) {
        assert.deepStrictEqual(hook.webhook.authorization, authorization);
        assert.deepStrictEqual(hook.webhook.caBundle, caBundle);
      }
    }
  });

  test("values.schema.json refuses authorization and caBundle layouts Metacontroller does not have", () => {
    for (const values of [
      { auth: { enabled: true, authorization: { type: "Bearer", credentials: { secretRef: { name: "x", namespace: "y", key: "z" } } } } },
      { auth: { enabled: true, authorization: { secretRef: { name: "x", namespace: "y" } } } },
      { auth: { enabled: true, authorization: { type: "Basic", secretRef: { name: "x", namespace: "y", key: "z" } } } },
      { tls: { enabled: true, secretName: "t", caBundle: { secretRef: { name: "x" } } } },
      { tls: { enabled: true, secretName: "t", caBundle: { inline: "-----BEGIN CERTIFICATE-----", secretRef: { name: "x", namespace: "y" } } } },
      { auth: { enabled: true, token: "short" } },
    ]) {
      const result = templateChart({ values: [values] });
      assert.notEqual(result.status, 0, JSON.stringify(values));
      assert.match(result.stderr, /values don't meet the specifications of the schema/, JSON.stringify(values));
    }
  });

  test("image.repository takes the repository only: a tag or digest there is refused, a registry port is fine", () => {
    // In the repository a digest or tag renders an image reference no registry can serve
    // ("…/metahooks@sha256:…:0.1.0"); they belong in image.digest and image.tag.
    for (const repository of ["registry.example.com/metahooks@sha256:abc", "registry.example.com/metahooks:0.1.0"]) {
      const result = templateChart({ set: { "image.repository": repository } });
      assert.notEqual(result.status, 0, repository);
      assert.match(result.stderr, /values don't meet the specifications of the schema/, repository);
    }
    const docs = renderChart({ set: { "image.repository": "registry:5000/team/metahooks", "image.tag": "0.1.0" } });
    const deployment = docs.find((d) => d.kind === "Deployment")!;
    assert.equal(deployment.spec.template.spec.containers[0].image, "registry:5000/team/metahooks:0.1.0");
  });

  test("a generated token is random but well-formed, and the same in both Secrets", () => {
    const docs = renderChart({ set: { "auth.enabled": "true" } });
    const mounted = docs.find((d) => d.kind === "Secret" && d.metadata.name === `${FULLNAME}-auth`)!;
    const token = Buffer.from(mounted.data.token, "base64").toString();
    assert.match(token, /^[A-Za-z0-9]{48}$/);
    const hash = createHash("sha256").update(token).digest("hex").slice(0, 10);
    const sent = docs.find((d) => d.kind === "Secret" && d.metadata.name === `${FULLNAME}-auth-${hash}`);
    assert.ok(sent, "the Secret Metacontroller reads holds the same generated token");
    assert.equal(Buffer.from(sent.data.token, "base64").toString(), token);
  });

  test("TLS: https URLs with a caBundle, cert files from the Secret", () => {
    const docs = renderChart({ set: { "tls.enabled": "true", "tls.secretName": "hooks-tls" } });
    for (const doc of docs) assertValidRenderedObject(doc, NAMESPACE);
    const deployment = only(docs, "Deployment");
    const env = envOf(deployment);
    assert.equal(env.get("TLS_CERT_FILE"), "/var/run/metahooks/tls/tls.crt");
    assert.equal(env.get("TLS_KEY_FILE"), "/var/run/metahooks/tls/tls.key");
    assert.ok(deployment.spec.template.spec.volumes.some((v: any) => v.secret?.secretName === "hooks-tls"));
    const service = only(docs, "Service");
    assert.ok(service.spec.ports.some((p: any) => p.name === "https" && p.port === 8080));
    for (const cc of docs.filter((d) => d.kind === "CompositeController")) {
      for (const hook of Object.values<any>(cc.spec.hooks)) {
        assert.match(hook.webhook.url, new RegExp(`^https://${FULLNAME}\\.${NAMESPACE}\\.svc:8080/`));
        assert.deepStrictEqual(hook.webhook.caBundle, { secretRef: { name: "hooks-tls", namespace: NAMESPACE, key: "ca.crt" } });
      }
    }
    // Probes stay on the plain-HTTP admin port.
    assert.equal(deployment.spec.template.spec.containers[0].readinessProbe.httpGet.port, "admin");
  });

  test("TLS without a Secret name fails with a message that says what to set", () => {
    const result = templateChart({ set: { "tls.enabled": "true" } });
    assert.notEqual(result.status, 0);
    assert.match(result.stderr, /tls\.enabled=true needs tls\.secretName/);
  });

  test("ServiceMonitor only when the cluster has the monitoring.coreos.com/v1 API, named as group/version or group/version/Kind", () => {
    const without = renderChart({ set: { "serviceMonitor.enabled": "true" } });
    assert.equal(without.filter((d) => d.kind === "ServiceMonitor").length, 0);
    const other = renderChart({ set: { "serviceMonitor.enabled": "true" }, apiVersions: ["monitoring.coreos.com/v1alpha1"] });
    assert.equal(other.filter((d) => d.kind === "ServiceMonitor").length, 0);
    const groupVersion = renderChart({ set: { "serviceMonitor.enabled": "true" }, apiVersions: ["monitoring.coreos.com/v1"] });
    assert.equal(groupVersion.filter((d) => d.kind === "ServiceMonitor").length, 1, "--api-versions monitoring.coreos.com/v1");
    const docs = renderChart({ set: { "serviceMonitor.enabled": "true", "serviceMonitor.labels.release": "kube-prometheus" }, apiVersions: ["monitoring.coreos.com/v1/ServiceMonitor"] });
    const monitor = only(docs, "ServiceMonitor");
    assertValidRenderedObject(monitor, NAMESPACE);
    const service = only(docs, "Service");
    assert.equal(monitor.metadata.labels!.release, "kube-prometheus");
    for (const [k, v] of Object.entries<string>(monitor.spec.selector.matchLabels)) assert.equal(service.metadata.labels![k], v);
    assert.deepStrictEqual(monitor.spec.namespaceSelector.matchNames, [NAMESPACE]);
    const endpoint = monitor.spec.endpoints[0];
    assert.ok(service.spec.ports.some((p: any) => p.name === endpoint.port), "the endpoint names a Service port");
    assert.equal(endpoint.port, "admin");
    assert.equal(endpoint.path, "/metrics");
  });

  test("the NetworkPolicy admits Metacontroller from networkPolicy.metacontroller.namespace", () => {
    const docs = renderChart({ set: { "networkPolicy.metacontroller.namespace": "platform" } });
    const peer = only(docs, "NetworkPolicy").spec.ingress[0].from[0];
    assert.deepStrictEqual(peer.namespaceSelector.matchLabels, { "kubernetes.io/metadata.name": "platform" });
  });

  test("one replica drops the PDB; networkPolicy.enabled=false drops the policy", () => {
    const docs = renderChart({ set: { replicaCount: "1", "networkPolicy.enabled": "false" } });
    assert.equal(docs.filter((d) => d.kind === "PodDisruptionBudget").length, 0);
    assert.equal(docs.filter((d) => d.kind === "NetworkPolicy").length, 0);
  });

  test("release and namespace names flow into the hook URLs (release named like the chart)", () => {
    const docs = renderChart({ releaseName: "metahooks", namespace: "platform" });
    const service = only(docs, "Service");
    assert.equal(service.metadata.name, "metahooks");
    for (const doc of docs) assertValidRenderedObject(doc, "platform");
    for (const cc of docs.filter((d) => d.kind === "CompositeController")) {
      for (const hook of Object.values<any>(cc.spec.hooks)) assert.equal(new URL(hook.webhook.url).host, "metahooks.platform.svc:8080");
    }
  });

  test("the Node heap is half the container's memory limit; an unreadable limit fails the render; NODE_OPTIONS in env wins", () => {
    const heap = (set: Record<string, string>, values: unknown[] = []) => envOf(only(renderChart({ set, values }), "Deployment")).get("NODE_OPTIONS");
    assert.equal(heap({}), "--max-old-space-size=256", "default limit 512Mi");
    assert.equal(heap({ "resources.limits.memory": "1Gi" }), "--max-old-space-size=512");
    assert.equal(heap({ "resources.limits.memory": "300M" }), "--max-old-space-size=143");
    assert.equal(heap({ "resources.limits.memory": "268435456" }), "--max-old-space-size=128");
    assert.equal(heap({}, [{ resources: { limits: null } }]), undefined, "no limit, no flag");
    assert.equal(heap({}, [{ env: [{ name: "NODE_OPTIONS", value: "--max-old-space-size=99" }] }]), "--max-old-space-size=99");
    const bad = templateChart({ set: { "resources.limits.memory": "0.5Gi" } });
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /resources\.limits\.memory "0\.5Gi"/);
    // A limit whose half-heap cannot hold one request, and a request above the limit, fail the
    // render instead of a pod that crash-loops or that the API server refuses.
    const tiny = templateChart({ set: { "resources.limits.memory": "1Mi" } });
    assert.notEqual(tiny.status, 0);
    assert.match(tiny.stderr, /resources\.limits\.memory "1Mi" is below 128Mi/);
    assert.equal(heap({ "resources.limits.memory": "128Mi", "resources.requests.memory": "128Mi" }), "--max-old-space-size=64");
    const above = templateChart({ set: { "resources.requests.memory": "1Gi" } });
    assert.notEqual(above.status, 0);
    assert.match(above.stderr, /resources\.requests\.memory "1Gi" is above resources\.limits\.memory "512Mi"/);
    // The checks hold also when env sets its own NODE_OPTIONS (the chart then derives no heap).
    const ownHeap = templateChart({ set: { "resources.requests.memory": "1Gi" }, values: [{ env: [{ name: "NODE_OPTIONS", value: "--max-old-space-size=99" }] }] });
    assert.match(ownHeap.stderr, /resources\.requests\.memory "1Gi" is above/);
    const oddRequest = templateChart({ set: { "resources.requests.memory": "96Ki" } });
    assert.match(oddRequest.stderr, /resources\.requests\.memory "96Ki": use bytes or a Mi, Gi, M or G quantity/);
  });

  test("values that cannot work fail the render: a digest in image.tag, a zero hook timeout", () => {
    const digestInTag = templateChart({ set: { "image.tag": "1.0@sha256:abc" } });
    assert.notEqual(digestInTag.status, 0);
    assert.match(digestInTag.stderr, /\/image\/tag/);
    assert.equal(templateChart({ set: { "image.tag": "v1.2.3_rc-1" } }).status, 0);
    for (const zero of ["0s", "0.0m", "00ms"]) {
      const result = templateChart({ set: { "controllers.cronjob.hookTimeout": zero } });
      assert.notEqual(result.status, 0, zero);
      assert.match(result.stderr, new RegExp(`controllers\\.cronjob\\.hookTimeout "${zero.replace(".", "\\.")}" is zero`));
    }
    assert.equal(templateChart({ set: { "controllers.cronjob.hookTimeout": "0.5s" } }).status, 0);
  });

  test("everything switched on renders only valid objects", () => {
    const docs = renderChart({
      set: { "auth.enabled": "true", "tls.enabled": "true", "tls.secretName": "t", "serviceMonitor.enabled": "true", "image.digest": `sha256:${"a".repeat(64)}`, credentialsRevision: "r2" },
      values: [{ env: [{ name: "NODE_OPTIONS", value: "--max-old-space-size=200" }], imagePullSecrets: [{ name: "regcred" }], podAnnotations: { a: "b" } }],
      apiVersions: ["monitoring.coreos.com/v1/ServiceMonitor"],
    });
    for (const doc of docs) assertValidRenderedObject(doc, NAMESPACE);
    assert.equal(only(docs, "Deployment").spec.template.spec.containers[0].image, `${TEST_IMAGE_REPOSITORY}@sha256:${"a".repeat(64)}`);
  });
});

describe("names that YAML 1.1 would retype stay strings (kubectl and helm read YAML 1.1)", () => {
  // All valid names: `on`, `no` and `0755` are DNS labels, and a namespace may start with a digit.
  // Unquoted, `namespace: 0755` is the number 493 and `instance: on` the boolean true, which the
  // API server refuses; every value the chart takes from a name or a value is quoted.
  const strings = (docs: KubeDoc[]): Array<[string, unknown]> => {
    const found: Array<[string, unknown]> = [];
    for (const doc of docs) {
      const where = `${doc.kind} ${String(doc.metadata?.name)}`;
      found.push([`${where} metadata.name`, doc.metadata?.name], [`${where} metadata.namespace`, doc.metadata?.namespace ?? ""]);
      for (const [k, v] of Object.entries(doc.metadata?.labels ?? {})) found.push([`${where} label ${k}`, v]);
      for (const [k, v] of Object.entries((doc.metadata as { annotations?: Record<string, unknown> })?.annotations ?? {})) found.push([`${where} annotation ${k}`, v]);
    }
    return found;
  };

  test("release `on` in namespace `0755`, with nameOverride `no` and every optional part on", () => {
    const options = {
      releaseName: "on",
      namespace: "0755",
      set: {
        nameOverride: "no",
        "networkPolicy.metacontroller.namespace": "off",
        "auth.enabled": "true",
        "tls.enabled": "true",
        "tls.secretName": "yes",
        "serviceMonitor.enabled": "true",
        "admissionWebhooks.enabled": "true",
        "receiver.enabled": "true",
        "receiver.ingress.enabled": "true",
      },
      values: [{ priorityClassName: "on", topologySpread: { topologyKey: "yes" }, receiver: { ingress: { className: "no", hosts: ["h.example.com"] } } }],
      apiVersions: ["monitoring.coreos.com/v1/ServiceMonitor"],
    };
    const result = templateChart(options);
    assert.equal(result.status, 0, result.stderr);
    const docs = renderChart(options);
    assert.ok(docs.some((d) => d.kind === "ServiceMonitor") && docs.some((d) => d.kind === "Certificate") && docs.some((d) => d.kind === "Ingress"), "the optional parts rendered");
    const wrong = strings(docs).filter(([, v]) => typeof v !== "string");
    assert.deepEqual(wrong, [], "every name, namespace, label and annotation is a string under YAML 1.1");
    for (const doc of docs) if (doc.metadata.namespace !== undefined) assert.equal(doc.metadata.namespace, "0755");
    const deployment = only(docs, "Deployment");
    assert.equal(deployment.metadata.labels!["app.kubernetes.io/instance"], "on");
    assert.equal(deployment.metadata.labels!["app.kubernetes.io/name"], "no");
    const volumes: Array<{ secret?: { secretName?: unknown } }> = deployment.spec.template.spec.volumes ?? [];
    assert.ok(volumes.some((v) => v.secret?.secretName === "yes"), "tls.secretName stays the string yes");
    const podSpec = deployment.spec.template.spec;
    assert.equal(podSpec.priorityClassName, "on");
    assert.equal(podSpec.topologySpreadConstraints[0].topologyKey, "yes");
    assert.equal(only(docs, "Ingress").spec.ingressClassName, "no");
    const existing = renderChart({ releaseName: "r", set: { "auth.enabled": "true" }, values: [{ auth: { existingSecret: "0755", secretKey: "123" } }] });
    const authVolume = only(existing, "Deployment").spec.template.spec.volumes.find((v: { name: string }) => v.name === "auth");
    assert.deepEqual(authVolume.secret, { secretName: "0755", items: [{ key: "123", path: "123" }] });
    const policy = only(docs, "NetworkPolicy");
    assert.equal(policy.spec.ingress[0].from[0].namespaceSelector.matchLabels["kubernetes.io/metadata.name"], "off");
    // And the whole output reads the same under YAML 1.2.
    const as12 = parseAllDocuments(result.stdout, { version: "1.2" }).map((d) => d.toJSON()).filter(Boolean);
    assert.deepStrictEqual(docs, as12);
  });
});

function readdirYaml(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.endsWith(".yaml")).sort();
}
