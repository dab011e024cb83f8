import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import request from "supertest";
import { createApp } from "../../src/http/app.ts";
import { configureControllers } from "../../src/controllers/registry.ts";
import { AdmissionReviewResponseSchema } from "../../src/admission/review.ts";
import { applyAddOperations, type AddOperation } from "../../src/admission/json-patch.ts";
import { silentLogger } from "../helpers/silent-logger.ts";
import { admissionReview } from "../helpers/requests.ts";

// The seed samples must pass the real kinds' webhooks unchanged; broken variants must be denied
// with a message naming the field and the rule.
// Copies of shared/seed-samples (CI runs from a clone where shared/ may sit elsewhere).
const SAMPLES = "test/fixtures/seed-samples";
const app = () => createApp({ controllers: configureControllers({}), logger: silentLogger });
const kinds = new Map(configureControllers({}).map((c) => [c.def.kind, c.def]));

function review(object: any, operation = "CREATE", oldObject?: any) {
  const namespaced = { ...object, metadata: { namespace: "default", ...object.metadata } };
  return admissionReview(namespaced, { uid: "uid-1", name: object.metadata.name, namespace: "default", operation, oldObject: oldObject ?? null });
}

function samples(): Array<{ file: string; object: any }> {
  const out: Array<{ file: string; object: any }> = [];
  for (const dir of readdirSync(SAMPLES, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    for (const file of readdirSync(join(SAMPLES, dir.name)).filter((f) => f.endsWith(".yaml"))) {
      const object = parse(readFileSync(join(SAMPLES, dir.name, file), "utf8"));
      if (kinds.has(object?.kind)) out.push({ file: `${dir.name}/${file}`, object });
    }
  }
  return out;
}

test("every seed sample of a registered kind is allowed, and defaulting adds only missing fields", async () => {
  const found = samples();
  assert.ok(found.length >= 5);
  for (const { file, object } of found) {
    const def = kinds.get(object.kind)!;
    const validated = await request(app()).post(`/validate/${def.name}`).send(review(object)).expect(200);
    if (file === "cibuild/cibuild-scaffold.yaml") {
      // The kubebuilder scaffold (`spec: {foo: bar}`) names no repository or image: the hook marks
      // it Invalid, so the webhook refuses it up front (the CRD alone still accepts it).
      assert.equal(validated.body.response.allowed, false);
      assert.deepEqual(validated.body.response.status.details.causes.map((c: any) => c.reason), ["MissingRepoURL", "MissingImageDestination"]);
      continue;
    }
    assert.equal(validated.body.response.allowed, true, `${file}: ${JSON.stringify(validated.body.response.status)}`);
    const mutated = AdmissionReviewResponseSchema.parse((await request(app()).post(`/mutate/${def.name}`).send(review(object)).expect(200)).body);
    if (mutated.response.patch) {
      const ops = JSON.parse(Buffer.from(mutated.response.patch, "base64").toString()) as AddOperation[];
      const patched = applyAddOperations(object, ops);
      // Every value the user set is still there, unchanged.
      for (const [key, value] of Object.entries(object.spec)) assert.deepEqual(patched.spec[key], value, `${file}: spec.${key}`);
      // The defaulted object is still valid.
      const again = await request(app()).post(`/validate/${def.name}`).send(review(patched)).expect(200);
      assert.equal(again.body.response.allowed, true, file);
    }
  }
});

test("a broken CronJob sample is denied with a message naming the field and the rule", async () => {
  const sample = parse(readFileSync(join(SAMPLES, "cronjob", readdirSync(join(SAMPLES, "cronjob")).find((f) => f.endsWith(".yaml"))!), "utf8"));
  const broken = { ...sample, spec: { ...sample.spec, schedule: "TZ=Europe/Berlin */1 * * * *", timeZone: "Mars/Olympus", startingDeadlineSeconds: -5 } };
  const res = await request(app()).post("/validate/cronjob").send(review(broken)).expect(200);
  const r = AdmissionReviewResponseSchema.parse(res.body).response;
  assert.equal(r.allowed, false);
  assert.equal(r.status?.code, 422);
  assert.match(r.status!.message, /^CronJob\.batch\.tutorial\.kubebuilder\.io "cronjob-sample" is invalid: /);
  assert.match(r.status!.message, /spec\.schedule: [^;]*TZ[^;]*\(InvalidSchedule\)/);
  assert.match(r.status!.message, /spec\.timeZone: [^;]*\(InvalidTimeZone\)/);
  assert.match(r.status!.message, /spec\.startingDeadlineSeconds: [^;]*\(InvalidSpec\)/);
  const long = { ...sample, metadata: { ...sample.metadata, name: "x".repeat(53) } };
  const tooLong = await request(app()).post("/validate/cronjob").send(review(long)).expect(200);
  assert.match(tooLong.body.response.status.message, /metadata\.name: must be no more than 52 characters.*\(NameTooLong\)/);
  // …but an existing CronJob with such a name can still be edited (the rule is create-only upstream).
  const edit = await request(app()).post("/validate/cronjob").send(review({ ...long, metadata: { ...long.metadata, labels: { a: "b" } } }, "UPDATE", long)).expect(200);
  assert.equal(edit.body.response.allowed, true);
});

test("defaulting a CronJob writes concurrencyPolicy, suspend, history limits and timeZone", async () => {
  const object = { apiVersion: "batch.tutorial.kubebuilder.io/v1", kind: "CronJob", metadata: { name: "d" }, spec: { schedule: "0 * * * *", jobTemplate: { spec: {} } } };
  const res = await request(app()).post("/mutate/cronjob").send(review(object)).expect(200);
  const ops = JSON.parse(Buffer.from(res.body.response.patch, "base64").toString()) as AddOperation[];
  assert.deepEqual(Object.fromEntries(ops.map((o) => [o.path, o.value])), {
    "/spec/concurrencyPolicy": "Allow",
    "/spec/suspend": false,
    "/spec/successfulJobsHistoryLimit": 3,
    "/spec/failedJobsHistoryLimit": 1,
    "/spec/timeZone": "UTC",
  });
});

/**
 * The kinds' golden fixtures for invalid specs (every CIBuild SpecValid=False reason, the
 * CronJob's invalid schedule, zone, TZ= prefix and fields): the webhook denies each one, and its
 * first cause is the reason the sync hook reports in status.
 */
test("the webhook denies every invalid-spec fixture with the reason the sync hook reports", async () => {
  const cases: Array<{ kind: string; dir: string; condition: string }> = [
    { kind: "cibuild", dir: "test/fixtures/cibuild", condition: "SpecValid" },
    { kind: "cronjob", dir: "test/fixtures/cronjob", condition: "Ready" },
  ];
  const seen = new Set<string>();
  for (const { kind, dir, condition } of cases) {
    for (const name of readdirSync(dir).filter((n) => n.startsWith("invalid-"))) {
      const fixture = JSON.parse(readFileSync(join(dir, name, "request.json"), "utf8"));
      const expected = JSON.parse(readFileSync(join(dir, name, "response.json"), "utf8"));
      const reason = expected.status.conditions.find((c: any) => c.type === condition && c.status === "False")?.reason;
      assert.ok(reason, `${name}: no ${condition}=False in the fixture`);
      const { metadata } = fixture.parent;
      const object = { ...fixture.parent, metadata: { name: metadata.name, namespace: metadata.namespace } };
      const res = await request(app()).post(`/validate/${kind}`).send(review(object)).expect(200);
      const r = AdmissionReviewResponseSchema.parse(res.body).response;
      assert.equal(r.allowed, false, `${kind}/${name} should be denied`);
      assert.equal(r.status?.details?.causes[0]?.reason, reason, `${kind}/${name}: ${r.status?.message}`);
      assert.match(r.status!.message, new RegExp(`\\(${reason}\\)`));
      seen.add(reason);
    }
  }
  for (const reason of [
    "ConflictingFields", "MissingRepoURL", "InvalidGitURL", "CredentialsInURL", "MissingCloneSecret", "InvalidRevision",
    "MissingImageDestination", "InvalidImageReference", "InvalidContextDir", "InvalidDockerfilePath", "InvalidBuildArg",
    "InvalidTimeout", "UnsupportedStrategy", "InvalidSchedule", "InvalidTimeZone",
  ]) {
    assert.ok(seen.has(reason), `no invalid fixture covers ${reason}`);
  }
});

test("a CIBuild update that switches from legacy to structured fields into a conflict is denied", async () => {
  const sample = parse(readFileSync(join(SAMPLES, "cibuild", "cibuild-go.yaml"), "utf8"));
  const stored = { ...sample, metadata: { ...sample.metadata, namespace: "default" } };
  const conflicting = { ...stored, spec: { ...stored.spec, source: { git: { url: "https://github.com/example/other.git" } } } };
  const res = await request(app()).post("/validate/cibuild").send(review(conflicting, "UPDATE", stored)).expect(200);
  const r = AdmissionReviewResponseSchema.parse(res.body).response;
  assert.equal(r.allowed, false);
  assert.equal(r.status?.details?.causes[0]?.reason, "ConflictingFields");
  assert.match(r.status!.message, /spec\.source\.git\.url: spec\.SCMRepoURL and spec\.source\.git\.url are both set and differ.*\(ConflictingFields\)/);
  // Moving the value over in one update is fine.
  const { SCMRepoURL, ...rest } = stored.spec;
  const moved = { ...stored, spec: { ...rest, source: { git: { url: SCMRepoURL } } } };
  const ok = await request(app()).post("/validate/cibuild").send(review(moved, "UPDATE", stored)).expect(200);
  assert.equal(ok.body.response.allowed, true, JSON.stringify(ok.body.response.status));
});
