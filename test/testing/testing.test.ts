import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { buildRequest, cronJobJob, finalizeAt, readObjects, runSync, syncAt } from "../../src/testing/index.ts";
import { configureControllers } from "../../src/controllers/registry.ts";
import { runHook } from "../../src/metacontroller/run-hook.ts";
import { MINIMAL_CRONJOB } from "../helpers/requests.ts";

const CRONJOB_YAML = readFileSync("examples/cronjob/cronjob-sample.yaml", "utf8");
const NOW = "2026-01-05T12:00:30Z";

test("buildRequest fills what the API server sets and keys children by name (v1) or namespace/name (v2)", () => {
  const job = cronJobJob(CRONJOB_YAML, "2026-01-05T11:59:00Z", "succeeded");
  const v1 = buildRequest(CRONJOB_YAML, { children: [job] });
  assert.deepEqual(v1.parent.metadata, {
    uid: "uid-default-cronjob-sample",
    generation: 1,
    resourceVersion: "1",
    creationTimestamp: "2000-01-01T00:00:00Z",
    labels: { "app.kubernetes.io/name": "project", "app.kubernetes.io/managed-by": "kustomize" },
    name: "cronjob-sample",
    namespace: "default",
  });
  assert.deepEqual(Object.keys(v1.children["Job.batch/v1"]!), ["cronjob-sample-29460239"]);
  const v2 = buildRequest(CRONJOB_YAML, { children: [job], hookVersion: "v2", creationTimestamp: "2026-01-05T00:00:00Z" });
  assert.deepEqual(Object.keys(v2.children["Job.batch/v1"]!), ["default/cronjob-sample-29460239"]);
  assert.equal(v2.parent.metadata.creationTimestamp, "2026-01-05T00:00:00Z");
  assert.equal(v2.controller.kind, "CompositeController");
  assert.equal(v2.finalizing, false);
  // A parent that has its own server fields keeps them.
  assert.equal(buildRequest(MINIMAL_CRONJOB).parent.metadata.uid, "u-1");
});

test("every child kind of the controller gets a group; other kinds (CIBuild Pods) go to related", () => {
  const cibuild = readFileSync("examples/cibuild/cibuild-go.yaml", "utf8");
  const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" } };
  const request = buildRequest(cibuild, { children: [pod] });
  assert.deepEqual(Object.keys(request.children).sort(), ["Deployment.apps/v1", "Job.batch/v1", "Service.v1"]);
  assert.deepEqual(Object.keys(request.related), ["Pod.v1"]);
  const run = syncAt(cibuild, "2026-03-02T10:00:05Z");
  assert.deepEqual(run.created.map((c) => c.kind), ["Job"], "a fresh CIBuild starts its build Job");
});

test("a run is exactly what the route answers, with readers for created, deleted and conditions", () => {
  const done = ["11:56", "11:57", "11:58", "11:59"].map((t) => cronJobJob(CRONJOB_YAML, `2026-01-05T${t}:00Z`, "succeeded", 10));
  const request = buildRequest(CRONJOB_YAML, { children: done });
  const run = runSync(request, NOW);
  const cronjob = configureControllers({}).find((c) => c.def.name === "cronjob")!;
  assert.deepEqual(run.response, runHook(cronjob.def, "sync", request, new Date(NOW), cronjob.options).response);
  assert.deepEqual(run.created.map((j) => j.metadata.name), ["cronjob-sample-29460240"]);
  assert.deepEqual(run.deleted.map((j) => j.metadata.name), ["cronjob-sample-29460236"], "the oldest beyond the history limit of 3");
  assert.ok(run.decisions.some((d) => d.action === "prune" && d.object === "cronjob-sample-29460236"));
  assert.equal(run.condition("Scheduling")?.reason, "JobCreated");
  assert.equal(run.condition("Nope"), undefined);
  assert.equal(run.status.lastScheduleTime, "2026-01-05T12:00:00Z");
});

test("finalize leaves every Job out until none is observed", () => {
  const running = cronJobJob(CRONJOB_YAML, "2026-01-05T11:59:00Z");
  assert.equal(running.status.active, 1);
  const waiting = finalizeAt(CRONJOB_YAML, NOW, { children: [running] });
  assert.equal(waiting.response.finalized, false);
  assert.equal(waiting.deleted.length, 1);
  assert.equal(finalizeAt(CRONJOB_YAML, NOW).response.finalized, true);
});

test("children may be one multi-document YAML text; bad input fails with a clear error", () => {
  const jobs = [cronJobJob(CRONJOB_YAML, "2026-01-05T11:58:00Z", "failed"), cronJobJob(CRONJOB_YAML, "2026-01-05T11:59:00Z", "failed")];
  const yaml = jobs.map((j) => JSON.stringify(j)).join("\n---\n");
  assert.equal(readObjects(yaml).length, 2);
  assert.deepEqual(syncAt(CRONJOB_YAML, NOW, { children: yaml }).deleted.map((j) => j.metadata.name), ["cronjob-sample-29460238"], "failed history limit 1");
  assert.throws(() => syncAt(`${CRONJOB_YAML}\n---\n${CRONJOB_YAML}`, NOW), /exactly one object/);
  assert.throws(() => syncAt({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } }, NOW), /no metahooks controller for v1 ConfigMap/);
  for (const bad of ["yesterday", "2026-02-30T01:30:10Z", "2026-01-05T24:00:00Z"]) assert.throws(() => syncAt(CRONJOB_YAML, bad), /not an RFC 3339 time that exists on the calendar/, bad);
  assert.throws(() => cronJobJob(CRONJOB_YAML, NOW, "exploded" as never), /state must be one of running, succeeded, failed, got "exploded"/);
  assert.throws(() => cronJobJob(CRONJOB_YAML, NOW, "succeeded", -1), /runSeconds/);
  assert.throws(() => syncAt("a: [", NOW), /not valid YAML/);
  assert.throws(() => cronJobJob({ ...MINIMAL_CRONJOB, spec: { schedule: "nope" } }, NOW), /spec is invalid/);
});
