// Real-world CronJob cases (the C-numbers only trace them to the bug reports they came from; each
// test name states the behaviour), asserted on the behaviour itself so a
// wrong rewrite of a golden file cannot hide a regression.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runHook } from "../../../src/metacontroller/run-hook.ts";
import type { SyncResponse } from "../../../src/metacontroller/contract.ts";
import { cronJobController, validateCronJob } from "../../../src/controllers/cronjob/index.ts";
import { cronJob, job, request } from "./builders.ts";

const minutes = (iso: string) => Math.floor(Date.parse(iso) / 60000);
const TS = "batch.kubernetes.io/cronjob-scheduled-timestamp";
const AT = "batch.tutorial.kubebuilder.io/scheduled-at";

function sync(body: any, now: string, hook: "sync" | "finalize" = "sync") {
  const { response: raw, decisions } = runHook(cronJobController, hook, body, new Date(now), undefined);
  const response = raw as SyncResponse;
  const observed = new Set(Object.values<any>(body.children?.["Job.batch/v1"] ?? {}).map((j) => j.metadata.name));
  const children = response.children as any[];
  const created = children.filter((c) => !observed.has(c.metadata.name));
  const kept = children.filter((c) => observed.has(c.metadata.name)).map((c) => c.metadata.name).sort();
  const status = response.status as any;
  const condition = (type: string) => status.conditions?.find((c: any) => c.type === type);
  return { response, decisions, created, kept, status, condition };
}

function fixture(name: string) {
  const dir = join("test", "fixtures", "cronjob", name);
  return sync(JSON.parse(readFileSync(join(dir, "request.json"), "utf8")), readFileSync(join(dir, "now.txt"), "utf8").trim());
}

test("C1 after eight days of outage: exactly one Job, for the 12:00 slot", () => {
  const r = fixture("c1-outage-one-job");
  assert.deepEqual(r.created.map((c) => c.metadata.name), [`hello-${minutes("2026-01-05T12:00:00Z")}`]);
  assert.equal(r.status.lastScheduleTime, "2026-01-05T12:00:00Z");
  // The next call does not catch up on the other 191 missed slots.
  const again = sync(request(cronJob({ spec: { schedule: "0 * * * *" }, status: r.status }), r.created), "2026-01-05T12:20:05Z");
  assert.equal(again.created.length, 0);
});

test("C1 a year of missed `* * * * *` minutes: one Job for the latest minute", () => {
  const r = sync(request(cronJob({ status: { lastScheduleTime: "2025-01-05T12:00:00Z" } })), "2026-01-05T12:00:30Z");
  assert.deepEqual(r.created.map((c) => c.metadata.name), [`hello-${minutes("2026-01-05T12:00:00Z")}`]);
});

test("C2 resumed after five days: one Job for 14:00 at once; with a 300 s deadline nothing now, 15:00 next", () => {
  const plain = fixture("c2-resumed-runs-latest");
  assert.deepEqual(plain.created.map((c) => c.metadata.name), [`hello-${minutes("2026-01-05T14:00:00Z")}`]);

  const late = fixture("c2-resumed-deadline-skips");
  assert.equal(late.created.length, 0);
  assert.equal(late.status.lastScheduleTime, "2025-12-31T14:00:00Z", "a skipped slot does not move lastScheduleTime");
  assert.equal(late.condition("Scheduling").reason, "MissedSchedule");
  const wake = Date.parse("2026-01-05T14:20:00Z") + (late.response.resyncAfterSeconds ?? NaN) * 1000;
  assert.ok(wake > Date.parse("2026-01-05T15:00:00Z") && wake <= Date.parse("2026-01-05T15:00:01Z"), "resync lands on 15:00");

  const next = fixture("c2-resumed-deadline-next-slot");
  assert.deepEqual(next.created.map((c) => c.metadata.name), [`hello-${minutes("2026-01-05T15:00:00Z")}`]);

  const suspended = fixture("c2-suspended");
  assert.equal(suspended.created.length, 0);
  assert.equal(suspended.condition("Ready").reason, "Suspended");
  assert.equal(suspended.response.resyncAfterSeconds, undefined);
});

test("C3 fall back in New York: `30 1 * * *` runs once, at the first 01:30 (05:30Z)", () => {
  const first = fixture("c3-fall-back-first-occurrence");
  assert.equal(first.created.length, 1);
  assert.equal(first.created[0].metadata.annotations[AT], "2024-11-03T05:30:00Z");
  assert.equal(first.created[0].metadata.annotations[TS], "2024-11-03T01:30:00-04:00");
  const second = fixture("c3-fall-back-no-second-run");
  assert.equal(second.created.length, 0, "no Job at the second 01:30 (06:30Z)");
  // Even with the status lost, the observed Job keeps the slot from running again.
  const lost = sync(request(cronJob({ spec: { schedule: "30 1 * * *", timeZone: "America/New_York" } }), [job("hello", "2024-11-03T05:30:00Z", "complete")]), "2024-11-03T06:30:20Z");
  assert.equal(lost.created.length, 0);
});

test("C3 interval schedules keep following elapsed time through the repeated hour", () => {
  const r = fixture("c3-interval-repeated-hour");
  assert.equal(r.created.length, 1);
  assert.equal(r.created[0].metadata.annotations[AT], "2024-11-03T06:00:00Z");
  assert.equal(r.created[0].metadata.annotations[TS], "2024-11-03T01:00:00-05:00", "the second 01:00, in EST");
});

test("C4 spring forward in New York: `30 2 * * *` runs once at 03:00 EDT (07:00Z)", () => {
  const r = fixture("c4-spring-forward-gap");
  assert.equal(r.created.length, 1);
  assert.equal(r.created[0].metadata.annotations[AT], "2024-03-10T07:00:00Z");
  assert.equal(r.created[0].metadata.annotations[TS], "2024-03-10T03:00:00-04:00");
});

test("C5 startingDeadlineSeconds 10: resync lands on the slot; start when lateness <= deadline, skip otherwise", () => {
  const waiting = fixture("c5-resync-lands-on-slot");
  const wake = Date.parse("2026-01-04T12:00:00Z") + (waiting.response.resyncAfterSeconds ?? NaN) * 1000;
  const slot = Date.parse("2026-01-05T00:01:00Z");
  assert.ok(wake >= slot && wake - slot <= 1000, `resync ${new Date(wake).toISOString()} must land on the slot`);
  assert.equal(fixture("c5-deadline-in-time").created.length, 1, "10 s late with a 10 s deadline still starts");
  const late = fixture("c5-deadline-too-late");
  assert.equal(late.created.length, 0, "11 s late is skipped");
  assert.equal(late.status.lastScheduleTime, "2026-01-04T00:01:00Z");
  assert.deepEqual(late.decisions.find((d) => d.action === "skip"), { action: "skip", reason: "TooLate", object: `hello-${minutes("2026-01-05T00:01:00Z")}` });
});

test("C6 a hand-deleted Job in status.active does not block Forbid, and its slot never runs twice", () => {
  const r = fixture("c6-vanished-active-job");
  assert.deepEqual(r.created.map((c) => c.metadata.name), [`hello-${minutes("2026-01-05T12:00:00Z")}`]);
  assert.deepEqual(r.status.active.map((a: any) => a.name), [`hello-${minutes("2026-01-05T12:00:00Z")}`], "the vanished Job left status.active");
  const rerun = fixture("c6-vanished-slot-not-rerun");
  assert.equal(rerun.created.length, 0, "the vanished Job's slot is known from its name");
  assert.equal(rerun.status.lastScheduleTime, "2026-01-05T12:00:00Z");
  assert.equal(rerun.status.active, undefined);
});

test("C7 history limits per class, oldest first, no start time sorts last — also suspended and invalid", () => {
  const expected = [
    `hello-${minutes("2026-01-05T04:00:00Z")}`, // failed, no startTime: newest, kept
    `hello-${minutes("2026-01-05T10:00:00Z")}`,
    `hello-${minutes("2026-01-05T11:00:00Z")}`,
  ].sort();
  for (const name of ["c7-history-limits", "c7-history-while-suspended", "c7-history-invalid-schedule"]) {
    const r = fixture(name);
    assert.deepEqual(r.kept, expected, name);
    assert.equal(r.created.length, 0, name);
    assert.equal(r.decisions.filter((d) => d.action === "prune").length, 4, name);
  }
});

test("C7 a limit of 0 keeps no finished Job of that class; running Jobs are never pruned", () => {
  const r = sync(
    request(cronJob({ spec: { schedule: "0 * * * *", successfulJobsHistoryLimit: 0, failedJobsHistoryLimit: 0 }, status: { lastScheduleTime: "2026-01-05T11:00:00Z" } }), [
      job("hello", "2026-01-05T09:00:00Z", "complete"),
      job("hello", "2026-01-05T10:00:00Z", "failed"),
      job("hello", "2026-01-05T11:00:00Z", "running"),
    ]),
    "2026-01-05T11:30:00Z",
  );
  assert.deepEqual(r.kept, [`hello-${minutes("2026-01-05T11:00:00Z")}`]);
});

test("C8 a 60-character name: no Job, a NameTooLong condition, observed Jobs kept; admission rejects > 52 on create", () => {
  const r = fixture("c8-name-too-long");
  assert.equal(r.created.length, 0);
  assert.equal(r.kept.length, 1);
  assert.equal(r.condition("Ready").status, "False");
  assert.equal(r.condition("Ready").reason, "NameTooLong");
  const long = cronJob({ name: "x".repeat(53) });
  assert.equal(validateCronJob(long)[0]?.reason, "NameTooLong");
  assert.deepEqual(validateCronJob(long, long), [], "updates of legacy objects are allowed");
  assert.deepEqual(validateCronJob(cronJob({ name: "x".repeat(52) })), []);
  // 52 characters still produce valid Jobs.
  const ok = sync(request(cronJob({ name: "x".repeat(52) })), "2026-01-05T12:00:30Z");
  assert.equal(ok.created.length, 1);
  assert.ok(ok.created[0].metadata.name.length <= 63);
});

test("C9 Replace leaves both running Jobs out and creates the new one", () => {
  const r = fixture("c9-replace-two-running");
  assert.deepEqual(r.created.map((c) => c.metadata.name), [`hello-${minutes("2026-01-05T12:00:00Z")}`]);
  assert.deepEqual(r.kept, [`hello-${minutes("2026-01-05T09:00:00Z")}`], "only the finished Job stays");
  assert.deepEqual(r.status.active.map((a: any) => a.name), [`hello-${minutes("2026-01-05T12:00:00Z")}`]);
  assert.deepEqual(r.decisions.filter((d) => d.action === "replace").map((d) => d.object).sort(), [
    `hello-${minutes("2026-01-05T10:00:00Z")}`,
    `hello-${minutes("2026-01-05T11:00:00Z")}`,
  ]);
});

test("Forbid waits while a Job runs (FailureTarget alone is still running) and starts late once it finished", () => {
  const blocked = fixture("forbid-blocked");
  assert.equal(blocked.created.length, 0);
  assert.equal(blocked.status.lastScheduleTime, "2026-01-05T11:00:00Z");
  assert.equal(blocked.condition("Scheduling").reason, "ConcurrencyForbidden");
  assert.equal(fixture("forbid-failure-target-still-active").created.length, 0);
  assert.equal(fixture("forbid-blocker-finished-late-start").created.length, 1);
});

test("a schedule change takes effect when first seen; without a record nothing legitimate is dropped", () => {
  const changed = fixture("schedule-change-first-seen");
  assert.equal(changed.created.length, 0, "12:30 of the new schedule is before the change was seen (upstream runs it, #130838)");
  assert.deepEqual(changed.status.schedule, { schedule: "30 * * * *", timeZone: "UTC", since: "2026-01-05T12:45:00Z" });
  assert.equal(fixture("schedule-change-next-slot").created.length, 1);
  assert.equal(fixture("schedule-record-lost").created.length, 1);
  // A zone change counts as a schedule change too.
  const zone = sync(
    request(cronJob({ spec: { schedule: "30 * * * *", timeZone: "Asia/Kolkata" }, status: { lastScheduleTime: "2026-01-05T12:00:00Z", schedule: { schedule: "30 * * * *", timeZone: "UTC", since: "2026-01-01T00:00:00Z" } } })),
    "2026-01-05T12:45:00Z",
  );
  assert.equal(zone.created.length, 0);
  assert.equal(zone.status.schedule.since, "2026-01-05T12:45:00Z");
});

test("the last schedule time comes from status, annotations, name suffixes (minutes or seconds); future ones are ignored", () => {
  // A legacy tutorial Job named with unix seconds and no annotations marks 12:00 as done.
  const seconds = sync(request(cronJob(), [job("hello", "2026-01-05T12:00:00Z", "complete", { name: `hello-${Date.parse("2026-01-05T12:00:00Z") / 1000}`, noAnnotations: true })]), "2026-01-05T12:00:30Z");
  assert.equal(seconds.created.length, 0);
  assert.equal(seconds.status.lastScheduleTime, "2026-01-05T12:00:00Z");
  // A Job that claims a future slot does not stop the present one.
  const future = sync(request(cronJob(), [job("hello", "2026-01-05T13:00:00Z", "running")]), "2026-01-05T12:00:30Z");
  assert.equal(future.created.length, 1);
  assert.equal(future.status.lastScheduleTime, "2026-01-05T12:00:00Z");
});

test("invalid specs answer 200 with a False condition, keep every observed Job and create nothing", () => {
  for (const [name, reason] of [
    ["invalid-schedule", "InvalidSchedule"],
    ["invalid-time-zone", "InvalidTimeZone"],
    ["invalid-tz-prefix", "InvalidSchedule"],
    ["invalid-negative-deadline", "InvalidSpec"],
    ["never-fires", "NeverFires"],
  ] as const) {
    const r = fixture(name);
    assert.equal(r.created.length, 0, name);
    assert.equal(r.condition("Ready").reason, reason, name);
    assert.equal(r.response.resyncAfterSeconds, undefined, name);
    const observed = Object.keys(JSON.parse(readFileSync(join("test", "fixtures", "cronjob", name, "request.json"), "utf8")).children["Job.batch/v1"]).length;
    assert.equal(r.kept.length, observed, name);
  }
});

test("finalize: no children desired; finalized only once no Job is observed", () => {
  const pending = sync(JSON.parse(readFileSync("test/fixtures/cronjob/example-finalize-pending/request.json", "utf8")), "2026-01-05T12:00:30Z", "finalize");
  assert.equal(pending.response.children.length, 0);
  assert.equal(pending.response.finalized, false);
  const done = sync(request(cronJob({ deletionTimestamp: "2026-01-05T12:00:10Z" }), [], { finalizing: true }), "2026-01-05T12:00:40Z", "finalize");
  assert.equal(done.response.finalized, true);
  // A deleting parent on the sync route (no finalize hook configured) creates nothing and keeps Jobs.
  const deleting = fixture("deleting-without-finalize");
  assert.equal(deleting.created.length, 0);
  assert.equal(deleting.kept.length, 1);
  assert.equal(deleting.response.finalized, undefined);
});

test("the new Job: name, template labels and annotations, both scheduled-time annotations, no owner refs", () => {
  const r = fixture("time-zone-annotation");
  const [j] = r.created;
  assert.equal(j.metadata.name, `hello-${minutes("2026-05-19T10:00:00Z")}`);
  assert.equal(j.metadata.namespace, "default");
  assert.deepEqual(j.metadata.labels, { app: "hello" });
  assert.deepEqual(j.metadata.annotations, {
    "example.com/team": "batch",
    [TS]: "2026-05-19T06:00:00-04:00",
    [AT]: "2026-05-19T10:00:00Z",
  });
  assert.equal(j.metadata.ownerReferences, undefined);
  assert.equal(j.metadata.generateName, undefined);
  assert.deepEqual(j.spec, cronJob().spec.jobTemplate.spec);
});

test("@every with a deadline shorter than its interval still runs (upstream never does)", () => {
  const r = sync(request(cronJob({ creationTimestamp: "2026-01-05T10:00:00Z", spec: { schedule: "@every 1h", startingDeadlineSeconds: 60 } })), "2026-01-05T11:00:05Z");
  assert.deepEqual(r.created.map((c) => c.metadata.name), [`hello-${minutes("2026-01-05T11:00:00Z")}`]);
  assert.equal(r.response.resyncAfterSeconds, 3595.1);
});

test("C9 Replace whose delete failed: the next call still leaves the replaced Job out (found by the emulator)", () => {
  // 12:00's Job was created under Replace and 11:00's Job left out, but Metacontroller could not
  // delete it (API error): both are observed running on the next call.
  const parent = cronJob({ spec: { schedule: "0 * * * *", concurrencyPolicy: "Replace" }, status: { lastScheduleTime: "2026-01-05T12:00:00Z" } });
  const observed = [job("hello", "2026-01-05T11:00:00Z", "running"), job("hello", "2026-01-05T12:00:00Z", "running")];
  const r = sync(request(parent, observed), "2026-01-05T12:00:40Z");
  assert.equal(r.created.length, 0);
  assert.deepEqual(r.kept, [`hello-${minutes("2026-01-05T12:00:00Z")}`], "the stale 11:00 Job must be left out again");
  assert.deepEqual(r.status.active.map((a: any) => a.name), [`hello-${minutes("2026-01-05T12:00:00Z")}`]);
  // Under Allow both keep running.
  const allow = sync(request(cronJob({ spec: { schedule: "0 * * * *" }, status: parent.status }), observed), "2026-01-05T12:00:40Z");
  assert.equal(allow.kept.length, 2);
});

test("a jobTemplate the API would always reject creates nothing and keeps lastScheduleTime (InvalidJobTemplate)", () => {
  const status = { lastScheduleTime: "2026-01-05T11:59:00Z" };
  const bad: Array<[string, any]> = [
    ["restartPolicy Always", { template: { spec: { containers: [{ name: "c", image: "busybox" }], restartPolicy: "Always" } } }],
    ["no restartPolicy", { template: { spec: { containers: [{ name: "c", image: "busybox" }] } } }],
    ["no containers", { template: { spec: { containers: [], restartPolicy: "Never" } } }],
    ["empty JobSpec", {}],
    ["a selector", { selector: { matchLabels: { app: "x" } }, template: { spec: { containers: [{ name: "c", image: "busybox" }], restartPolicy: "Never" } } }],
    ["manualSelector", { manualSelector: true, template: { spec: { containers: [{ name: "c", image: "busybox" }], restartPolicy: "Never" } } }],
  ];
  for (const [what, spec] of bad) {
    const observed = [job("hello", "2026-01-05T11:59:00Z", "running")];
    const r = sync(request(cronJob({ spec: { jobTemplate: { spec } }, status }), observed), "2026-01-05T12:00:30Z");
    assert.equal(r.created.length, 0, what);
    assert.deepEqual(r.kept, [`hello-${minutes("2026-01-05T11:59:00Z")}`], `${what}: observed Jobs are kept`);
    assert.equal(r.condition("Ready").reason, "InvalidJobTemplate", what);
    assert.equal(r.status.lastScheduleTime, "2026-01-05T11:59:00Z", `${what}: the slot is not consumed`);
  }
});

test("a CronJob name with dots makes valid Jobs (a Job name is a DNS subdomain and a label value)", () => {
  const r = sync(request(cronJob({ name: "my.cron" })), "2026-01-05T12:00:30Z");
  assert.deepEqual(r.created.map((c) => c.metadata.name), [`my.cron-${minutes("2026-01-05T12:00:00Z")}`]);
  assert.equal(r.condition("Ready").status, "True");
});

test("a schedule record or creation time in the future does not hold the CronJob back", () => {
  const future = { schedule: "* * * * *", timeZone: "UTC", since: "2027-01-01T00:00:00Z" };
  const r = sync(request(cronJob({ status: { lastScheduleTime: "2026-01-05T11:58:00Z", schedule: future } })), "2026-01-05T12:00:30Z");
  assert.deepEqual(r.created.map((c) => c.metadata.name), [`hello-${minutes("2026-01-05T12:00:00Z")}`]);
  assert.equal(r.status.schedule.since, "2026-01-05T11:58:00Z", "treated as no record: in force since the last run");
  const skewed = sync(request(cronJob({ creationTimestamp: "2026-01-05T12:00:40Z" })), "2026-01-05T12:00:30Z");
  assert.equal(skewed.status.schedule.since, "2026-01-05T12:00:30Z");
});

test("a lastScheduleTime at the end of time is a status from the future, not NeverFires, and the resync stays within 24 h", () => {
  const r = sync(request(cronJob({ spec: { schedule: "*/1 * * * *" }, status: { lastScheduleTime: "9999-12-31T23:59:59Z" } })), "2026-03-01T10:00:30Z");
  assert.equal(r.condition("Ready").status, "True");
  assert.equal(r.condition("Scheduling").reason, "UpToDate");
  assert.match(r.condition("Scheduling").message, /later than now/);
  assert.equal(r.created.length, 0);
  assert.equal(r.response.resyncAfterSeconds, 86_400);
  // A slot centuries away would overflow Metacontroller's int64-nanosecond duration.
  const far = sync(request(cronJob({ spec: { schedule: "@every 2562047h" }, status: { lastScheduleTime: "2300-01-05T12:00:00Z" } })), "2026-03-01T10:00:30Z");
  assert.equal(far.response.resyncAfterSeconds, 86_400);
});

test("Job labels: the jobTemplate's, else the Pod template's (the API server's Job defaulting, which Metacontroller's controller-uid label would otherwise prevent)", () => {
  const podTemplate = { metadata: { labels: { app: "backup", tier: "batch" } }, spec: { containers: [{ name: "b", image: "busybox:1.36" }], restartPolicy: "OnFailure" } };
  const labelsOf = (jobTemplate: unknown) => sync(request(cronJob({ spec: { jobTemplate } })), "2026-01-05T00:01:00Z").created[0]?.metadata.labels;
  assert.deepEqual(labelsOf({ spec: { template: podTemplate } }), { app: "backup", tier: "batch" }, "no jobTemplate labels: the Pod template's");
  assert.deepEqual(labelsOf({ metadata: { labels: {} }, spec: { template: podTemplate } }), { app: "backup", tier: "batch" }, "empty jobTemplate labels count as none, as in SetDefaults_Job");
  assert.deepEqual(labelsOf({ metadata: { labels: { job: "nightly" } }, spec: { template: podTemplate } }), { job: "nightly" }, "the jobTemplate's own labels win, and only they are used");
  assert.equal(labelsOf({ spec: { template: { spec: podTemplate.spec } } }), undefined, "no labels anywhere: none");
});
