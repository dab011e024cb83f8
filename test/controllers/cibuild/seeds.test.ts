// Each seed sample, unchanged, end to end through the hook: fresh → Job → Deployment → Ready.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { runCliInProcess } from "../../helpers/cli.ts";
import { createHash } from "node:crypto";
import { parse } from "yaml";
import { assertValidKubeObject } from "../../helpers/k8s-schema.ts";
import { DIGEST, SEED_SPECS, SHA, childOf, lifecycle } from "./world.ts";

const samples: Record<string, string> = {
  "build-go": "cibuild-go.yaml",
  "build-java": "cibuild-java.yaml",
  "build-nodejs": "cibuild-nodejs.yaml",
  "build-ace": "cibuild-ace.yaml",
};
// SHA-256 of the seed sample files as shipped in shared/seed-samples/cibuild (byte for byte).
const SEED_FILE_SHA256: Record<string, string> = {
  "cibuild-ace.yaml": "5352c4a58c0929b793a592ce89410ac56ba36f2a4a0fbbbee10f9c32e0b4e86f",
  "cibuild-go.yaml": "80387e2901300929fee631d64ea49146f31335c97596ab546511ec1ce9c109cb",
  "cibuild-java.yaml": "36bb9e69f4f9de13a688161cac06150121e4d6e276042102103b866f4aa907f5",
  "cibuild-nodejs.yaml": "c33d70ea808470b594b6c3539a77818c37229af55029584941d43561f4630afc",
};

test("examples/cibuild holds the four seed samples unchanged, and a git-creds Secret", () => {
  for (const [name, file] of Object.entries(samples)) {
    const text = readFileSync(`examples/cibuild/${file}`, "utf8");
    assert.equal(createHash("sha256").update(text).digest("hex"), SEED_FILE_SHA256[file], `${file} changed`);
    const doc = parse(text);
    assert.equal(doc.apiVersion, "cicd.cicd.com/v1alpha1");
    assert.equal(doc.metadata.name, name);
    assert.deepStrictEqual(doc.spec, SEED_SPECS[name]);
  }
  const secret = parse(readFileSync("examples/cibuild/git-creds-secret.example.yaml", "utf8"));
  assert.deepStrictEqual(Object.keys(secret.stringData).sort(), ["known_hosts", "ssh"]);
});

for (const [name, spec] of Object.entries(SEED_SPECS)) {
  test(`seed sample ${name}: Job, then a digest-pinned Deployment, then Ready`, () => {
    const L = lifecycle(name, spec);
    const [fresh, running, succeeded, available] = L.stages.map((s) => s.response);
    const job = childOf(fresh!, "Job") as any;
    assert.equal(job.metadata.name, `${name}-${fresh!.status.buildHash}`);
    const gitArgs: string[] = job.spec.template.spec.initContainers[0].args;
    assert.ok(gitArgs.includes(`--repo=${spec.SCMRepoURL}`));
    assert.ok(gitArgs.includes(`--ref=${(spec.SCMBranch as string | undefined) ?? "HEAD"}`));
    const prepareEnv = job.spec.template.spec.initContainers[1].env;
    assert.deepStrictEqual(prepareEnv[0], { name: "CONTEXT_DIR", value: (spec.subContext as string | undefined) ?? "." });
    // kaniko runs as the last init container; the `digest` step follows it.
    const buildArgs: string[] = job.spec.template.spec.initContainers[2].args;
    assert.equal(job.spec.template.spec.initContainers[2].name, "build");
    assert.deepStrictEqual(job.spec.template.spec.containers.map((c: any) => c.name), ["digest"]);
    assert.ok(buildArgs.includes(`--destination=${spec.imageDestination}`));
    assert.ok(buildArgs.includes("--insecure"), "legacy mode pushes over HTTP to kind-registry:5000");
    assert.equal(fresh!.status.phase, "Pending");
    assert.equal(running!.status.phase, "Building");
    assert.equal((running!.status.currentBuild as any).commitSHA, SHA);
    assert.equal(succeeded!.status.phase, "Deploying");
    const repository = (spec.imageDestination as string).replace(/:[^:/]+$/, "");
    const deployment = childOf(succeeded!, "Deployment") as any;
    assert.equal(deployment.metadata.name, `deploy-${name}`);
    assert.deepStrictEqual(deployment.spec.selector.matchLabels, { app: `app-${name}` });
    assert.equal(deployment.spec.template.spec.containers[0].image, `${repository}@${DIGEST}`);
    assert.equal(available!.status.phase, "Ready");
    assert.deepStrictEqual(
      (available!.status.conditions as any[]).map((c) => `${c.type}=${c.status}`),
      ["SpecValid=True", "BuildSucceeded=True", "Deployed=True", "Ready=True"],
    );
    for (const r of L.stages) for (const c of r.response.children) assertValidKubeObject(c);
  });
}

test("`metahooks sync cibuild` over the example requests goes from Job to Deployment to Ready", async () => {
  const files = readdirSync("examples/cibuild").filter((f) => f.startsWith("go-") && f.endsWith(".request.json")).sort();
  assert.equal(files.length, 4);
  const nows = ["2026-03-02T10:00:05Z", "2026-03-02T10:01:00Z", "2026-03-02T10:04:31Z", "2026-03-02T10:06:01Z"];
  const phases: string[] = [];
  for (const [i, f] of files.entries()) {
    const out = await runCliInProcess(["sync", "cibuild", "--now", nows[i]!], { input: readFileSync(`examples/cibuild/${f}`) });
    assert.equal(out.status, 0, out.stderr);
    const response = JSON.parse(out.stdout);
    phases.push(`${response.status.phase}:${response.children.map((c: any) => c.kind).join("+")}`);
  }
  assert.deepStrictEqual(phases, ["Pending:Job", "Building:Job", "Deploying:Deployment+Job", "Ready:Deployment+Job"]);
});
