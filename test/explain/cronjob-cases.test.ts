import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { runExplain } from "../../src/explain/command.ts";
import { runHook } from "../../src/metacontroller/run-hook.ts";
import { cronJobController } from "../../src/controllers/cronjob/index.ts";
import { startFakeApiServer } from "../helpers/fake-apiserver.ts";
import { clusterFromRequest, labelledRequest } from "../helpers/recorded-cluster.ts";

// The CronJob golden fixtures are recorded hook requests; served as live API objects they are
// the real-world CronJob cases (C1-C9 in test/controllers/cronjob/cases.test.ts) as a cluster would show them.
const DIR = "test/fixtures/cronjob";
const controllers = [{ def: cronJobController, options: undefined }];

function load(name: string) {
  const request = JSON.parse(readFileSync(join(DIR, name, "request.json"), "utf8"));
  const now = readFileSync(join(DIR, name, "now.txt"), "utf8").trim();
  return { request, now };
}

async function explain(name: string, json = false) {
  const { request, now } = load(name);
  const api = await startFakeApiServer(clusterFromRequest(request, "cronjobs"));
  try {
    const args = ["cronjob", request.parent.metadata.name, "-n", request.parent.metadata.namespace, "--kubeconfig", api.writeKubeconfig(), "--now", now];
    const out = await runExplain(json ? [...args, "-o", "json"] : args, { env: {}, clock: () => new Date(0), controllers });
    assert.equal(out.exitCode, 0, out.stderr);
    return { out: out.stdout, request, now };
  } finally {
    await api.close();
  }
}

test("explain -o json rebuilds each recorded request from the API and answers what the hook answers", async () => {
  const fixtures = readdirSync(DIR).sort();
  assert.ok(fixtures.length >= 20);
  for (const name of fixtures) {
    const { out, request, now } = await explain(name, true);
    const labelled = labelledRequest(request);
    const hook = labelled.parent.metadata.deletionTimestamp ? "finalize" : "sync";
    const expected = runHook(cronJobController, hook, labelled, new Date(now), undefined).response;
    assert.deepEqual(JSON.parse(out), JSON.parse(JSON.stringify(expected)), name);
  }
});

/** Per shared case: lines the human summary must contain. */
const CASES: Array<[string, RegExp[]]> = [
  ["c1-outage-one-job", [/^Due slot: +2026-01-05T12:00:00Z: starts now as Job\/hello-29460240$/m, /^ {2}would create: Job\/hello-29460240$/m]],
  ["c2-resumed-runs-latest", [/^Due slot: +2026-01-05T14:00:00Z: starts now as Job\/hello-29460360$/m]],
  ["c2-suspended", [/^Next run: +none while suspended$/m, /^Due slot: +2026-01-05T14:00:00Z: skipped: Suspended: /m, /would create: none/]],
  ["c2-resumed-deadline-skips", [/^Due slot: +2026-01-05T14:00:00Z: skipped: MissedSchedule: .*startingDeadlineSeconds.*300/m, /^Next run: +2026-01-05T15:00:00Z$/m]],
  [
    "c3-fall-back-no-second-run",
    [
      /^Last run: +2024-11-03 01:30:00 America\/New_York \(UTC-04:00\) = 2024-11-03T05:30:00Z$/m,
      /^Next run: +2024-11-04 01:30:00 America\/New_York \(UTC-05:00\) = 2024-11-04T06:30:00Z$/m,
      /^Due slot: +none since the last run$/m,
      /would create: none/,
    ],
  ],
  ["c4-spring-forward-gap", [/^Due slot: +2024-03-10 03:00:00 America\/New_York \(UTC-04:00\) = 2024-03-10T07:00:00Z: starts now as Job\/hello-28500900$/m]],
  ["c5-deadline-too-late", [/^Due slot: +2026-01-05T00:01:00Z: skipped: MissedSchedule: .*too late to start/m, /^Next sync: +in 86389.1 s/m]],
  ["c5-deadline-in-time", [/^Due slot: +2026-01-05T00:01:00Z: starts now as Job\/hello-29459521$/m]],
  ["c6-vanished-active-job", [/^Due slot: +2026-01-05T12:00:00Z: starts now as Job\/hello-29460240$/m]],
  ["c6-vanished-slot-not-rerun", [/^Last run: +2026-01-05T12:00:00Z \(from the Jobs; status.lastScheduleTime is unset\)$/m, /would create: none/]],
  ["c7-history-limits", [/^ {2}would delete: Job\/hello-29459820, Job\/hello-29459880, Job\/hello-29460000, Job\/hello-29460060$/m]],
  ["c7-history-invalid-schedule", [/^Next run: +none: the schedule is invalid \(day of month: "L" is not a number\)$/m, /would delete: Job\/hello-29459820/]],
  ["c8-name-too-long", [/^Due slot: +2026-01-05T12:00:00Z: skipped: NameTooLong: /m, /would create: none/, /would keep: +Job\/hand-made-job/]],
  ["c9-replace-two-running", [/^ {2}would create: Job\/hello-29460240$/m, /^ {2}would delete: Job\/hello-29460120, Job\/hello-29460180$/m, /replace hello-29460120 \(Replace\)/]],
];

test("explain prints a correct human summary for the shared cases C1-C9", async () => {
  for (const [name, patterns] of CASES) {
    const { out } = await explain(name);
    for (const p of patterns) assert.match(out, p, `${name}:\n${out}`);
  }
});

test("explain of a Forbid-blocked slot says why", async () => {
  const { out } = await explain("forbid-blocked");
  assert.match(out, /^Due slot: .*skipped: ConcurrencyForbidden/m, out);
});
