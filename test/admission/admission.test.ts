import { test } from "node:test";
import assert from "node:assert/strict";
import { mutateAdmission, validateAdmission } from "../../src/admission/admission.ts";
import { AdmissionReviewResponseSchema } from "../../src/admission/review.ts";
import { applyAddOperations, type AddOperation } from "../../src/admission/json-patch.ts";
import { HookError } from "../../src/errors.ts";
import { widget, widgetController, widgetReview } from "../fixtures/kinds/widget/index.ts";

const UID = "705ab4f5-6393-11e8-b7cc-42010a800002";

function decodePatch(patch: string | undefined): AddOperation[] {
  assert.ok(patch, "expected a patch");
  return JSON.parse(Buffer.from(patch, "base64").toString("utf8")) as AddOperation[];
}

test("validate: a valid object is allowed and the uid is echoed", () => {
  const out = validateAdmission(widgetController, widgetReview("CREATE", widget({ schedule: "* * * * *" })));
  AdmissionReviewResponseSchema.parse(out.review);
  assert.deepEqual(out.review, { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: UID, allowed: true } });
  assert.equal(out.decision, "allowed");
  assert.equal(out.object, "default/w");
});

test("validate: an invalid object is denied with 422, a message naming field and rule, and causes", () => {
  const out = validateAdmission(
    widgetController,
    widgetReview("CREATE", widget({ schedule: "TZ=UTC * * * * *", limits: { kept: -1 } }, "a-very-long-widget-name-indeed")),
  );
  AdmissionReviewResponseSchema.parse(out.review);
  const r = out.review.response;
  assert.equal(r.uid, UID);
  assert.equal(r.allowed, false);
  assert.equal(r.status?.code, 422);
  assert.equal(r.status?.reason, "Invalid");
  assert.equal(
    r.status?.message,
    'Widget.example.com "a-very-long-widget-name-indeed" is invalid: spec.schedule: TZ= is not allowed; use spec.timeZone (InvalidSchedule); ' +
      "spec.limits.kept: must be >= 0 (InvalidLimit); metadata.name: must be at most 20 characters (NameTooLong)",
  );
  assert.deepEqual(
    r.status?.details?.causes.map((c) => c.field),
    ["spec.schedule", "spec.limits.kept", "metadata.name"],
  );
  assert.equal(r.status?.details?.kind, "Widget");
  assert.equal(r.status?.details?.group, "example.com");
  assert.equal(out.decision, "denied InvalidSchedule,InvalidLimit,NameTooLong");
});

test("validate: DELETE, CONNECT, subresources, other kinds and deleting objects are allowed unchecked", () => {
  const bad = widget({ schedule: "" });
  const cases: Array<[Record<string, unknown>, string]> = [
    [widgetReview("DELETE", null, bad), "skipped Delete"],
    [widgetReview("CONNECT", bad), "skipped Connect"],
    [widgetReview("UPDATE", bad, bad, { subResource: "status" }), "skipped Subresource"],
    [widgetReview("UPDATE", widget({ schedule: "" }, "w", { deletionTimestamp: "2026-01-01T00:00:00Z" }), bad), "skipped Deleting"],
    [widgetReview("CREATE", bad, undefined, { kind: { group: "apps", version: "v1", kind: "Deployment" } }), "skipped OtherKind"],
  ];
  for (const [review, decision] of cases) {
    const out = validateAdmission(widgetController, review);
    assert.equal(out.review.response.allowed, true, decision);
    assert.equal(out.decision, decision);
    AdmissionReviewResponseSchema.parse(out.review);
  }
  const other = validateAdmission(widgetController, cases[4]![0]);
  assert.match(other.review.response.warnings?.[0] ?? "", /serves example.com\/v1 Widget, not apps\/v1 Deployment/);
});

test("validate: updates are checked, but problems the stored object already had are forgiven", () => {
  const longName = "a-very-long-widget-name-indeed";
  // Create-only rule (name length) does not block updates of an existing object.
  const labelled = validateAdmission(
    widgetController,
    widgetReview("UPDATE", widget({ schedule: "* * * * *" }, longName, { labels: { a: "b" } }), widget({ schedule: "* * * * *" }, longName)),
  );
  assert.equal(labelled.review.response.allowed, true);
  // An already-invalid stored object can still get metadata changes (e.g. Metacontroller's finalizer).
  const stillBad = widget({ schedule: "" });
  const finalizer = validateAdmission(
    widgetController,
    widgetReview("UPDATE", widget({ schedule: "" }, "w", { finalizers: ["metacontroller.io/x"] }), stillBad),
  );
  assert.equal(finalizer.review.response.allowed, true);
  assert.deepEqual(finalizer.review.response.warnings, [
    "spec.schedule: must not be empty (InvalidSchedule; the stored object already had this problem)",
  ]);
  assert.equal(finalizer.decision, "allowed with 1 existing problem(s)");
  // A new problem is denied, and the old object is handed to validate (TZ= kept from before is fine).
  const newProblem = validateAdmission(
    widgetController,
    widgetReview("UPDATE", widget({ schedule: "* * * * *", limits: { kept: -2 } }), widget({ schedule: "* * * * *" })),
  );
  assert.equal(newProblem.review.response.allowed, false);
  assert.deepEqual(newProblem.review.response.status?.details?.causes.map((c) => c.reason), ["InvalidLimit"]);
  const keptTz = validateAdmission(
    widgetController,
    widgetReview("UPDATE", widget({ schedule: "TZ=UTC 5 * * * *" }), widget({ schedule: "TZ=UTC * * * * *" })),
  );
  assert.equal(keptTz.review.response.allowed, true);
  const addedTz = validateAdmission(
    widgetController,
    widgetReview("UPDATE", widget({ schedule: "TZ=UTC 5 * * * *" }), widget({ schedule: "5 * * * *" })),
  );
  assert.equal(addedTz.review.response.allowed, false);
});

test("validate: a body that is not an AdmissionReview v1 request is a 422 HookError", () => {
  for (const body of [{}, { apiVersion: "admission.k8s.io/v1beta1", kind: "AdmissionReview", request: {} }, widgetReview("CREATE", null)]) {
    assert.throws(
      () => validateAdmission(widgetController, body),
      (err: unknown) => err instanceof HookError && err.status === 422,
    );
  }
});

test("validate: a kind whose validation throws answers 500", () => {
  const broken = { ...widgetController, admission: { validate: () => { throw new Error("boom"); }, defaultSpec: (s: unknown) => s } };
  assert.throws(
    () => validateAdmission(broken, widgetReview("CREATE", widget({ schedule: "x" }))),
    (err: unknown) => err instanceof HookError && err.status === 500 && /boom/.test(err.message),
  );
});

test("mutate: CREATE gets a base64 JSONPatch adding only missing defaults", () => {
  const object = widget({ schedule: "* * * * *", mode: "Forbid", limits: { kept: 7 }, args: [{ name: "A" }, { name: "B", value: "b" }] });
  const out = mutateAdmission(widgetController, widgetReview("CREATE", object));
  AdmissionReviewResponseSchema.parse(out.review);
  assert.equal(out.review.response.allowed, true);
  assert.equal(out.review.response.patchType, "JSONPatch");
  const ops = decodePatch(out.review.response.patch);
  // In the defaulted document's key order (deterministic).
  assert.deepEqual(ops, [
    { op: "add", path: "/spec/limits/failed", value: 1 },
    { op: "add", path: "/spec/args/0/value", value: "" },
    { op: "add", path: "/spec/suspend", value: false },
  ]);
  const patched = applyAddOperations(object, ops) as { spec: Record<string, unknown> };
  assert.equal(patched.spec.mode, "Forbid");
  assert.deepEqual(patched.spec.limits, { kept: 7, failed: 1 });
  assert.equal(out.decision, "patched 3");
});

test("mutate: nothing missing, an unparsable spec, or a skipped request gives no patch", () => {
  const full = widget({ schedule: "x", mode: "Allow", suspend: false, limits: { kept: 3, failed: 1 } });
  for (const review of [
    widgetReview("CREATE", full),
    widgetReview("CREATE", widget({ schedule: 5 })),
    widgetReview("CREATE", widget(undefined)),
    widgetReview("DELETE", null, full),
    widgetReview("UPDATE", widget({ schedule: "x" }), full, { subResource: "status" }),
  ]) {
    const out = mutateAdmission(widgetController, review);
    assert.equal(out.review.response.allowed, true);
    assert.equal(out.review.response.patch, undefined);
    assert.equal(out.review.response.patchType, undefined);
  }
});

test("mutate: UPDATE only restores defaults the stored object had (no late defaults on old objects)", () => {
  const stored = widget({ schedule: "x", mode: "Allow", suspend: false });
  const applied = widget({ schedule: "y" });
  const ops = decodePatch(mutateAdmission(widgetController, widgetReview("UPDATE", applied, stored)).review.response.patch);
  assert.deepEqual(ops, [
    { op: "add", path: "/spec/mode", value: "Allow" },
    { op: "add", path: "/spec/suspend", value: false },
  ]);
});

test("mutate: an object without a name yet (generateName) is still defaulted", () => {
  const object = { apiVersion: "example.com/v1", kind: "Widget", metadata: { generateName: "w-", namespace: "default" }, spec: { schedule: "x" } };
  const out = mutateAdmission(widgetController, widgetReview("CREATE", object));
  assert.equal(decodePatch(out.review.response.patch).length, 3);
  assert.equal(out.object, "default/w");
});
