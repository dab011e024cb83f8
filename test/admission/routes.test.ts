import { test } from "node:test";
import { configureControllers } from "../../src/controllers/registry.ts";
import assert from "node:assert/strict";
import request from "supertest";
import { createApp } from "../../src/http/app.ts";
import { admissionPaths } from "../../src/admission/routes.ts";
import { AdmissionReviewResponseSchema } from "../../src/admission/review.ts";
import { cronJobController } from "../../src/controllers/cronjob/index.ts";
import { silentLogger } from "../helpers/silent-logger.ts";
import { widget, widgetController, widgetReview } from "../fixtures/kinds/widget/index.ts";

const kinds = [
  ...configureControllers({}, [widgetController]),
  { def: { ...cronJobController, name: "noadmission", admission: undefined }, options: undefined },
];

function app() {
  return createApp({ controllers: kinds, logger: silentLogger });
}

test("routes exist only for kinds with admission support", async () => {
  assert.deepEqual(admissionPaths(kinds), ["/validate/widget", "/mutate/widget"]);
  await request(app()).post("/validate/noadmission").send(widgetReview("CREATE", widget({ schedule: "x" }))).expect(404);
  await request(app()).post("/mutate/noadmission").send(widgetReview("CREATE", widget({ schedule: "x" }))).expect(404);
});

test("POST /validate/<kind> denies a broken object with HTTP 200 and a clear message", async () => {
  const res = await request(app())
    .post("/validate/widget")
    .set("Content-Type", "application/json")
    .send(widgetReview("CREATE", widget({ schedule: "" })))
    .expect(200);
  const review = AdmissionReviewResponseSchema.parse(res.body);
  assert.equal(review.response.allowed, false);
  assert.equal(review.response.uid, "705ab4f5-6393-11e8-b7cc-42010a800002");
  assert.equal(review.response.status?.message, 'Widget.example.com "w" is invalid: spec.schedule: must not be empty (InvalidSchedule)');
});

test("POST /validate/<kind> allows a valid object", async () => {
  const res = await request(app()).post("/validate/widget").send(widgetReview("CREATE", widget({ schedule: "x" }))).expect(200);
  assert.deepEqual(res.body.response, { uid: "705ab4f5-6393-11e8-b7cc-42010a800002", allowed: true });
});

test("POST /mutate/<kind> answers a JSONPatch", async () => {
  const res = await request(app()).post("/mutate/widget").send(widgetReview("CREATE", widget({ schedule: "x" }))).expect(200);
  const review = AdmissionReviewResponseSchema.parse(res.body);
  assert.equal(review.response.patchType, "JSONPatch");
  const ops = JSON.parse(Buffer.from(review.response.patch!, "base64").toString()) as Array<{ path: string }>;
  assert.deepEqual(ops.map((o) => o.path), ["/spec/mode", "/spec/suspend", "/spec/limits"]);
});

test("malformed and non-AdmissionReview bodies get the JSON error envelope", async () => {
  const bad = await request(app()).post("/validate/widget").set("Content-Type", "application/json").send("{nope").expect(400);
  assert.equal(bad.body.error, "malformed_json");
  const empty = await request(app()).post("/mutate/widget").set("Content-Type", "application/json").send("").expect(400);
  assert.equal(empty.body.error, "malformed_json");
  const wrong = await request(app()).post("/validate/widget").send({ hello: "world" }).expect(422);
  assert.equal(wrong.body.error, "invalid_request");
  assert.match(wrong.body.message, /AdmissionReview/);
});

test("hook routes keep working next to the admission routes", async () => {
  const parent = widget({ schedule: "x" });
  const res = await request(app()).post("/sync/widget").send({ parent: { ...parent, metadata: { name: "w", uid: "u" } } }).expect(200);
  assert.deepEqual(res.body.status, { observed: true });
});

test("with a bearer token configured, the hook port's admission routes need it too", async () => {
  const guarded = createApp({ controllers: kinds, logger: silentLogger, authenticate: (h) => h === "Bearer s3cret" });
  const body = widgetReview("CREATE", widget({ schedule: "x" }));
  const denied = await request(guarded).post("/validate/widget").send(body).expect(401);
  assert.equal(denied.body.error, "unauthorized");
  await request(guarded).post("/mutate/widget").send(body).expect(401);
  const ok = await request(guarded).post("/validate/widget").set("Authorization", "Bearer s3cret").send(body).expect(200);
  assert.equal(ok.body.response.allowed, true);
});
