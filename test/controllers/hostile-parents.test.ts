// Hostile parents, per failure class: deep nesting, odd child keys, odd names, invalid history
// limits, a status from the future. Each asserts the behaviour (kept children, the condition
// reason, admission's answer), not a golden file.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { runHook } from "../../src/metacontroller/run-hook.ts";
import type { SyncResponse } from "../../src/metacontroller/contract.ts";
import { configureControllers } from "../../src/controllers/registry.ts";
import { validateAdmission, mutateAdmission } from "../../src/admission/admission.ts";
import { cronJob, job, request } from "./cronjob/builders.ts";
import { admissionReview } from "../helpers/requests.ts";

const [cronjob, cibuild] = configureControllers({});
const NOW = "2026-01-05T12:00:30Z";

function nested(depth: number, leaf: unknown = 1, key = "a"): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = key === "[]" ? [value] : { [key]: value };
  return value;
}

function sync(controller: typeof cronjob, body: any, now = NOW) {
  const result = runHook(controller!.def, "sync", body, new Date(now), controller!.options);
  const response = result.response as SyncResponse;
  const status = response.status as any;
  return { ...result, response, status, names: response.children.map((c) => c.metadata.name).sort(), condition: (type: string) => status.conditions?.find((c: any) => c.type === type) };
}


const observedJobs = [job("hello", "2026-01-05T11:58:00Z", "complete"), job("hello", "2026-01-05T11:59:00Z", "running"), job("hello", "2026-01-05T10:00:00Z", "failed"), job("hello", "2026-01-05T09:00:00Z", "failed")];

for (const [where, place] of [
  ["jobTemplate", (p: any, deep: unknown) => (p.spec.jobTemplate.spec.template.spec.containers[0].env = [{ name: "X", value: deep }])],
  ["jobTemplate metadata", (p: any, deep: unknown) => (p.spec.jobTemplate.metadata = { ...p.spec.jobTemplate.metadata, extra: deep })],
  ["labels' sibling", (p: any, deep: unknown) => (p.metadata.extra = deep)],
  ["an unknown spec field", (p: any, deep: unknown) => (p.spec.extra = deep)],
  ["status", (p: any, deep: unknown) => (p.status = { lastScheduleTime: "2026-01-05T11:59:00Z", extra: deep })],
] as const) {
  for (const depth of [2_000, 50_000]) {
    for (const shape of ["a", "[]"]) {
      test(`CronJob: ${depth} levels of ${shape === "a" ? "objects" : "arrays"} in ${where} answer 200, NestingTooDeep, every Job kept; admission denies it`, () => {
        // Cloned: the builders share one template object with the observed Jobs.
        const parent = structuredClone(cronJob({ spec: { successfulJobsHistoryLimit: 0, failedJobsHistoryLimit: 0 }, status: { lastScheduleTime: "2026-01-05T11:59:00Z" } }));
        place(parent, nested(depth, 1, shape));
        const r = sync(cronjob, request(parent, observedJobs));
        assert.equal(r.condition("Ready").status, "False");
        assert.equal(r.condition("Ready").reason, "NestingTooDeep");
        assert.match(r.condition("Ready").message, /nested deeper than 100 levels/);
        assert.deepEqual(r.names, observedJobs.map((j) => j.metadata.name).sort(), "every observed Job is kept (no pruning, no Job)");
        assert.equal(r.invalidReason, "NestingTooDeep");
        assert.equal(r.status.lastScheduleTime, "2026-01-05T11:59:00Z", "the status is carried, not wiped");
        JSON.stringify(r.response);
        const denied = validateAdmission(cronjob!.def, admissionReview(parent, { uid: "r-1" }));
        assert.equal(denied.review.response.allowed, false);
        assert.deepEqual(denied.review.response.status?.details?.causes.map((c) => c.reason), ["NestingTooDeep"]);
        const mutated = mutateAdmission(cronjob!.def, admissionReview(parent, { uid: "r-1" }));
        assert.equal(mutated.review.response.patch, undefined, "no defaulting patch for an object nested too deep");
      });
    }
  }
}

for (const [where, place] of [
  ["deploy.env valueFrom", (s: any, deep: unknown) => (s.deploy = { env: [{ name: "A", valueFrom: deep }] })],
  ["an unknown spec field", (s: any, deep: unknown) => (s.extra = deep)],
  ["build.resources", (s: any, deep: unknown) => (s.build = { resources: { limits: deep } })],
] as const) {
  test(`CIBuild: 2000 levels in ${where} answer 200, phase Invalid with NestingTooDeep, children kept; admission denies it`, () => {
    const spec: any = { SCMRepoURL: "https://github.com/example/app.git", imageDestination: "registry.example.com/app:1.0" };
    place(spec, nested(2_000));
    const parent = { apiVersion: "cicd.cicd.com/v1alpha1", kind: "CIBuild", metadata: { name: "web", namespace: "ci", uid: "u-1", generation: 2 }, spec, status: { phase: "Ready" } };
    const deployment = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "deploy-web", namespace: "ci" }, spec: { replicas: 1 } };
    const buildJob = { apiVersion: "batch/v1", kind: "Job", metadata: { name: "web-0123456789", namespace: "ci" }, spec: {} };
    const r = sync(cibuild, { parent, children: { "Deployment.apps/v1": { "deploy-web": deployment }, "Job.batch/v1": { "web-0123456789": buildJob } } });
    assert.equal(r.status.phase, "Invalid");
    assert.equal(r.condition("SpecValid").reason, "NestingTooDeep");
    assert.deepEqual(r.names, ["deploy-web", "web-0123456789"]);
    assert.equal(r.invalidReason, "NestingTooDeep");
    const denied = validateAdmission(cibuild!.def, admissionReview(parent, { uid: "r-1" }));
    assert.equal(denied.review.response.allowed, false);
    assert.deepEqual(denied.review.response.status?.details?.causes.map((c) => c.reason), ["NestingTooDeep"]);
  });
}

test("nesting just within the bound is read normally; observed children nested past it are not a hook request (422)", () => {
  const parent = structuredClone(cronJob());
  parent.spec.jobTemplate.spec.template.spec.containers[0].env = [{ name: "X", value: nested(80) }];
  const r = sync(cronjob, request(parent));
  assert.equal(r.condition("Ready").reason, "Active");
  assert.equal(r.names.length, 1, "the Job is created with the nested value");
  const deepChild = structuredClone(job("hello", "2026-01-05T11:59:00Z", "running"));
  deepChild.spec.extra = nested(5_000);
  assert.throws(() => sync(cronjob, request(cronJob(), [deepChild])), (err: { status?: number; message?: string }) => err.status === 422 && /nested deeper than 100 levels/.test(err.message ?? ""));
});

test("a child keyed `__proto__` (or `constructor`) is kept like any other child", () => {
  const jobs = [job("hello", "2026-01-05T11:58:00Z", "running"), job("hello", "2026-01-05T11:59:00Z", "running")];
  const text = JSON.stringify(request(cronJob(), [])).replace('"Job.batch/v1":{}', `"Job.batch/v1":{"__proto__":${JSON.stringify(jobs[0])},"constructor":${JSON.stringify(jobs[1])}}`);
  const r = sync(cronjob, JSON.parse(text));
  for (const j of jobs) assert.ok(r.names.includes(j.metadata.name), `${j.metadata.name} was dropped: ${r.names}`);
  assert.equal(r.status.active?.length, 3, "both observed Jobs and the new one are active");
});

test("a non-ASCII or uppercase CronJob name gets InvalidName, not NameTooLong; admission agrees", () => {
  for (const name of ["héllo", "日本", "Hello", "under_score"]) {
    const parent = cronJob({ name });
    const r = sync(cronjob, request(parent, [job(name, "2026-01-05T11:59:00Z", "running")]));
    assert.equal(r.condition("Ready").reason, "InvalidName", name);
    assert.equal(r.names.length, 1, "the observed Job is kept");
    assert.equal(r.invalidReason, "InvalidName");
    const denied = validateAdmission(cronjob!.def, admissionReview(parent, { uid: "r-1" }));
    assert.deepEqual(denied.review.response.status?.details?.causes.map((c) => c.reason), ["InvalidName"], name);
  }
  assert.equal(sync(cronjob, request(cronJob({ name: "a".repeat(60) }))).condition("Ready").reason, "NameTooLong");
});

test("an invalid or unreadable history limit keeps every finished Job; valid limits still prune when another field is invalid", () => {
  const finished = [
    job("hello", "2026-01-05T08:00:00Z", "complete"),
    job("hello", "2026-01-05T09:00:00Z", "complete"),
    job("hello", "2026-01-05T10:00:00Z", "failed"),
    job("hello", "2026-01-05T11:00:00Z", "failed"),
  ];
  const all = finished.map((j) => j.metadata.name).sort();
  for (const limits of [
    { successfulJobsHistoryLimit: -1 },
    { failedJobsHistoryLimit: "1" },
    { successfulJobsHistoryLimit: 0.5, failedJobsHistoryLimit: 0 },
    { successfulJobsHistoryLimit: 0, failedJobsHistoryLimit: {} },
  ]) {
    const r = sync(cronjob, request(cronJob({ spec: limits }), finished));
    assert.deepEqual(r.names, all, JSON.stringify(limits));
    assert.equal(r.decisions.filter((d) => d.action === "prune").length, 0, JSON.stringify(limits));
    assert.equal(r.condition("Ready").reason, "InvalidSpec");
  }
  for (const spec of [undefined, null, "nope", [1, 2]]) {
    const parent = cronJob();
    parent.spec = spec;
    const r = sync(cronjob, request(parent, finished));
    assert.deepEqual(r.names, all, `spec ${JSON.stringify(spec)}`);
  }
  const badSchedule = sync(cronjob, request(cronJob({ spec: { schedule: "nope", successfulJobsHistoryLimit: 0, failedJobsHistoryLimit: 0 } }), finished));
  assert.deepEqual(badSchedule.names, [], "valid limits of 0 prune, the schedule being invalid");
});

test("a status.lastScheduleTime ahead of now: no slot at or before it runs, resync after it, status kept", () => {
  // Another replica, 1 s ahead, created the 12:01 Job and wrote lastScheduleTime 12:01; the
  // 12:00 slot was passed over (Forbid). This replica's clock says 12:00:59.5.
  const ahead = "2026-01-05T12:01:00Z";
  const now = "2026-01-05T12:00:59.500Z";
  for (const policy of ["Allow", "Forbid", "Replace"]) {
    const running = job("hello", ahead, "running");
    const r = sync(cronjob, request(cronJob({ spec: { concurrencyPolicy: policy }, status: { lastScheduleTime: ahead } }), [running]), now);
    assert.deepEqual(r.names, [running.metadata.name], `${policy}: no Job for the 12:00 slot, the 12:01 Job kept`);
    assert.equal(r.status.lastScheduleTime, ahead);
    assert.equal(r.condition("Scheduling").reason, "UpToDate");
    assert.match(r.condition("Scheduling").message, /later than now/);
    const wake = Date.parse(now) + (r.response.resyncAfterSeconds ?? NaN) * 1000;
    assert.ok(wake > Date.parse("2026-01-05T12:02:00Z") && wake <= Date.parse("2026-01-05T12:02:01Z"), `${policy}: resync lands after 12:02, got ${r.response.resyncAfterSeconds}`);
  }
  // Without any Job either: nothing before the recorded time.
  const none = sync(cronjob, request(cronJob({ status: { lastScheduleTime: "2026-01-05T12:05:00Z" } })), NOW);
  assert.deepEqual(none.names, []);
  // Once the clock passes it, the next slot runs.
  const later = sync(cronjob, request(cronJob({ status: { lastScheduleTime: "2026-01-05T12:05:00Z" } })), "2026-01-05T12:06:10Z");
  assert.equal(later.names.length, 1);
  assert.equal(later.status.lastScheduleTime, "2026-01-05T12:06:00Z");
});

// Keys an object spread or a zod record into `{}` loses or misreads, plus odd but plain ones.
const ODD_KEYS = ["__proto__", "constructor", "prototype", "hasOwnProperty", "toString", "valueOf", "", "ключ", "💥", "a/b", "example.com/team"];

/** A string map with `keys` as own properties, through JSON as Metacontroller sends it. */
function oddMap(keys: string[], value: (key: string, i: number) => string): Record<string, string> {
  return JSON.parse(`{${keys.map((k, i) => `${JSON.stringify(k)}:${JSON.stringify(value(k, i))}`).join(",")}}`);
}

test("odd label and annotation keys on observed Jobs come back exactly (fast-check over key sets)", () => {
  fc.assert(
    fc.property(fc.uniqueArray(fc.oneof(fc.constantFrom(...ODD_KEYS), fc.string({ maxLength: 8 })), { maxLength: 8 }), (keys) => {
      const observed = job("hello", "2026-01-05T11:59:00Z", "running");
      observed.metadata.labels = oddMap([...keys, "controller-uid"], (k, i) => (k === "controller-uid" ? observed.metadata.labels["controller-uid"] : `l${i}`));
      observed.metadata.annotations = oddMap(keys, (_, i) => `a${i}`);
      const body = JSON.parse(JSON.stringify(request(cronJob(), [observed])));
      const { response } = sync(cronjob!, body);
      const back = response.children.find((c) => c.metadata.name === observed.metadata.name)!;
      assert.equal(JSON.stringify(back.metadata.labels), JSON.stringify(observed.metadata.labels));
      assert.equal(JSON.stringify(back.metadata.annotations ?? {}), JSON.stringify(observed.metadata.annotations));
    }),
  );
});

test("jobTemplate label and annotation keys reach the Job exactly, or the template is InvalidJobTemplate naming the key (never a silent change)", () => {
  fc.assert(
    fc.property(fc.uniqueArray(fc.oneof(fc.constantFrom(...ODD_KEYS), fc.string({ maxLength: 8 })), { maxLength: 6 }), fc.constantFrom("labels", "annotations"), (keys, field) => {
      const map = oddMap(keys, (_, i) => `v${i}`);
      const text = JSON.stringify(request(cronJob({ spec: { jobTemplate: { metadata: { [field]: "PLACEHOLDER" }, spec: { template: { spec: { containers: [{ name: "c", image: "busybox" }], restartPolicy: "Never" } } } } } })));
      const body = JSON.parse(text.replace('"PLACEHOLDER"', () => JSON.stringify(map)));
      const r = sync(cronjob!, body);
      const created = r.response.children[0];
      if (created) {
        const copied = Object.fromEntries(Object.entries<string>(created.metadata[field] ?? {}).filter(([k]) => keys.includes(k)));
        assert.equal(JSON.stringify(copied), JSON.stringify(map), "every key and value, in order");
      } else {
        assert.equal(r.condition("Ready").reason, "InvalidJobTemplate");
        assert.match(r.condition("Ready").message, new RegExp(`spec\\.jobTemplate\\.metadata\\.${field}: key `));
      }
    }),
  );
  const proto = sync(cronjob!, JSON.parse(JSON.stringify(request(cronJob())).replace('"labels":{"app"', '"labels":{"__proto__":"z","constructor":"c","app"')));
  assert.equal(proto.condition("Ready").reason, "InvalidJobTemplate");
  assert.match(proto.condition("Ready").message, /"__proto__"/);
});
