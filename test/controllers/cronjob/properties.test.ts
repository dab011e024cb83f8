// Property tests over sequences of sync calls: the response's children are fed back as the
// observed children of the next call (Metacontroller deletes what we leave out), with random
// finish states, random clock steps and an occasionally lost status.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { runHook } from "../../../src/metacontroller/run-hook.ts";
import type { SyncResponse } from "../../../src/metacontroller/contract.ts";

const syncHook = (body: unknown, now: Date) => runHook(cronJobController, "sync", body, now, undefined) as { response: SyncResponse; decisions: unknown[] };
import { cronJobController } from "../../../src/controllers/cronjob/index.ts";
import { jobOutcome } from "../../../src/kube/jobs.ts";
import { assertValidKubeObject } from "../../helpers/k8s-schema.ts";
import { cronJob, PARENT_UID, request } from "./builders.ts";

const SCHEDULES = ["* * * * *", "*/5 * * * *", "0 * * * *", "30 2 * * *", "30 1 * * *", "*/15 1-3 * * *", "@every 7m", "0 9-17 * * MON-FRI", "@hourly"];
const ZONES = ["UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe"];
const SCHEDULED_AT = "batch.tutorial.kubebuilder.io/scheduled-at";

const specArb = fc.record(
  {
    schedule: fc.constantFrom(...SCHEDULES),
    timeZone: fc.constantFrom(...ZONES),
    concurrencyPolicy: fc.constantFrom("Allow", "Forbid", "Replace"),
    startingDeadlineSeconds: fc.integer({ min: 0, max: 7200 }),
    successfulJobsHistoryLimit: fc.integer({ min: 0, max: 4 }),
    failedJobsHistoryLimit: fc.integer({ min: 0, max: 3 }),
    suspend: fc.boolean(),
  },
  { requiredKeys: ["schedule"] },
);

// Steps: how far the clock moves (ms), what happens to running Jobs, whether the status is lost.
const stepArb = fc.record({
  advanceMs: fc.oneof(fc.integer({ min: 1, max: 120_000 }), fc.integer({ min: 1, max: 3 * 3_600_000 }), fc.constant(0)),
  finish: fc.array(fc.constantFrom("running", "complete", "failed"), { minLength: 4, maxLength: 4 }),
  loseStatus: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  toggleSuspend: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
});

// Around both 2024 DST transitions in the northern hemisphere and Lord Howe's half-hour shifts.
const startArb = fc.constantFrom("2024-03-09T20:00:00Z", "2024-11-02T20:00:00Z", "2024-10-05T12:00:00Z", "2026-01-05T11:00:00Z");

const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");

/** What Metacontroller would observe after applying a desired Job created at `now`. */
function observe(desired: any, now: number, state: string): any {
  const status: any = { startTime: iso(now) };
  const cond = (type: string) => [{ type, status: "True", reason: "r", message: "m", lastTransitionTime: iso(now) }];
  if (state === "complete") Object.assign(status, { succeeded: 1, completionTime: iso(now), conditions: cond("Complete") });
  if (state === "failed") Object.assign(status, { failed: 1, conditions: cond("Failed") });
  if (state === "running") status.active = 1;
  return {
    ...desired,
    metadata: { ...desired.metadata, uid: `uid-${desired.metadata.name}`, creationTimestamp: iso(now), labels: { ...(desired.metadata.labels ?? {}), "controller-uid": PARENT_UID } },
    status,
  };
}

function finishJob(observed: any, now: number, state: string): any {
  if (jobOutcome(observed) !== undefined || state === "running") return observed;
  return observe(observed, now, state);
}

test("sequences of syncs: deterministic, ≤ 1 new Job per call, no slot twice, Forbid ≤ 1 active, history limits, resync > 0", () => {
  fc.assert(
    fc.property(specArb, startArb, fc.array(stepArb, { minLength: 1, maxLength: 14 }), (spec, start, steps) => {
      let now = Date.parse(start);
      let status: Record<string, unknown> | undefined;
      let suspend = spec.suspend ?? false;
      let observed = new Map<string, any>();
      const created = new Set<string>();
      const slots = new Set<string>();
      for (const step of steps) {
        now += step.advanceMs;
        if (step.toggleSuspend) suspend = !suspend;
        if (step.loseStatus) {
          // With the status gone, only observed Jobs remember their slots: a slot whose Job was
          // already pruned (history limit 0) may legitimately run again — nothing records it.
          status = undefined;
          const remembered = new Set([...observed.values()].map((j) => j.metadata.annotations?.[SCHEDULED_AT]));
          for (const slot of [...slots]) if (!remembered.has(slot)) slots.delete(slot);
          for (const name of [...created]) if (!observed.has(name)) created.delete(name);
        }
        let i = 0;
        for (const [name, j] of observed) observed.set(name, finishJob(j, now, step.finish[i++ % step.finish.length]!));
        const parent = cronJob({ creationTimestamp: start, spec: { ...spec, suspend }, ...(status ? { status } : {}) });
        const body = request(parent, [...observed.values()]);
        const result = syncHook(body, new Date(now));
        const again = syncHook(structuredClone(body), new Date(now));
        assert.equal(JSON.stringify(again.response), JSON.stringify(result.response), "determinism");

        const { response } = result;
        const children = response.children as any[];
        const fresh = children.filter((c) => !observed.has(c.metadata.name));
        assert.ok(fresh.length <= 1, "at most one new Job per call");
        for (const j of fresh) {
          assertValidKubeObject(j);
          assert.ok(!created.has(j.metadata.name), `Job ${j.metadata.name} created twice`);
          const slot = j.metadata.annotations[SCHEDULED_AT];
          assert.ok(!slots.has(slot), `slot ${slot} run twice`);
          assert.ok(Date.parse(slot) <= now, "never a future slot");
          if (spec.startingDeadlineSeconds !== undefined) assert.ok(now - Date.parse(slot) <= spec.startingDeadlineSeconds * 1000, "deadline");
          assert.ok(!suspend, "no Job while suspended");
          created.add(j.metadata.name);
          slots.add(slot);
        }
        if (response.resyncAfterSeconds !== undefined) assert.ok(response.resyncAfterSeconds > 0);

        // Metacontroller applies the desired set: kept Jobs stay as observed, new ones appear.
        const next = new Map<string, any>();
        for (const c of children) next.set(c.metadata.name, observed.get(c.metadata.name) ?? observe(c, now, "running"));
        const running = [...next.values()].filter((j) => jobOutcome(j) === undefined);
        if (spec.concurrencyPolicy === "Forbid") assert.ok(running.length <= 1, `Forbid: ${running.length} active Jobs`);
        if (spec.concurrencyPolicy === "Replace") assert.ok(running.length <= 1, `Replace: ${running.length} active Jobs`);
        const limits = { Complete: spec.successfulJobsHistoryLimit ?? 3, Failed: spec.failedJobsHistoryLimit ?? 1 };
        for (const outcome of ["Complete", "Failed"] as const) {
          const count = [...next.values()].filter((j) => jobOutcome(j) === outcome).length;
          assert.ok(count <= limits[outcome], `${outcome}: ${count} kept, limit ${limits[outcome]}`);
        }
        const active = (response.status as any).active as any[] | undefined;
        if (active) {
          assert.ok(active.length >= 1 && active.length <= 10);
          assert.deepEqual(active.map((a) => a.name).sort(), running.map((j) => j.metadata.name).sort().slice(-10));
        }
        observed = next;
        status = response.status as Record<string, unknown>;
      }
    }),
    { numRuns: Number(process.env.CRONJOB_PROPERTY_RUNS ?? 150) },
  );
});

test("a fed-back answer is stable: syncing again at the same instant creates nothing and changes no status", () => {
  fc.assert(
    fc.property(specArb, startArb, fc.integer({ min: 0, max: 30 * 3_600_000 }), (spec, start, offset) => {
      const now = new Date(Date.parse(start) + offset);
      const parent = cronJob({ creationTimestamp: start, spec });
      const first = syncHook(request(parent), now).response;
      const jobs = (first.children as any[]).map((c) => observe(c, now.getTime(), "running"));
      const parent2 = cronJob({ creationTimestamp: start, spec, status: first.status });
      const second = syncHook(request(parent2, jobs), now).response;
      assert.equal(second.children.length, jobs.length, "no new Job for the same instant");
      const strip = (s: any) => ({ ...s, active: s.active?.map((a: any) => a.name), conditions: s.conditions?.map((c: any) => [c.type, c.status, c.lastTransitionTime]) });
      assert.deepEqual(strip(second.status), strip(first.status));
    }),
    { numRuns: Number(process.env.CRONJOB_PROPERTY_RUNS ?? 150) },
  );
});

test("any lastScheduleTime/now skew gives a finite resync of at most 24 h, and a schedule with future slots never says NeverFires", () => {
  // Metacontroller turns the seconds into int64 nanoseconds: a resync past ~292 years overflows it.
  const MAX_RESYNC_SECONDS = 86_400;
  const MAX_DATE_MS = 253402300799000; // 9999-12-31T23:59:59Z, the largest RFC 3339 time
  const schedules = [...SCHEDULES, "@every 2562047h", "@every 1m", "0 0 29 2 *", "@yearly"];
  fc.assert(
    fc.property(
      fc.constantFrom(...schedules),
      fc.constantFrom(...ZONES),
      fc.integer({ min: Date.parse("2000-01-01T00:00:00Z"), max: Date.parse("2100-01-01T00:00:00Z") }),
      // Relative to now (a clock skew either way), or anywhere up to year 9999.
      fc.oneof(fc.record({ skew: fc.integer({ min: -10 * 365 * 86_400_000, max: 10 * 365 * 86_400_000 }) }), fc.record({ at: fc.integer({ min: 0, max: MAX_DATE_MS }) })),
      (schedule, timeZone, nowMs, last_) => {
        const now = new Date(nowMs);
        const lastMs = "at" in last_ ? last_.at : Math.max(0, nowMs + last_.skew);
        const last = new Date(Math.floor(lastMs / 1000) * 1000).toISOString().replace(".000Z", "Z");
        const parent = cronJob({ creationTimestamp: "2000-01-01T00:00:00Z", spec: { schedule, timeZone }, status: { lastScheduleTime: last } });
        const { response } = syncHook(request(parent), now);
        const ready = (response.status as any).conditions.find((c: any) => c.type === "Ready");
        assert.notEqual(ready.reason, "NeverFires", `${schedule} has future slots (lastScheduleTime ${last})`);
        const resync = response.resyncAfterSeconds;
        assert.ok(typeof resync === "number" && Number.isFinite(resync) && resync > 0 && resync <= MAX_RESYNC_SECONDS, `resync ${resync} (${schedule}, ${last}, now ${now.toISOString()})`);
      },
    ),
    { numRuns: Number(process.env.CRONJOB_PROPERTY_RUNS ?? 150), examples: [["* * * * *", "UTC", Date.parse("2026-03-01T10:00:30Z"), { at: MAX_DATE_MS }], ["@every 2562047h", "UTC", Date.parse("2026-03-01T10:00:30Z"), { at: Date.parse("2300-01-05T12:00:00Z") }]] },
  );
});
