import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import fc from "fast-check";
import { controllers } from "../../src/controllers/registry.ts";
import { cronJobCelRules } from "../../src/controllers/cronjob/cel-rules.ts";
import { cronJobController } from "../../src/controllers/cronjob/index.ts";
import { ciBuildController } from "../../src/controllers/cibuild/index.ts";
import type { Kind } from "../../src/controllers/types.ts";
import { ciBuildCelRules } from "../../src/controllers/cibuild/cel-rules.ts";
import { celEnvironmentForSchema, collectValidations, fieldPathExists } from "../helpers/cel.ts";

function specSchemaOf(crd: Record<string, unknown>): Record<string, any> {
  return (crd as any).spec.versions[0].schema.openAPIV3Schema.properties.spec;
}

const cronJobSpec = specSchemaOf(cronJobController.crd());
const ciBuildSpec = specSchemaOf(ciBuildController.crd());

const jobTemplate = { spec: { template: { spec: { containers: [{ name: "c", image: "busybox" }], restartPolicy: "OnFailure" } } } };
const cj = (spec: Record<string, unknown>) => ({ schedule: "* * * * *", jobTemplate, ...spec });

/** Per rule (by index): a spec the rule accepts and one it rejects. */
const cronJobExamples: Array<[unknown, unknown]> = [
  [cj({ startingDeadlineSeconds: 0 }), cj({ startingDeadlineSeconds: -1 })],
  [cj({ successfulJobsHistoryLimit: 0 }), cj({ successfulJobsHistoryLimit: -3 })],
  [cj({}), cj({ failedJobsHistoryLimit: -1 })],
  [cj({ schedule: "0 * * * *", timeZone: "Etc/UTC" }), cj({ schedule: "TZ=Europe/Berlin 0 * * * *" })],
  [cj({ timeZone: "America/Argentina/Buenos_Aires" }), cj({ timeZone: "Local" })],
];
const base = { SCMRepoURL: "https://git.example.com/a.git", imageDestination: "kind-registry:5000/a:latest" };
const structured = { source: { git: { url: "https://git.example.com/a.git" } }, output: { image: "registry.example.com/a:1" } };
const ciBuildExamples: Array<[unknown, unknown]> = [
  [{ ...base, source: { git: { url: base.SCMRepoURL } } }, { ...base, source: { git: { url: "https://git.example.com/b.git" } } }],
  [{ ...base, SCMBranch: "main", source: { git: { url: base.SCMRepoURL, revision: "" } } }, { ...base, SCMBranch: "main", source: { git: { revision: "dev" } } }],
  [{ ...base, SCMSecret: "s" }, { ...base, SCMSecret: "s", source: { git: { cloneSecret: "t" } } }],
  [{ ...base, subContext: "app", source: { contextDir: "app" } }, { ...base, subContext: "app", source: { contextDir: "web" } }],
  [{ ...structured, imageDestination: "registry.example.com/a:1" }, { ...structured, imageDestination: "registry.example.com/b:1" }],
  [structured, { ...structured, source: { git: { url: "https://user:token@git.example.com/a.git" } } }],
  [{ ...base, SCMRepoURL: "git@github.com:org/repo.git" }, { ...base, SCMRepoURL: "https://user:pw@github.com/org/repo.git" }],
  [structured, { ...structured, output: { image: "registry.example.com/a@sha256:0123" } }],
  [base, { ...base, imageDestination: "kind-registry:5000/a@sha256:0123" }],
  [{ ...structured, source: { ...structured.source, contextDir: "a/..b/c" } }, { ...structured, source: { ...structured.source, contextDir: "a/../../etc" } }],
  [{ ...base, subContext: "go/app" }, { ...base, subContext: "/abs" }],
  [{ ...base, build: { dockerfile: "docker/Dockerfile.prod" } }, { ...base, build: { dockerfile: ".." } }],
];

/**
 * A CEL rule must never be stricter than the hook: whatever it rejects, the kind's own validation
 * rejects too, on the same field (else an object the hook accepts could not be applied).
 */
function assertHookAgrees(def: Kind, rule: (typeof cronJobCelRules)[number], spec: unknown) {
  const parent = { apiVersion: def.apiVersion, kind: def.kind, metadata: { name: "x", namespace: "default" }, spec };
  const problems = def.admission!.validate(parent);
  const field = `spec${rule.fieldPath ?? ""}`;
  assert.ok(
    problems.some((p) => p.field === field || p.field.startsWith(`${field}.`) || (field.startsWith(p.field) && p.field !== "spec")),
    `the ${def.name} hook accepts what CEL rejects (${rule.rule}) on ${JSON.stringify(spec)}: ${JSON.stringify(problems)}`,
  );
}

function checkRules(
  kind: string,
  schema: Record<string, any>,
  rules: typeof cronJobCelRules,
  examples: Array<[unknown, unknown]>,
  def?: Kind,
) {
  assert.equal(rules.length, examples.length, `${kind}: one example pair per rule`);
  const env = celEnvironmentForSchema(schema);
  rules.forEach((r, i) => {
    const checked = env.check(r.rule);
    assert.ok(checked.valid, `${kind} rule ${i} does not type-check: ${checked.error?.message}\n${r.rule}`);
    assert.equal(checked.type, "bool", `${kind} rule ${i} must return bool`);
    if (r.fieldPath) assert.ok(fieldPathExists(schema, r.fieldPath), `${kind} rule ${i}: fieldPath ${r.fieldPath} is not in the schema`);
    assert.ok(r.message.length > 0 && !r.message.includes("\n"));
    const [pass, fail] = examples[i]!;
    assert.equal(env.evaluate(r.rule, pass), true, `${kind} rule ${i} should accept ${JSON.stringify(pass)}\n${r.rule}`);
    assert.equal(env.evaluate(r.rule, fail), false, `${kind} rule ${i} should reject ${JSON.stringify(fail)}\n${r.rule}`);
    if (def) assertHookAgrees(def, r, fail);
  });
}

test("every CronJob CEL rule type-checks against the spec schema and splits its examples", () => {
  checkRules("cronjob", cronJobSpec, cronJobCelRules, cronJobExamples, cronJobController);
  // Every passing example is a spec the hook accepts too (the examples are realistic).
  for (const [pass] of cronJobExamples) {
    assert.deepEqual(cronJobController.admission!.validate({ apiVersion: "x", kind: "CronJob", metadata: { name: "x" }, spec: pass }), []);
  }
});

test("every CIBuild CEL rule type-checks against the spec schema and splits its examples", () => {
  checkRules("cibuild", ciBuildSpec, ciBuildCelRules, ciBuildExamples, ciBuildController);
});

test("the seed-style legacy sample and a structured sample pass every CIBuild rule", () => {
  const env = celEnvironmentForSchema(ciBuildSpec);
  for (const spec of [base, structured, { ...base, ...structured, imageDestination: structured.output.image, SCMRepoURL: structured.source.git.url }]) {
    for (const r of ciBuildCelRules) assert.equal(env.evaluate(r.rule, spec), true, `${r.rule} on ${JSON.stringify(spec)}`);
  }
});

test("the checker rejects rules that name unknown fields, mix types or do not return bool", () => {
  const env = celEnvironmentForSchema(cronJobSpec);
  assert.equal(env.check("self.scheduel == ''").valid, false);
  assert.equal(env.check("self.startingDeadlineSeconds == 'x'").valid, false);
  assert.equal(env.check("self.schedule").type, "string");
  assert.equal(env.check("self.schedule.matches(").valid, false);
});

test("every x-kubernetes-validations rule in the generated CRDs type-checks against its own node", () => {
  let count = 0;
  for (const def of controllers) {
    const crd = def.crd() as any;
    const schema = crd.spec.versions[0].schema.openAPIV3Schema;
    for (const { path, node, rules } of collectValidations(schema)) {
      const env = celEnvironmentForSchema(node);
      for (const r of rules) {
        const checked = env.check(r.rule);
        assert.ok(checked.valid, `${def.name} ${path}: ${checked.error?.message}\n${r.rule}`);
        assert.equal(checked.type, "bool");
        if (r.fieldPath) assert.ok(fieldPathExists(node, r.fieldPath), `${def.name} ${path}: fieldPath ${r.fieldPath}`);
        count++;
      }
    }
  }
  assert.ok(count >= cronJobCelRules.length + ciBuildCelRules.length, `found ${count} rules in the generated CRDs`);
});

test("the seed samples pass every CEL rule of their CRD (they must apply unchanged)", () => {
  const dir = "test/fixtures/seed-samples";
  let checked = 0;
  for (const kindDir of readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    for (const file of readdirSync(join(dir, kindDir.name)).filter((f) => f.endsWith(".yaml"))) {
      const object = parse(readFileSync(join(dir, kindDir.name, file), "utf8"));
      const def = controllers.find((c) => c.kind === object.kind && c.apiVersion === object.apiVersion);
      if (!def) continue;
      const spec = specSchemaOf(def.crd());
      const env = celEnvironmentForSchema(spec);
      for (const r of spec["x-kubernetes-validations"] ?? []) {
        assert.equal(env.evaluate(r.rule, object.spec), true, `${kindDir.name}/${file}: ${r.rule}`);
      }
      checked++;
    }
  }
  assert.ok(checked >= 5, `checked ${checked} samples`);
});

/**
 * Short strings over an alphabet that hits every rule's edge (separators, dots, `@`, `:`, `/`),
 * weighted towards values the hook accepts so that enough generated specs are hook-valid.
 */
const edgy = fc.oneof(
  { arbitrary: fc.constantFrom("main", "app", "a/b", "Dockerfile", "a..b", "v1.2.3"), weight: 4 },
  { arbitrary: fc.constantFrom("", ".", "..", "a/..", "../a", "/abs"), weight: 1 },
  { arbitrary: fc.stringMatching(/^[a-z./@:-]{0,8}$/), weight: 1 },
);
const url = fc.oneof(
  { arbitrary: fc.constantFrom("https://git.example.com/a.git", "https://h/r.git"), weight: 4 },
  { arbitrary: fc.constantFrom("git@github.com:o/r.git", "ssh://git@h:22/r.git", "https://u:p@h/r.git"), weight: 1 },
  { arbitrary: edgy.map((s) => `https://h/${s}`), weight: 1 },
);
const image = fc.oneof(
  { arbitrary: fc.constantFrom("r.example.com/a:1", "kind-registry:5000/a"), weight: 4 },
  { arbitrary: fc.constantFrom("r/a@sha256:00"), weight: 1 },
  { arbitrary: edgy.map((s) => `r.example.com/${s}`), weight: 1 },
);
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });

test("property: CEL never rejects a CIBuild spec the hook accepts", () => {
  const env = celEnvironmentForSchema(ciBuildSpec);
  const rules = ciBuildSpec["x-kubernetes-validations"] as Array<{ rule: string }>;
  let accepted = 0;
  fc.assert(
    fc.property(
      fc.record({
        SCMRepoURL: maybe(url),
        SCMBranch: maybe(edgy),
        SCMSecret: maybe(fc.constantFrom("s", "t")),
        subContext: maybe(edgy),
        imageDestination: maybe(image),
        source: maybe(fc.record({ git: maybe(fc.record({ url: maybe(url), revision: maybe(edgy), cloneSecret: maybe(fc.constantFrom("s", "t")) })), contextDir: maybe(edgy) })),
        build: maybe(fc.record({ dockerfile: maybe(edgy) })),
        output: maybe(fc.record({ image: maybe(image) })),
      }),
      (raw) => {
        const spec = JSON.parse(JSON.stringify(raw));
        const problems = ciBuildController.admission!.validate({ apiVersion: "cicd.cicd.com/v1alpha1", kind: "CIBuild", metadata: { name: "p" }, spec });
        if (problems.length) return;
        accepted++;
        for (const r of rules) assert.equal(env.evaluate(r.rule, spec), true, `${r.rule} rejects hook-valid ${JSON.stringify(spec)}`);
      },
    ),
    { numRuns: 3000 },
  );
  // About 5% of the generated specs are hook-valid (conflicting twins are common); 40 is ~10σ below.
  assert.ok(accepted >= 40, `only ${accepted} hook-valid specs generated`);
});

test("property: CEL never rejects a CronJob spec the hook accepts", () => {
  const env = celEnvironmentForSchema(cronJobSpec);
  const rules = cronJobSpec["x-kubernetes-validations"] as Array<{ rule: string }>;
  let accepted = 0;
  fc.assert(
    fc.property(
      fc.record({
        schedule: fc.constantFrom("* * * * *", "@hourly", "TZ=UTC 0 * * * *", " CRON_TZ=UTC 0 * * * *", "0 0 * * 1-5"),
        timeZone: maybe(fc.oneof(fc.constantFrom("UTC", "Europe/Berlin", "local", "LOCAL", "America/Argentina/Buenos_Aires", "Etc/GMT+5", "../x", "-x", ""), edgy)),
        startingDeadlineSeconds: maybe(fc.integer({ min: -3, max: 3 })),
        successfulJobsHistoryLimit: maybe(fc.integer({ min: -3, max: 3 })),
        failedJobsHistoryLimit: maybe(fc.integer({ min: -3, max: 3 })),
      }),
      (raw) => {
        const spec = { ...JSON.parse(JSON.stringify(raw)), jobTemplate };
        const problems = cronJobController.admission!.validate({ apiVersion: "batch.tutorial.kubebuilder.io/v1", kind: "CronJob", metadata: { name: "p" }, spec });
        if (problems.length) return;
        accepted++;
        for (const r of rules) assert.equal(env.evaluate(r.rule, spec), true, `${r.rule} rejects hook-valid ${JSON.stringify(spec)}`);
      },
    ),
    { numRuns: 1000 },
  );
  assert.ok(accepted > 20, `only ${accepted} hook-valid specs generated`);
});
