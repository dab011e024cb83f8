import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { simulateCronJob, type SimulationResult } from "../../src/simulate/cronjob.ts";
import { readCronJobs, runSimulate } from "../../src/cli/simulate.ts";

const SAMPLE = parse(readFileSync("examples/cronjob/cronjob-sample.yaml", "utf8"));

function cronJob(spec: Record<string, unknown>, name = "nightly") {
  return { apiVersion: "batch.tutorial.kubebuilder.io/v1", kind: "CronJob", metadata: { name, namespace: "ops" }, spec: { jobTemplate: SAMPLE.spec.jobTemplate, ...spec } };
}

const slots = (r: SimulationResult) => r.events.filter((e) => e.type === "slot");

test("a nightly Berlin job across the spring DST change runs once a day, at 03:00 on the day 02:30 does not exist", async () => {
  const r = await simulateCronJob({ cronJob: cronJob({ schedule: "30 2 * * *", timeZone: "Europe/Berlin" }), from: new Date("2026-03-27T00:00:00Z"), to: new Date("2026-04-01T00:00:00Z"), jobDurationSeconds: 1200 });
  assert.deepEqual(
    slots(r).map((e) => [e.local, e.type === "slot" ? e.outcome : "", e.type === "slot" ? e.dst : ""]),
    [
      ["2026-03-27T02:30:00+01:00", "created", undefined],
      ["2026-03-28T02:30:00+01:00", "created", undefined],
      ["2026-03-29T03:00:00+02:00", "created", "moved"],
      ["2026-03-30T02:30:00+02:00", "created", undefined],
      ["2026-03-31T02:30:00+02:00", "created", undefined],
    ],
  );
  assert.equal(r.summary.succeeded, 5);
  assert.equal(r.status.lastScheduleTime, "2026-03-31T00:30:00Z");
  assert.equal(r.status.lastSuccessfulTime, "2026-03-31T00:50:00Z");
  assert.deepEqual(r.summary.jobsAtEnd.length, 3, "the history limit keeps 3 succeeded Jobs");
  assert.equal(r.summary.deleted, 2);
  assert.ok(r.events.filter((e) => e.type === "deleted").every((e) => e.type === "deleted" && e.reason === "HistoryLimit"));
});

test("Forbid with Jobs longer than the period: slots are skipped with the reason, a waiting slot starts late", async () => {
  const r = await simulateCronJob({ cronJob: cronJob({ schedule: "*/5 * * * *", concurrencyPolicy: "Forbid" }), from: new Date("2026-06-01T00:00:00Z"), to: new Date("2026-06-01T02:00:00Z"), jobDurationSeconds: 720 });
  assert.ok((r.summary.skipped.Forbid ?? 0) > 0, JSON.stringify(r.summary));
  assert.ok(slots(r).some((e) => e.type === "slot" && e.outcome === "created" && e.delaySeconds >= 60), "a slot that waited starts when the running Job finishes");
  // Never two Jobs at once: every Job is created after the previous one finished.
  const created = slots(r).flatMap((e) => (e.type === "slot" && e.outcome === "created" ? [{ job: e.job, at: e.createdAt }] : []));
  const finished = new Map(r.events.flatMap((e) => (e.type === "succeeded" || e.type === "failed" ? [[e.job, e.at] as const] : [])));
  for (let i = 1; i < created.length; i++) {
    const previousEnd = finished.get(created[i - 1]!.job);
    assert.ok(previousEnd !== undefined && previousEnd <= created[i]!.at, `${created[i]!.job} created at ${created[i]!.at} while ${created[i - 1]!.job} ran`);
  }
});

test("an outage: slots due while the hook service is down are skipped (Outage, or Deadline when the deadline ran out); the loop recovers", async () => {
  const r = await simulateCronJob({
    cronJob: cronJob({ schedule: "*/10 * * * *", startingDeadlineSeconds: 300 }),
    from: new Date("2026-06-01T00:00:00Z"),
    to: new Date("2026-06-01T05:59:00Z"),
    outages: [{ start: new Date("2026-06-01T01:00:00Z"), end: new Date("2026-06-01T03:00:00Z") }],
  });
  const skipped = slots(r).filter((e) => e.type === "slot" && e.outcome === "skipped");
  assert.ok(skipped.length >= 12, `${skipped.length} slots skipped`);
  assert.ok(skipped.every((e) => e.type === "slot" && e.outcome === "skipped" && (e.reason === "Outage" || e.reason === "Deadline")), JSON.stringify(r.summary.skipped));
  assert.ok(skipped.every((e) => e.at >= "2026-06-01T01:00:00Z"), "nothing before the outage");
  assert.ok(r.summary.failedHookCalls > 0);
  assert.ok(slots(r).some((e) => e.type === "slot" && e.outcome === "created" && e.at > "2026-06-01T04:00:00Z"), "Jobs run again after the outage");
  assert.deepEqual(r.events.filter((e) => e.type.startsWith("outage")).map((e) => [e.type, e.at]), [["outage-start", "2026-06-01T01:00:00Z"], ["outage-end", "2026-06-01T03:00:00Z"]]);
});

test("suspended and invalid CronJobs: every slot skipped as Suspended; an invalid schedule has no slots and says why", async () => {
  const window = { from: new Date("2026-06-01T00:00:00Z"), to: new Date("2026-06-01T01:00:00Z") };
  const suspended = await simulateCronJob({ cronJob: cronJob({ schedule: "*/15 * * * *", suspend: true }), ...window });
  assert.deepEqual(suspended.summary.skipped, { Suspended: 4 });
  const invalid = await simulateCronJob({ cronJob: cronJob({ schedule: "61 * * * *" }), ...window });
  assert.equal(invalid.summary.slots, 0);
  assert.equal(invalid.status.conditions.find((c: any) => c.type === "Ready").reason, "InvalidSchedule");
});

test("deterministic: the same inputs and seed give the same timeline; the failure share follows --job-fails", async () => {
  const options = { cronJob: cronJob({ schedule: "*/5 * * * *" }), from: new Date("2026-06-01T00:00:00Z"), to: new Date("2026-06-01T08:00:00Z"), jobFailureRate: 0.3, seed: 7 };
  const a = await simulateCronJob(options);
  const b = await simulateCronJob(options);
  assert.equal(JSON.stringify(a), JSON.stringify(b));
  assert.ok(a.summary.failed > 10 && a.summary.failed < 50, `${a.summary.failed} of ${a.summary.created} failed`);
  const other = await simulateCronJob({ ...options, seed: 8 });
  assert.notEqual(JSON.stringify(other.events), JSON.stringify(a.events));
  const allFail = await simulateCronJob({ ...options, jobFailureRate: 1 });
  assert.equal(allFail.summary.succeeded, 0);
  assert.equal(allFail.summary.jobsAtEnd.length, 1, "failedJobsHistoryLimit 1");
});

test("a simulation in which no hook call is answered says the status is empty rather than printing an empty block", async () => {
  const read = () => readFileSync("examples/cronjob/cronjob-sample.yaml", "utf8");
  const out = await runSimulate(["cron.yaml", "--from", "2026-03-26T00:00", "--to", "2026-03-26T00:10", "--outage", "2026-03-26T00:00/1h"], read);
  assert.equal(out.exitCode, 0, out.stderr);
  assert.match(out.stdout, /\nStatus at the end:\n  none \(no hook call was answered\)\n$/);
});

test("`metahooks simulate` reads the YAML a user applies and prints a table or JSON", async () => {
  const file = ["apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ops", JSON.stringify(cronJob({ schedule: "0 * * * *" }, "hourly")), JSON.stringify(cronJob({ schedule: "30 * * * *" }, "half"))].join("\n---\n");
  const read = () => file;
  const table = await runSimulate(["cron.yaml", "--from", "2026-06-01", "--to", "2026-06-01T03:00", "--job-duration", "20m", "--name", "hourly"], read);
  assert.equal(table.exitCode, 0, table.stderr);
  assert.match(table.stdout, /^CronJob ops\/hourly: schedule "0 \* \* \* \*", timeZone UTC, 2026-06-01T00:00:00Z to 2026-06-01T03:00:00Z\n/);
  // No spec.timeZone: one time column (a zone column would repeat it on every line).
  assert.match(table.stdout, /\nUTC +event +job +detail\n/);
  assert.match(table.stdout, /\n2026-06-01T01:00:00Z  slot +hourly-\d+ +Job created\n/);
  assert.match(table.stdout, /2026-06-01T01:20:00Z .* succeeded/);
  assert.match(table.stdout, /Summary: 3 slots, 2 Jobs created, 1 skipped \(1 Pending\)/);
  assert.match(table.stdout, /Ready=True Active/);
  const json = await runSimulate(["cron.yaml", "--from", "2026-06-01", "--to", "2026-06-01T01:00", "-o", "json", "--outage", "2026-06-01T00:10/20m", "--job-fails", "50%", "--seed", "3"], read);
  assert.equal(json.exitCode, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout).map((r: SimulationResult) => r.name), ["hourly", "half"]);
});

test("`metahooks simulate` misuse exits 2 with usage; unreadable or CronJob-less files exit 1", async () => {
  const read = () => JSON.stringify(cronJob({ schedule: "* * * * *" }));
  for (const args of [[], ["a.yaml"], ["a.yaml", "--from", "2026-06-01"], ["a.yaml", "--from", "2026-06-02", "--to", "2026-06-01"], ["a.yaml", "--from", "2026-01-01", "--to", "2026-12-01"], ["a.yaml", "--from", "2026-06-01", "--to", "2026-06-02", "--job-fails", "150%"], ["a.yaml", "--from", "2026-06-01", "--to", "2026-06-02", "--outage", "2026-06-01T05:00"], ["a.yaml", "b.yaml", "--from", "2026-06-01", "--to", "2026-06-02"], ["a.yaml", "--from", "2026-06-01", "--to", "2026-06-02", "--bogus"]]) {
    const out = await runSimulate(args, read);
    assert.equal(out.exitCode, 2, args.join(" "));
    assert.match(out.stderr, /Usage: metahooks simulate/);
  }
  const window = ["--from", "2026-06-01", "--to", "2026-06-02"];
  const upstream = await runSimulate(["a.yaml", ...window], () => "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: x\n");
  assert.equal(upstream.exitCode, 1);
  assert.match(upstream.stderr, /found: batch\/v1 CronJob x.*set apiVersion: batch.tutorial.kubebuilder.io\/v1/);
  assert.equal((await runSimulate(["a.yaml", ...window, "--name", "nope"], read)).exitCode, 1);
  assert.equal((await runSimulate(["a.yaml", ...window], () => "a: [")).exitCode, 1);
  assert.equal((await runSimulate(["a.yaml", ...window], () => { throw new Error("ENOENT: no such file"); })).exitCode, 1);
  // Real read errors are said plainly (not as Node's errno text).
  const missing = await runSimulate(["no-such-file.yaml", ...window]);
  assert.deepEqual([missing.exitCode, missing.stderr], [1, 'metahooks simulate: cannot read "no-such-file.yaml": no such file\n']);
  const directory = await runSimulate(["examples", ...window]);
  assert.deepEqual([directory.exitCode, directory.stderr], [1, 'metahooks simulate: cannot read "examples": it is a directory (pass the YAML file of the CronJob)\n']);
  assert.throws(() => readCronJobs("apiVersion: batch.tutorial.kubebuilder.io/v1\nkind: CronJob\nspec: {}\n", "x.yaml"), /without metadata.name/);
  assert.equal(readCronJobs(JSON.stringify({ apiVersion: "v1", kind: "List", items: [cronJob({ schedule: "@daily" })] }), "list").length, 1);
  // A hook request is not a CronJob: the message says what the file is and what to pass instead.
  const request = JSON.stringify({ controller: {}, parent: cronJob({ schedule: "@daily" }), children: {}, related: {}, finalizing: false });
  assert.throws(() => readCronJobs(request, "r.json"), /found: an object without apiVersion and kind, with the keys controller, parent, children, related, finalizing\); this is a hook request: simulate takes the CronJob itself/);
});

test("overlapping outages are one outage: the timeline says the service is back only when the last window ends", async () => {
  const options = { cronJob: cronJob({ schedule: "*/10 * * * *" }), from: new Date("2026-06-01T00:00:00Z"), to: new Date("2026-06-01T02:00:00Z") };
  const overlapping = await simulateCronJob({
    ...options,
    outages: [
      { start: new Date("2026-06-01T00:00:00Z"), end: new Date("2026-06-01T00:40:00Z") },
      { start: new Date("2026-06-01T00:10:00Z"), end: new Date("2026-06-01T01:00:00Z") },
    ],
  });
  const single = await simulateCronJob({ ...options, outages: [{ start: new Date("2026-06-01T00:00:00Z"), end: new Date("2026-06-01T01:00:00Z") }] });
  assert.deepEqual(overlapping.events.filter((e) => e.type.startsWith("outage")).map((e) => [e.type, e.at]), [["outage-start", "2026-06-01T00:00:00Z"], ["outage-end", "2026-06-01T01:00:00Z"]]);
  assert.equal(JSON.stringify(overlapping), JSON.stringify(single), "the same run as the one window they cover");
});

test("a CronJob whose container is named build, with non-string arguments, simulates (the emulator's CIBuild push model reads only string args)", async () => {
  const yaml = 'apiVersion: batch.tutorial.kubebuilder.io/v1\nkind: CronJob\nmetadata: {name: dotjob}\nspec:\n  schedule: "*/5 * * * *"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          restartPolicy: OnFailure\n          containers: [{name: build, image: "busybox:1.37.0", args: [ls, 7, ~]}]\n';
  const out = await runSimulate(["cj.yaml", "--from", "2026-01-05T12:00", "--to", "2026-01-05T12:20", "--job-duration", "1m"], () => yaml);
  assert.equal(out.exitCode, 0, out.stderr);
  assert.match(out.stdout, /Summary: 4 slots, 3 Jobs created, 1 skipped \(1 Pending\), 3 succeeded/);
});
