import { test } from "node:test";
import assert from "node:assert/strict";
import { FIVE_MINUTES, startCronJobRun, type CronJobRun } from "./cronjob-harness.ts";

const T = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");
const shortJobs = () => ({ startAfterSeconds: 0, runSeconds: 60 });

async function withRun(options: Parameters<typeof startCronJobRun>[0], body: (run: CronJobRun) => Promise<void>) {
  const run = await startCronJobRun(options);
  try {
    await body(run);
    assert.deepEqual(run.violations, []);
  } finally {
    await run.close();
  }
}

test("CronJob: Metacontroller down for a day → no burst on restart, at most the latest missed slot, then on schedule", async () => {
  for (const deadline of [undefined, 60]) {
    await withRun({ start: new Date(T("2026-06-01T23:00:00Z")), spec: { schedule: "*/5 * * * *", startingDeadlineSeconds: deadline }, jobPlan: shortJobs }, async (run) => {
      await run.emu.runUntil(T("2026-06-02T00:02:30Z"));
      run.controller.stop();
      const before = run.created.length;
      await run.emu.runUntil(T("2026-06-03T00:02:30Z"));
      assert.equal(run.created.length, before, "nothing runs while the controller is down");
      run.controller.start();
      await run.emu.runUntil(T("2026-06-03T00:04:00Z"));
      const onRestart = run.created.slice(before);
      if (deadline === undefined) {
        assert.deepEqual(onRestart.map((c) => iso(c.scheduledAt)), ["2026-06-03T00:00:00Z"], "only the most recent missed slot");
      } else {
        assert.deepEqual(onRestart, [], "the missed slot is beyond startingDeadlineSeconds");
      }
      await run.emu.runUntil(T("2026-06-03T01:00:00Z"));
      const after = run.created.slice(before + onRestart.length);
      assert.equal(after.length, 11);
      for (const c of after) assert.ok(c.createdAt - c.scheduledAt < 1000);
    });
  }
});

test("CronJob: suspend stops new Jobs (running ones finish); resume runs at most the latest missed slot", async () => {
  await withRun({ start: new Date(T("2026-06-01T09:00:00Z")), spec: { schedule: "*/5 * * * *", startingDeadlineSeconds: undefined }, jobPlan: () => ({ startAfterSeconds: 0, runSeconds: 240 }) }, async (run) => {
    await run.emu.runUntil(T("2026-06-01T10:02:30Z"));
    run.updateSpec({ suspend: true });
    await run.emu.runUntil(T("2026-06-01T10:04:30Z"));
    const tenOClock = run.jobs().find((j) => j.metadata.annotations["batch.tutorial.kubebuilder.io/scheduled-at"] === "2026-06-01T10:00:00Z");
    assert.equal(tenOClock?.status?.conditions?.[1]?.type, "Complete", "the running Job was left to finish");
    await run.emu.runUntil(T("2026-06-01T14:02:30Z"));
    assert.ok(run.created.every((c) => c.createdAt < T("2026-06-01T10:02:30Z")), "no Job while suspended");
    const suspendedPasses = run.passesBetween(T("2026-06-01T10:10:00Z"), T("2026-06-01T14:02:30Z"));
    assert.equal(suspendedPasses.length, 0, "a suspended CronJob asks for no wake-ups");
    run.updateSpec({ suspend: false });
    await run.emu.runUntil(T("2026-06-01T14:30:00Z"));
    const resumed = run.created.filter((c) => c.createdAt >= T("2026-06-01T14:02:30Z")).map((c) => iso(c.scheduledAt));
    assert.deepEqual(resumed, ["2026-06-01T14:00:00Z", "2026-06-01T14:05:00Z", "2026-06-01T14:10:00Z", "2026-06-01T14:15:00Z", "2026-06-01T14:20:00Z", "2026-06-01T14:25:00Z"]);
  });
});

test("CronJob: a schedule change takes effect from the moment it is seen (no retroactive run of the new schedule)", async () => {
  await withRun({ start: new Date(T("2026-06-01T11:00:00Z")), spec: { schedule: "*/5 * * * *", startingDeadlineSeconds: undefined }, jobPlan: shortJobs }, async (run) => {
    await run.emu.runUntil(T("2026-06-01T12:07:30Z"));
    run.updateSpec({ schedule: "3 * * * *" });
    await run.emu.runUntil(T("2026-06-01T15:00:00Z"));
    const afterChange = run.created.filter((c) => c.createdAt >= T("2026-06-01T12:07:30Z"));
    assert.deepEqual(afterChange.map((c) => iso(c.scheduledAt)), ["2026-06-01T13:03:00Z", "2026-06-01T14:03:00Z"]);
    for (const c of afterChange) assert.ok(c.createdAt - c.scheduledAt < 1000);
  });
});

/** UTC scheduled times of the Jobs a daily schedule creates in a zone between two instants. */
async function dailyRuns(schedule: string, timeZone: string, from: string, to: string): Promise<string[]> {
  let out: string[] = [];
  await withRun({ start: new Date(T(from)), spec: { schedule, timeZone, startingDeadlineSeconds: undefined }, jobPlan: shortJobs }, async (run) => {
    await run.emu.runUntil(T(to));
    for (const c of run.created) assert.ok(c.createdAt - c.scheduledAt < 1000, `${c.name} on time`);
    out = run.created.map((c) => iso(c.scheduledAt));
  });
  return out;
}

test("CronJob DST America/New_York: a 02:30 slot in the spring-forward gap runs once just after it; 01:30 in the repeated hour runs once", async () => {
  assert.deepEqual(await dailyRuns("30 2 * * *", "America/New_York", "2026-03-06T00:00:00Z", "2026-03-10T12:00:00Z"), [
    "2026-03-06T07:30:00Z",
    "2026-03-07T07:30:00Z",
    "2026-03-08T07:00:00Z", // 03:00 EDT, the first instant after the gap
    "2026-03-09T06:30:00Z",
    "2026-03-10T06:30:00Z",
  ]);
  assert.deepEqual(await dailyRuns("30 1 * * *", "America/New_York", "2026-10-30T12:00:00Z", "2026-11-03T12:00:00Z"), [
    "2026-10-31T05:30:00Z",
    "2026-11-01T05:30:00Z", // first 01:30 (EDT); the repeated 01:30 EST does not run
    "2026-11-02T06:30:00Z",
    "2026-11-03T06:30:00Z",
  ]);
});

test("CronJob DST Europe/Berlin: 02:30 in the spring gap runs at 03:00 CEST; in the repeated hour once, at the first 02:30", async () => {
  assert.deepEqual(await dailyRuns("30 2 * * *", "Europe/Berlin", "2026-03-27T12:00:00Z", "2026-03-31T12:00:00Z"), [
    "2026-03-28T01:30:00Z",
    "2026-03-29T01:00:00Z",
    "2026-03-30T00:30:00Z",
    "2026-03-31T00:30:00Z",
  ]);
  assert.deepEqual(await dailyRuns("30 2 * * *", "Europe/Berlin", "2026-10-23T12:00:00Z", "2026-10-27T12:00:00Z"), [
    "2026-10-24T00:30:00Z",
    "2026-10-25T00:30:00Z",
    "2026-10-26T01:30:00Z",
    "2026-10-27T01:30:00Z",
  ]);
});

test("CronJob DST: an hourly schedule follows elapsed time across both transitions in New York", async () => {
  for (const [from, to] of [
    ["2026-03-07T20:00:00Z", "2026-03-09T04:00:00Z"],
    ["2026-10-31T20:00:00Z", "2026-11-02T04:00:00Z"],
  ] as const) {
    const runs = (await dailyRuns("0 * * * *", "America/New_York", from, to)).map(T);
    assert.equal(runs.length, (T(to) - T(from)) / 3_600_000 - 1);
    for (let i = 1; i < runs.length; i++) assert.equal(runs[i]! - runs[i - 1]!, 3_600_000, `hourly at ${iso(runs[i]!)}`);
  }
});

test("CronJob Replace: a failed delete of the replaced Job is retried on the next pass (found by the emulator)", async () => {
  const faults = { rng: () => 0.5, childWriteErrorRate: 0 };
  await withRun({ start: new Date(T("2026-06-01T00:00:00Z")), spec: { schedule: "*/5 * * * *", concurrencyPolicy: "Replace" }, jobPlan: () => ({ startAfterSeconds: 0, runSeconds: 480 }), faults }, async (run) => {
    await run.emu.runUntil(T("2026-06-01T00:09:59Z"));
    assert.equal(run.activeJobs().length, 1);
    let first = true;
    faults.childWriteErrorRate = 1;
    faults.rng = () => (first ? ((first = false), 0) : 1); // only the first child write (the delete) fails
    await run.emu.runUntil(T("2026-06-01T00:10:05Z"));
    assert.deepEqual(run.activeJobs().map((j) => j.metadata.name), ["hello-29671210"], "the 00:05 Job is gone, the 00:10 Job runs");
  });
});

test("CronJob: deletion with a finalize hook removes every Job, then the CronJob", async () => {
  await withRun({ start: new Date(T("2026-06-01T00:00:00Z")), spec: { schedule: "*/5 * * * *" }, jobPlan: () => ({ startAfterSeconds: 0, runSeconds: 400 }) }, async (run) => {
    await run.emu.runUntil(T("2026-06-01T00:31:00Z"));
    assert.ok(run.jobs().length > 1);
    const cj = run.cronJob;
    assert.ok(cj.metadata.finalizers?.length, "Metacontroller added its finalizer");
    run.emu.delete(cj);
    await run.emu.runFor(30);
    assert.equal(run.emu.get(cj), undefined);
    assert.deepEqual(run.jobs(), []);
    assert.deepEqual(run.emu.store.list("v1", "Pod", "default"), [], "Pods went with their Jobs");
    assert.ok(run.passes.some((p) => p.hook === "finalize"));
  });
  void FIVE_MINUTES;
});

test("CronJob with every hook at version v2 (namespace/name keys, strict decoding): same Jobs, same status", async () => {
  const runs: string[][] = [];
  for (const hookVersion of ["v1", "v2"] as const) {
    await withRun({ start: new Date(T("2026-06-01T00:00:00Z")), spec: { schedule: "*/5 * * * *" }, jobPlan: shortJobs, hookVersion }, async (run) => {
      await run.emu.runUntil(T("2026-06-01T01:00:00Z"));
      assert.ok(run.passes.every((p) => p.ok), "no strict-decoding error");
      if (hookVersion === "v2") assert.ok(Object.keys(run.passes.at(-1)!.request!.children["Job.batch/v1"]).every((k) => k.startsWith("default/")));
      runs.push(run.created.map((c) => c.name));
    });
  }
  assert.deepEqual(runs[1], runs[0]);
});
