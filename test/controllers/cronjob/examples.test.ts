// The files under examples/cronjob/ through the CLI (in process) and the HTTP app (what `npm start`
// answers to a curl of them), with the expected Job.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { runCliInProcess } from "../../helpers/cli.ts";
import request from "supertest";
import { parse } from "yaml";
import { createApp } from "../../../src/http/app.ts";
import { configureControllers } from "../../../src/controllers/registry.ts";
import { silentLogger } from "../../helpers/silent-logger.ts";
import { assertValidKubeObject } from "../../helpers/k8s-schema.ts";
import { validateCronJob } from "../../../src/controllers/cronjob/index.ts";

const NOW = "2026-01-05T12:00:30Z";

function cli(args: string[], file: string) {
  return runCliInProcess(args, { input: readFileSync(file) });
}

test("examples/cronjob/cronjob-sample.yaml is the tutorial's sample and passes admission", () => {
  const sample = parse(readFileSync("examples/cronjob/cronjob-sample.yaml", "utf8"));
  assert.equal(sample.metadata.name, "cronjob-sample");
  assert.equal(sample.spec.schedule, "*/1 * * * *");
  assert.equal(sample.spec.startingDeadlineSeconds, 60);
  assert.equal(sample.spec.concurrencyPolicy, "Allow");
  assert.deepEqual(validateCronJob(sample), []);
  // The example request carries exactly this object's spec.
  assert.deepEqual(JSON.parse(readFileSync("examples/cronjob/sync-request.json", "utf8")).parent.spec, sample.spec);
});

test("README quick start: `metahooks sync cronjob --now … < examples/cronjob/sync-request.json` creates the 12:00 Job", async () => {
  const out = await cli(["sync", "cronjob", "--now", NOW], "examples/cronjob/sync-request.json");
  assert.equal(out.status, 0, out.stderr);
  const response = JSON.parse(out.stdout);
  const sample = parse(readFileSync("examples/cronjob/cronjob-sample.yaml", "utf8"));
  assert.equal(response.children.length, 1);
  const [job] = response.children;
  assertValidKubeObject(job);
  assert.equal(job.metadata.name, "cronjob-sample-29460240");
  assert.equal(job.metadata.namespace, "default");
  assert.equal(job.metadata.annotations["batch.tutorial.kubebuilder.io/scheduled-at"], "2026-01-05T12:00:00Z");
  assert.deepEqual(job.spec, sample.spec.jobTemplate.spec);
  assert.deepEqual(response.status.active.map((a: any) => a.name), ["cronjob-sample-29460240"]);
  assert.equal(response.resyncAfterSeconds, 30.1);

  const app = createApp({ controllers: configureControllers({}), logger: silentLogger, clock: () => new Date(NOW) });
  const res = await request(app).post("/sync/cronjob").set("Content-Type", "application/json").send(readFileSync("examples/cronjob/sync-request.json", "utf8")).expect(200);
  assert.equal(out.stdout, res.text + "\n", "CLI and HTTP give the same bytes");
});

test("examples/cronjob/sync-request-running.json: history pruned, running Job kept, the 12:00 Job created", async () => {
  const out = await cli(["sync", "cronjob", "--now", NOW], "examples/cronjob/sync-request-running.json");
  assert.equal(out.status, 0, out.stderr);
  const response = JSON.parse(out.stdout);
  const names = response.children.map((c: any) => c.metadata.name);
  assert.deepEqual(names, [
    "cronjob-sample-29460233", // the newer failed Job (limit 1)
    "cronjob-sample-29460236", // the three newest complete Jobs (limit 3)
    "cronjob-sample-29460237",
    "cronjob-sample-29460238",
    "cronjob-sample-29460239", // running
    "cronjob-sample-29460240", // new
  ]);
  for (const child of response.children) assertValidKubeObject(child);
  assert.deepEqual(response.status.active.map((a: any) => a.name), ["cronjob-sample-29460239", "cronjob-sample-29460240"]);
});

test("examples/cronjob/finalize-request.json: no children, not finalized while a Job remains", async () => {
  const out = await cli(["finalize", "cronjob", "--now", NOW], "examples/cronjob/finalize-request.json");
  assert.equal(out.status, 0, out.stderr);
  const response = JSON.parse(out.stdout);
  assert.deepEqual(response.children, []);
  assert.equal(response.finalized, false);
  const app = createApp({ controllers: configureControllers({}), logger: silentLogger, clock: () => new Date(NOW) });
  const res = await request(app).post("/finalize/cronjob").set("Content-Type", "application/json").send(readFileSync("examples/cronjob/finalize-request.json", "utf8")).expect(200);
  assert.equal(out.stdout, res.text + "\n");
});

test("the package API exposes the pure CronJob hook (README library example)", async () => {
  const api = await import("../../../src/index.ts");
  const body = JSON.parse(readFileSync("examples/cronjob/sync-request.json", "utf8"));
  const { response, decisions } = api.syncCronJob(api.SyncRequestSchema.parse(body), new Date(NOW));
  assert.deepEqual(response.children.map((c) => c.metadata.name), ["cronjob-sample-29460240"]);
  assert.deepEqual(decisions, [{ action: "create", object: "cronjob-sample-29460240" }]);
  assert.equal(api.CronJobReason.InvalidSchedule, "InvalidSchedule");
  assert.equal(api.checkScheduleSyntax("0 0 * * 7")?.includes("above maximum"), true);
});
