import { test } from "node:test";
import assert from "node:assert/strict";
import { cronJobController, defaultCronJobSpec, readCronJobSpec, validateCronJob } from "../../../src/controllers/cronjob/index.ts";
import { CronJobSpecSchema } from "../../../src/controllers/cronjob/schema.ts";
import { cronJob } from "./builders.ts";

const reasons = (spec: Record<string, unknown>, name?: string) =>
  validateCronJob(cronJob({ ...(name ? { name } : {}), spec })).map((p) => `${p.reason} ${p.field}`);

test("a valid spec has no problems; the sample and every macro pass", () => {
  assert.deepEqual(reasons({}), []);
  for (const schedule of ["@hourly", "@every 2h", "*/1 * * * *"]) assert.deepEqual(reasons({ schedule }), [], schedule);
  assert.deepEqual(reasons({ timeZone: "Europe/Berlin", startingDeadlineSeconds: 0, concurrencyPolicy: "Forbid", suspend: true, successfulJobsHistoryLimit: 0, failedJobsHistoryLimit: 0 }), []);
});

test("problems come in check order: name, schedule, time zone, then the other fields", () => {
  assert.deepEqual(
    reasons(
      { schedule: "TZ=UTC * * * * *", timeZone: "Local", startingDeadlineSeconds: -1, concurrencyPolicy: "Sometimes", successfulJobsHistoryLimit: -2, failedJobsHistoryLimit: 1.5 },
      "n".repeat(53),
    ),
    [
      "NameTooLong metadata.name",
      "InvalidSchedule spec.schedule",
      "InvalidTimeZone spec.timeZone",
      "InvalidSpec spec.startingDeadlineSeconds",
      "InvalidSpec spec.concurrencyPolicy",
      "InvalidSpec spec.successfulJobsHistoryLimit",
      "InvalidSpec spec.failedJobsHistoryLimit",
    ],
  );
  assert.deepEqual(reasons({ schedule: undefined }), ["InvalidSchedule spec.schedule"]);
  assert.deepEqual(reasons({ schedule: 5 }), ["InvalidSchedule spec.schedule"]);
  assert.deepEqual(reasons({ timeZone: "" }), ["InvalidTimeZone spec.timeZone"]);
  assert.deepEqual(reasons({ jobTemplate: undefined }), ["InvalidJobTemplate spec.jobTemplate"]);
  assert.deepEqual(reasons({ suspend: "yes" }), ["InvalidSpec spec.suspend"]);
  assert.match(validateCronJob(cronJob({ spec: { schedule: "CRON_TZ=UTC 0 * * * *" } }))[0]!.message, /cannot use TZ or CRON_TZ/);
});

test("the sync hook reports the same first problem as admission", () => {
  for (const spec of [{ schedule: "0 0 * * 7" }, { timeZone: "Nowhere/City" }, { concurrencyPolicy: "Never" }]) {
    const parent = cronJob({ spec });
    const { response } = cronJobController.sync({ parent, children: {}, related: {}, finalizing: false } as any, new Date("2026-01-05T12:00:30Z"), undefined);
    const ready = (response.status as any).conditions[0];
    const problem = validateCronJob(parent)[0]!;
    assert.equal(ready.reason, problem.reason);
    assert.match(ready.message, new RegExp(problem.field.replace(".", "\\.")));
  }
});

test("defaultSpec writes out only unset defaults and never touches set values", () => {
  assert.deepEqual(defaultCronJobSpec({ schedule: "0 * * * *" }), {
    schedule: "0 * * * *",
    concurrencyPolicy: "Allow",
    suspend: false,
    successfulJobsHistoryLimit: 3,
    failedJobsHistoryLimit: 1,
    timeZone: "UTC",
  });
  const set = { schedule: "x", concurrencyPolicy: "Forbid", suspend: true, successfulJobsHistoryLimit: 0, failedJobsHistoryLimit: 0, timeZone: "Asia/Tokyo" };
  assert.deepEqual(defaultCronJobSpec(set), set);
  assert.equal(defaultCronJobSpec("nope"), "nope");
  assert.equal(defaultCronJobSpec(null), null);
  // A defaulted spec behaves exactly like the original.
  const spec = cronJob().spec;
  assert.deepEqual(readCronJobSpec(defaultCronJobSpec(spec)).problems, []);
  assert.ok(cronJobController.admission);
});

test("zod-valid specs are exactly those the schema accepts (one source of truth)", () => {
  const parsed = CronJobSpecSchema.safeParse(cronJob({ spec: { unknownField: 1 } }).spec);
  assert.ok(parsed.success);
  assert.equal((parsed.data as any).unknownField, undefined, "unknown spec fields are dropped like the CRD prunes them");
});
