/**
 * The push receiver on a real kube-apiserver, with exactly the chart's RBAC: the chart's
 * ClusterRole and binding (`receiver.enabled=true`) are applied with kubectl, the receiver runs
 * with a token of that ServiceAccount, and a signed push patches a real CIBuild. Also proves the
 * role is enough (list CIBuilds, get the named Secret, merge-patch the annotation) and no more
 * (other Secrets, listing Secrets, status, deletes, other kinds are forbidden).
 */
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import request from "supertest";
import { createNamespace, createObject, expectStatus, getObject, kubeConfig, requireE2eHarness } from "./helpers/kube.ts";
import { installOurCrds } from "./helpers/setup.ts";
import { kubectl, mustSucceed } from "./helpers/tools.ts";
import { renderChart } from "../helpers/helm.ts";
import { silentLogger } from "../helpers/silent-logger.ts";
import { createReceiverApp } from "../../src/receiver/app.ts";
import { loadReceiverKube, type ReceiverKube } from "../../src/receiver/kube.ts";
import { ANNOTATION_PUSHED_COMMIT } from "../../src/controllers/cibuild/naming.ts";

requireE2eHarness();
const SECRET = "e2e-push-secret";
const SHA = "0123456789abcdef0123456789abcdef01234567";
let ns = "";
let other = "";
let kube: ReceiverKube;
let receiverKubeconfig = "";

before(async () => {
  installOurCrds();
  ns = await createNamespace("e2e-receiver");
  other = await createNamespace("e2e-receiver-other");
  const release = await createNamespace("e2e-receiver-release");
  // The chart's RBAC for the receiver, as helm renders it, bound to a ServiceAccount of the release.
  const docs = renderChart({ namespace: release, releaseName: "hooks", values: [{ receiver: { enabled: true } }] });
  const rbac = docs.filter((d) => d.kind === "ClusterRole" || d.kind === "ClusterRoleBinding");
  assert.equal(rbac.length, 2);
  const sa = rbac.find((d) => d.kind === "ClusterRoleBinding")!.subjects[0].name as string;
  expectStatus(await createObject({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name: sa, namespace: release } }), [201], "ServiceAccount");
  mustSucceed(kubectl(["apply", "-f", "-"], rbac.map((d) => JSON.stringify(d)).join("\n---\n")), "kubectl apply the receiver RBAC");
  const token = mustSucceed(kubectl(["create", "token", sa, "-n", release, "--duration=1h"]), "kubectl create token").trim();
  const cluster = kubeConfig().getCurrentCluster()!;
  const dir = mkdtempSync(join(tmpdir(), "receiver-e2e-"));
  const file = join(dir, "kubeconfig");
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "e2e", cluster: { server: cluster.server, ...(cluster.caFile ? { "certificate-authority": cluster.caFile } : {}), ...(cluster.caData ? { "certificate-authority-data": cluster.caData } : {}), ...(cluster.skipTLSVerify ? { "insecure-skip-tls-verify": true } : {}) } }],
      users: [{ name: "receiver", user: { token } }],
      contexts: [{ name: "receiver", context: { cluster: "e2e", user: "receiver" } }],
      "current-context": "receiver",
    }),
  );
  receiverKubeconfig = file;
  kube = await loadReceiverKube(file);
  for (const namespace of [ns, other]) {
    expectStatus(await createObject({ apiVersion: "v1", kind: "Secret", metadata: { name: "cibuild-webhook", namespace }, stringData: { token: namespace === ns ? SECRET : "other-secret" } }), [201], "Secret");
    expectStatus(await createObject({ apiVersion: "v1", kind: "Secret", metadata: { name: "unrelated", namespace }, stringData: { token: "x" } }), [201], "Secret");
    expectStatus(
      await createObject({
        apiVersion: "cicd.cicd.com/v1alpha1",
        kind: "CIBuild",
        metadata: { name: "web", namespace },
        spec: { source: { git: { url: "https://github.com/acme/web.git", revision: "main" } }, output: { image: "registry.example.com/web" }, triggers: { push: { secretRef: { name: "cibuild-webhook" } } } },
      }),
      [201],
      "CIBuild",
    );
  }
});

test("a signed push patches the real CIBuild's annotation with the chart's RBAC only; the other namespace is untouched", async () => {
  const app = createReceiverApp({ kube, logger: silentLogger, clock: () => new Date("2026-06-01T09:00:00Z") });
  const body = JSON.stringify({ ref: "refs/heads/main", after: SHA, repository: { clone_url: "https://github.com/acme/web.git", default_branch: "main" } });
  const res = await request(app)
    .post(`/push/${ns}`)
    .set({ "X-GitHub-Event": "push", "X-GitHub-Delivery": "e2e-1", "X-Hub-Signature-256": `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`, "Content-Type": "application/json" })
    .send(body);
  assert.equal(res.status, 202, JSON.stringify(res.body));
  const live = await getObject("cicd.cicd.com/v1alpha1", "CIBuild", ns, "web");
  const record = JSON.parse(live.body.metadata.annotations[ANNOTATION_PUSHED_COMMIT]);
  assert.equal(record.sha, SHA);
  assert.equal(live.body.metadata.generation, 1, "metadata only: the spec's generation did not move");
  const untouched = await getObject("cicd.cicd.com/v1alpha1", "CIBuild", other, "web");
  assert.equal(untouched.body.metadata.annotations?.[ANNOTATION_PUSHED_COMMIT], undefined);
  // The same delivery signed for this namespace but sent to the other one: 401, nothing written.
  const wrong = await request(app)
    .post(`/push/${other}`)
    .set({ "X-GitHub-Event": "push", "X-GitHub-Delivery": "e2e-2", "X-Hub-Signature-256": `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`, "Content-Type": "application/json" })
    .send(body);
  assert.equal(wrong.status, 401);
});

test("the receiver's token can do no more than the chart says", async () => {
  assert.equal(await kube.readSecretKey(ns, "unrelated", "token"), undefined, "a Secret not in receiver.secretNames is not readable (403)");
  assert.ok(await kube.readSecretKey(ns, "cibuild-webhook", "token"));
  // A later --kubeconfig wins: kubectl asks as the receiver's ServiceAccount (token only).
  const can = (...args: string[]) => kubectl(["--kubeconfig", receiverKubeconfig, "auth", "can-i", ...args, "-n", ns]).stdout.trim();
  assert.equal(can("list", "cibuilds.cicd.cicd.com"), "yes");
  // RBAC cannot limit a patch to one annotation (the README says so); the code only sends one.
  assert.equal(can("patch", "cibuilds.cicd.cicd.com"), "yes");
  for (const args of [["list", "secrets"], ["watch", "secrets"], ["patch", "cibuilds.cicd.cicd.com", "--subresource=status"], ["delete", "cibuilds.cicd.cicd.com"], ["create", "pods"], ["get", "configmaps"]]) {
    assert.equal(can(...args), "no", args.join(" "));
  }
});
