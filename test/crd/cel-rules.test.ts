import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { controllers } from "../../src/controllers/registry.ts";
import { toStructuralSchema } from "../../src/crd/structural.ts";
import { cronJobCelRules } from "../../src/controllers/cronjob/cel-rules.ts";
import { ciBuildCelRules } from "../../src/controllers/cibuild/cel-rules.ts";
import { celEnvironmentForSchema, collectValidations, fieldPathExists } from "../helpers/cel.ts";

// Stand-ins for the kinds' spec schemas (the fields the rules read), until the real kinds land.
const cronJobSpec = toStructuralSchema(
  z.object({
    schedule: z.string(),
    timeZone: z.string().optional(),
    startingDeadlineSeconds: z.int().optional(),
    concurrencyPolicy: z.enum(["Allow", "Forbid", "Replace"]).optional(),
    suspend: z.boolean().optional(),
    jobTemplate: z.looseObject({}),
    successfulJobsHistoryLimit: z.int().optional(),
    failedJobsHistoryLimit: z.int().optional(),
  }),
);
const ciBuildSpec = toStructuralSchema(
  z.object({
    SCMRepoURL: z.string().optional(),
    SCMBranch: z.string().optional(),
    SCMSecret: z.string().optional(),
    subContext: z.string().optional(),
    imageDestination: z.string().optional(),
    source: z.object({ git: z.object({ url: z.string().optional(), revision: z.string().optional(), cloneSecret: z.string().optional() }).optional(), contextDir: z.string().optional() }).optional(),
    build: z.object({ dockerfile: z.string().optional(), retries: z.int().optional() }).optional(),
    output: z.object({ image: z.string().optional() }).optional(),
  }),
);

/** Per rule (by index): a spec the rule accepts and one it rejects. */
const cronJobExamples: Array<[unknown, unknown]> = [
  [{ schedule: "* * * * *", startingDeadlineSeconds: 0 }, { schedule: "* * * * *", startingDeadlineSeconds: -1 }],
  [{ schedule: "* * * * *", successfulJobsHistoryLimit: 0 }, { schedule: "* * * * *", successfulJobsHistoryLimit: -3 }],
  [{ schedule: "* * * * *" }, { schedule: "* * * * *", failedJobsHistoryLimit: -1 }],
  [{ schedule: "0 * * * *", timeZone: "Etc/UTC" }, { schedule: "TZ=Europe/Berlin 0 * * * *" }],
  [{ schedule: "0 * * * *", timeZone: "America/Argentina/Buenos_Aires" }, { schedule: "0 * * * *", timeZone: "Local" }],
];
const base = { SCMRepoURL: "https://git.example.com/a.git", imageDestination: "kind-registry:5000/a:latest" };
const structured = { source: { git: { url: "https://git.example.com/a.git" } }, output: { image: "registry.example.com/a:1" } };
const ciBuildExamples: Array<[unknown, unknown]> = [
  [{ ...base, source: { git: { url: base.SCMRepoURL } } }, { ...base, source: { git: { url: "https://git.example.com/b.git" } } }],
  [{ ...base, SCMBranch: "main", source: { git: { url: base.SCMRepoURL, revision: "" } } }, { ...base, SCMBranch: "main", source: { git: { revision: "dev" } } }],
  [{ ...base, SCMSecret: "s" }, { ...base, SCMSecret: "s", source: { git: { cloneSecret: "t" } } }],
  [{ ...base, subContext: "app", source: { contextDir: "app" } }, { ...base, subContext: "app", source: { contextDir: "web" } }],
  [{ ...structured, imageDestination: "registry.example.com/a:1" }, { ...structured, imageDestination: "registry.example.com/b:1" }],
  [structured, { output: structured.output, source: { git: { url: "" } } }],
  [structured, { ...structured, source: { git: { url: "https://user:token@git.example.com/a.git" } } }],
  [{ ...base, SCMRepoURL: "git@github.com:org/repo.git" }, { ...base, SCMRepoURL: "https://user:pw@github.com/org/repo.git" }],
  [base, { SCMRepoURL: base.SCMRepoURL, output: {} }],
  [structured, { ...structured, output: { image: "registry.example.com/a@sha256:0123" } }],
  [base, { ...base, imageDestination: "kind-registry:5000/a@sha256:0123" }],
  [{ ...structured, source: { ...structured.source, contextDir: "a/..b/c" } }, { ...structured, source: { ...structured.source, contextDir: "a/../../etc" } }],
  [{ ...base, subContext: "go/app" }, { ...base, subContext: "/abs" }],
  [{ ...base, build: { dockerfile: "docker/Dockerfile.prod" } }, { ...base, build: { dockerfile: ".." } }],
];

function checkRules(kind: string, schema: Record<string, any>, rules: typeof cronJobCelRules, examples: Array<[unknown, unknown]>) {
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
  });
}

test("every CronJob CEL rule type-checks against the spec schema and splits its examples", () => {
  checkRules("cronjob", cronJobSpec, cronJobCelRules, cronJobExamples);
});

test("every CIBuild CEL rule type-checks against the spec schema and splits its examples", () => {
  checkRules("cibuild", ciBuildSpec, ciBuildCelRules, ciBuildExamples);
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
      }
    }
  }
});
