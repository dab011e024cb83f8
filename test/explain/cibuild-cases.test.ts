import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { runExplain } from "../../src/explain/command.ts";
import { formatExplanation } from "../../src/explain/summary.ts";
import { runHook } from "../../src/metacontroller/run-hook.ts";
import { configureControllers } from "../../src/controllers/registry.ts";
import { startFakeApiServer } from "../helpers/fake-apiserver.ts";
import { clusterFromRequest, labelledRequest } from "../helpers/recorded-cluster.ts";

// The CIBuild golden fixtures are recorded hook requests (parent, Jobs, Deployment, Service and
// the build Pods as related objects); served as live API objects they are the shared CIBuild
// cases as a cluster would show them.
const DIR = "test/fixtures/cibuild";
const configured = configureControllers({}).find((c) => c.def.name === "cibuild")!;
const controllers = [configured];

function load(name: string) {
  const request = JSON.parse(readFileSync(join(DIR, name, "request.json"), "utf8"));
  const now = readFileSync(join(DIR, name, "now.txt"), "utf8").trim();
  const hookFile = join(DIR, name, "hook.txt");
  const hook = existsSync(hookFile) ? readFileSync(hookFile, "utf8").trim() : "sync";
  return { request, now, hook };
}

async function explain(name: string, json = false) {
  const { request, now } = load(name);
  const api = await startFakeApiServer(clusterFromRequest(request, "cibuilds"));
  try {
    const args = ["cibuild", request.parent.metadata.name, "-n", request.parent.metadata.namespace, "--kubeconfig", api.writeKubeconfig(), "--now", now];
    const out = await runExplain(json ? [...args, "-o", "json"] : args, { env: {}, clock: () => new Date(0), controllers });
    assert.equal(out.exitCode, 0, out.stderr);
    return { out: out.stdout, request, now, requests: api.requests };
  } finally {
    await api.close();
  }
}

test("explain -o json rebuilds each recorded CIBuild request (children and build Pods) and answers what the hook answers", async () => {
  const fixtures = readdirSync(DIR).filter((n) => load(n).hook !== "customize").sort();
  assert.ok(fixtures.length >= 15);
  for (const name of fixtures) {
    const { out, request, now } = await explain(name, true);
    const labelled = labelledRequest(request);
    const hook = labelled.parent.metadata.deletionTimestamp ? "finalize" : "sync";
    const expected = runHook(configured.def, hook, labelled, new Date(now), configured.options).response;
    assert.deepEqual(JSON.parse(out), JSON.parse(JSON.stringify(expected)), name);
  }
});

test("explain says why a build failed: git clone (B6), missing context dir (B2)", async () => {
  const clone = await explain("failed-clone");
  assert.match(clone.out, /^Phase: +Failed$/m, clone.out);
  assert.match(clone.out, /^Build: +build-go-c50f2918c7 Failed because GitCloneFailed: git-sync: .*Permission denied \(publickey\)/m);
  assert.match(clone.out, /^ {2}BuildSucceeded=False GitCloneFailed: /m);
  // Build Pods are read through the customize hook's label selector.
  assert.ok(clone.requests.some((r) => r.startsWith("/api/v1/namespaces/") && r.includes("/pods?labelSelector=cicd.cicd.com%2Fcibuild%3D")), clone.requests.join("\n"));
  const context = await explain("failed-context-dir");
  assert.match(context.out, /^Build: +\S+ Failed because ContextDirNotFound/m, context.out);
});

test("explain keeps one fact per line: multi-line messages (git's stderr) are joined", async () => {
  const { out } = await explain("failed-clone");
  for (const line of out.trimEnd().split("\n")) {
    assert.match(line, /^(\S|  \S)/, `a line that does not start a fact: ${JSON.stringify(line)}`);
  }
  const text = formatExplanation({
    def: configured.def,
    parent: { apiVersion: "cicd.cicd.com/v1alpha1", kind: "CIBuild", metadata: { name: "x", namespace: "ns" } },
    children: {},
    response: { status: { phase: "Failed", conditions: [{ type: "BuildSucceeded", status: "False", reason: "BuildFailed", message: "step 1\r\nstep 2\n\nerror: boom" }] }, children: [] },
    decisions: [],
    finalizing: false,
    now: new Date(0),
  });
  assert.match(text, /^ {2}BuildSucceeded=False BuildFailed: step 1 \| step 2 \| error: boom$/m);
});
