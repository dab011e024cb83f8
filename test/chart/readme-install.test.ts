// The README's install instructions: Metacontroller's values snippet has the shape its chart
// reads and the hardening our Deployment has; every install command sets an image; the
// permissions table covers what our CompositeControllers make Metacontroller touch.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { parse, parseAllDocuments } from "yaml";
import { Pod } from "kubernetes-models/v1/Pod";
import { controllers } from "../../src/controllers/registry.ts";

const readme = readFileSync("README.md", "utf8");

function section(title: string): string {
  const start = readme.indexOf(`## ${title}`);
  assert.ok(start >= 0, `README has no section "${title}"`);
  const end = readme.indexOf("\n## ", start + 3);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** The fenced code blocks of a README part, by info string. */
function codeBlocks(text: string, lang: string): string[] {
  return [...text.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]!);
}

// Top-level keys of metacontroller-helm 4.17.2's values.yaml (deploy/helm/metacontroller): the
// chart has no values.schema.json, so a misspelt key would be ignored without a word.
const METACONTROLLER_CHART_VALUES = [
  "rbac", "image", "imagePullSecrets", "nameOverride", "namespaceOverride", "fullnameOverride", "serviceAccount",
  "podAnnotations", "podSecurityContext", "securityContext", "resources", "nodeSelector", "tolerations", "affinity",
  "env", "command", "commandArgs", "probes", "priorityClassName", "clusterRole", "replicas", "podDisruptionBudget", "service",
];

function metacontrollerValues(): any {
  const install = section("Install on a cluster");
  const block = codeBlocks(install, "yaml").find((b) => b.startsWith("# metacontroller-values.yaml"));
  assert.ok(block, "the README gives Metacontroller's values as a yaml block starting `# metacontroller-values.yaml`");
  return parse(block);
}

test("the README's Metacontroller values use only keys its chart reads, and make a valid Pod", () => {
  const values = metacontrollerValues();
  for (const key of Object.keys(values)) assert.ok(METACONTROLLER_CHART_VALUES.includes(key), `metacontroller-helm has no value ${key}`);
  // Where its StatefulSet template puts them: podSecurityContext on the pod, securityContext and
  // resources on the one container.
  const pod = new Pod({
    metadata: { name: "metacontroller-0" },
    spec: {
      securityContext: values.podSecurityContext,
      containers: [{ name: "metacontroller-helm", image: "ghcr.io/metacontroller/metacontroller:v4.17.2", securityContext: values.securityContext, resources: values.resources }],
    },
  });
  pod.validate();
});

test("the README's Metacontroller values meet the hardening our own Deployment has", () => {
  const values = metacontrollerValues();
  const ours = parse(readFileSync("charts/metahooks/values.yaml", "utf8"));
  assert.equal(values.podSecurityContext.runAsNonRoot, true);
  assert.ok(values.podSecurityContext.runAsUser > 0);
  assert.deepStrictEqual(values.podSecurityContext.seccompProfile, ours.podSecurityContext.seccompProfile);
  assert.equal(values.securityContext.allowPrivilegeEscalation, ours.securityContext.allowPrivilegeEscalation);
  assert.deepStrictEqual(values.securityContext.capabilities, ours.securityContext.capabilities);
  assert.equal(values.securityContext.readOnlyRootFilesystem, true);
  assert.ok(values.resources.requests.cpu && values.resources.requests.memory && values.resources.limits.memory);
  // fullnameOverride: the StatefulSet our NOTES name (statefulset/metacontroller).
  assert.equal(values.fullnameOverride, "metacontroller");
});

test("the README installs Metacontroller from its own OCI chart with those values", () => {
  const install = section("Install on a cluster");
  assert.match(install, /helm install metacontroller oci:\/\/ghcr\.io\/metacontroller\/metacontroller-helm --version [0-9.]+ \\\n\s+-n metacontroller --create-namespace -f metacontroller-values\.yaml/);
  assert.doesNotMatch(readme, /metacontroller\.enabled|helm dependency update/, "the chart has no Metacontroller dependency any more");
});

/** Every README command `helm <verb> metahooks charts/metahooks …` with its continuation lines. */
function helmCommands(verb: string): string[] {
  return [...readme.matchAll(new RegExp(`helm ${verb} metahooks charts/metahooks(?:[^\\n]*\\\\\\n)*[^\\n]*`, "g"))].map((m) => m[0]);
}

test("every `helm install … charts/metahooks` in the README sets image.repository and the namespace", () => {
  const commands = helmCommands("install");
  assert.ok(commands.length >= 1, `found ${commands.length}`);
  for (const command of commands) {
    assert.match(command, /--set image\.repository=\S+/, command);
    assert.match(command, /-n metahooks\b/, command);
  }
});

test("every later `helm upgrade … charts/metahooks` in the README targets that release's namespace and keeps its values", () => {
  const commands = helmCommands("upgrade");
  assert.ok(commands.length >= 2, `found ${commands.length}`);
  for (const command of commands) {
    assert.match(command, /-n metahooks\b/, command);
    assert.match(command, /--reuse-values\b/, command);
  }
});

test("\"Permissions Metacontroller needs\" covers every parent, its status, every child and the customize Pods", () => {
  const permissions = section("Permissions Metacontroller needs");
  const rows = permissions.split("\n").filter((l) => l.startsWith("| `"));
  // The core group is written `""`, as in RBAC rules.
  const rowFor = (group: string, resource: string) =>
    rows.find((r) => r.split("|")[1]!.includes(`\`${group === "" ? '""' : group}\``) && r.split("|")[2]!.includes(`\`${resource}\``));
  for (const def of controllers) {
    const cc = def.compositeController("http://x") as any;
    const [group] = cc.spec.parentResource.apiVersion.includes("/") ? cc.spec.parentResource.apiVersion.split("/") : [""];
    const parent = rowFor(group, cc.spec.parentResource.resource);
    assert.ok(parent && /watch/.test(parent) && /update/.test(parent), `${def.name}: parent ${cc.spec.parentResource.resource}`);
    assert.ok(rowFor(group, `${cc.spec.parentResource.resource}/status`), `${def.name}: ${cc.spec.parentResource.resource}/status`);
    for (const child of cc.spec.childResources) {
      const childGroup = child.apiVersion.includes("/") ? child.apiVersion.split("/")[0] : "";
      const row = rowFor(childGroup, child.resource);
      assert.ok(row, `${def.name}: child ${child.resource}`);
      for (const verb of ["list", "watch", "create", "update", "patch", "delete"]) assert.ok(row.includes(verb), `${child.resource}: ${verb}`);
    }
  }
  assert.ok(rowFor("", "pods")?.includes("watch"), "customize: Pods");
  const secrets = rowFor("", "secrets");
  assert.ok(secrets && /list, watch/.test(secrets.replaceAll("*", "")) && /cluster-wide/.test(secrets), "Secrets: list/watch cluster-wide with auth or TLS");
});

test("the install section's CIBuild example is valid and uses the structured output with a push Secret", async () => {
  const { checkSpec } = await import("../../src/controllers/cibuild/validate.ts");
  const install = section("Install on a cluster");
  const heredoc = install.match(/kubectl apply -f - <<'YAML'\n([\s\S]*?)\nYAML/);
  assert.ok(heredoc, "the install section applies its examples with a YAML heredoc");
  const docs = parseAllDocuments(heredoc[1]!).map((d) => d.toJS());
  const build = docs.find((d) => d.kind === "CIBuild");
  assert.ok(build, "a CIBuild example");
  assert.equal(checkSpec(build.spec).valid, true);
  assert.equal(build.spec.imageDestination, undefined, "legacy imageDestination forces an insecure push without credentials");
  assert.ok(build.spec.output?.image && build.spec.output?.pushSecret);
});
